// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMap>
#include <QPointer>
#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;

namespace dice {

class RunWatcher;
class TrainerProcess;
class WorkbenchState;

// The checkpoints of a run with their held-out scores. One opens as the current model of
// Generate and Infill, or starts a new run; one (or the model the run started from) is scored
// on the built-in suite in the background, by the trainer itself run for no step (greedy,
// judged as the run judges), into the run folder's scores/; the scores are compared in a table
// of the paper's metrics.
class CheckpointView : public QWidget {
    Q_OBJECT
public:
    explicit CheckpointView(WorkbenchState* state, QWidget* parent = nullptr);

    void setRun(RunWatcher* run);
    void refresh();

    // The folder of the checkpoint in a row of the table ("" for none).
    QString checkpointFolder(int row) const;
    QTableWidget* checkpoints() const { return m_table; }
    QTableWidget* comparison() const { return m_comparison; }
    // Scores a model folder under a name (the scores/NAME folder of the run); false with the
    // reason shown when it cannot start.
    bool score(const QString& name, const QString& model);
    bool scoring() const;
    QString statusText() const;

Q_SIGNALS:
    void openModel(const QString& folder);
    void startFrom(const QString& folder);
    void scoringEnded();

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void updateButtons();
    void refreshComparison();
    QString selectedFolder() const;

    WorkbenchState* m_state;
    QPointer<RunWatcher> m_run;
    QTableWidget* m_table;
    QTableWidget* m_comparison;
    QPushButton* m_open;
    QPushButton* m_startFrom;
    QPushButton* m_score;
    QPushButton* m_scoreStart;
    QLabel* m_status;
    QLabel* m_comparisonLabel;
    TrainerProcess* m_scorer;
    QString m_scoringName;
};

} // namespace dice
