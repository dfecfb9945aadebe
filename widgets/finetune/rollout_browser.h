// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/diffusion/decode_trace.h"

#include <QFutureWatcher>
#include <QPointer>
#include <QWidget>

#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSlider;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTimer;

namespace dice {

class ColorKey;
class DenoisingCanvas;
class RolloutModel;
class RunWatcher;
class Tokenizer;
class WorkbenchState;

// The rollouts of a run, step by step: a table to filter and sort; for the rollout opened, its
// denoising replayed in the Generate area's canvas from the saved trace, its prompt, answer,
// candidate and the judge's message, and the best and worst answers of its group side by side.
// A rollout goes on to Profile (with its task made current) or to Infill. Files are read off the
// GUI thread: a step of the paper's size is megabytes.
class RolloutBrowser : public QWidget {
    Q_OBJECT
public:
    explicit RolloutBrowser(WorkbenchState* state, QWidget* parent = nullptr);
    ~RolloutBrowser() override;

    void setRun(RunWatcher* run);
    // Shows a step's rollouts (read in the background; rolloutsShown() follows).
    void showStep(qint64 step);
    qint64 step() const { return m_step; }
    // Opens a row of the table as it is sorted and filtered now.
    void openRow(int row);

    RolloutModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* table() const { return m_table; }
    DenoisingCanvas* canvas() const { return m_canvas; }
    QSlider* timeline() const { return m_timeline; }
    QString bestText() const;
    QString worstText() const;
    QString answerText() const;
    // The opened rollout, or null.
    const nlohmann::json* openedRollout() const;

Q_SIGNALS:
    void rolloutsShown();
    void sendToProfile(const QString& task, const QString& code);
    void sendToInfill(const QString& code);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void refreshSteps();
    void loadTokenizer();
    void play();
    void showSource(int source, const nlohmann::json* rollout);

    WorkbenchState* m_state;
    QPointer<RunWatcher> m_run;
    qint64 m_step = -1;
    int m_opened = -1;
    DecodeTrace m_trace;
    std::shared_ptr<const Tokenizer> m_tokenizer;
    QString m_tokenizerFor;
    QFutureWatcher<std::vector<nlohmann::json>> m_reading;
    QFutureWatcher<std::shared_ptr<const Tokenizer>> m_tokenizerLoad;
    RolloutModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QLabel* m_stepLabel;
    QComboBox* m_steps;
    QLineEdit* m_filter;
    QTableView* m_table;
    QLabel* m_summary;
    QTabWidget* m_details;
    DenoisingCanvas* m_canvas;
    QSlider* m_timeline;
    QPushButton* m_play;
    ColorKey* m_key;
    QTimer* m_player;
    QLabel* m_tokenNote;
    QPlainTextEdit* m_prompt;
    QPlainTextEdit* m_answer;
    QPlainTextEdit* m_candidate;
    QPlainTextEdit* m_message;
    QLabel* m_bestLabel;
    QLabel* m_worstLabel;
    QPlainTextEdit* m_best;
    QPlainTextEdit* m_worst;
    QPushButton* m_toProfile;
    QPushButton* m_toInfill;
};

} // namespace dice
