// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QPointer>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTimer;

namespace dice {

class CheckpointView;
class RolloutBrowser;
class RunCurves;
class RunSetup;
class RunWatcher;
class TrainerProcess;
class WorkbenchState;

// Fine-tune: BiC-RL runs (docs/rl.md) set up, started, watched, steered and compared. A run is a
// folder that `dice train rl` writes; the area starts that trainer as a detached child process and
// reads the folder (any run folder the user opens, from this machine or copied back from a
// cluster), never training itself. Pause and stop are the trainer's control files, so they steer
// a run started anywhere; resuming starts the trainer again on the folder, which continues from
// its newest checkpoint.
class FinetuneArea : public QWidget {
    Q_OBJECT
public:
    enum Page { Setup, Curves, Rollouts, Checkpoints, Log };

    explicit FinetuneArea(WorkbenchState* state, QWidget* parent = nullptr);
    ~FinetuneArea() override;

    // Follows a run folder as the current run; false when it is not a folder.
    bool openRun(const QString& folder);
    // Adds a run whose curves are drawn over the current one's.
    bool addComparison(const QString& folder);
    void clearComparisons();

    // Starts a run with the set-up's configuration; false with the reason shown.
    bool start();
    bool pause();
    bool resume();
    bool stop();

    void showPage(Page page);
    RunSetup* setup() const { return m_setup; }
    RunCurves* curves() const { return m_curves; }
    RolloutBrowser* rollouts() const { return m_rollouts; }
    CheckpointView* checkpoints() const { return m_checkpoints; }
    RunWatcher* currentRun() const;
    TrainerProcess* trainer() const { return m_trainer; }
    QString statusText() const;
    QString logText() const;
    bool canStart() const;
    bool canPause() const;
    bool canResume() const;

Q_SIGNALS:
    void sendToProfile(const QString& task, const QString& code);
    void sendToInfill(const QString& code);
    void openModel(const QString& folder);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void runChanged();
    void updateControls();
    void followLog();
    void setRuns(const QList<RunWatcher*>& runs);
    void saveSettings() const;
    void chooseRun(bool comparison);
    void showProblem(const QString& message);
    // Pause (true) or stop after the current step.
    bool requestEnd(bool pause);

    WorkbenchState* m_state;
    TrainerProcess* m_trainer;
    QList<RunWatcher*> m_runs;
    RunSetup* m_setup;
    RunCurves* m_curves;
    RolloutBrowser* m_rollouts;
    CheckpointView* m_checkpoints;
    QPlainTextEdit* m_log;
    QString m_logFile;
    qint64 m_logOffset = 0;
    QTimer* m_logTimer;
    QTabWidget* m_tabs;
    QLabel* m_runLabel;
    QPushButton* m_open;
    QPushButton* m_compare;
    QPushButton* m_clearCompare;
    QPushButton* m_start;
    QPushButton* m_pause;
    QPushButton* m_resume;
    QPushButton* m_stop;
    QProgressBar* m_progress;
    QLabel* m_status;
    QString m_problem;
};

} // namespace dice
