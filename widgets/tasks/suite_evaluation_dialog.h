// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "widgets/state/evaluation_service.h"

#include <QDialog>
#include <QPointer>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace dice {

class WorkbenchState;

// Scores the suite with a folder of candidates (<folder>/<task>.dice), the way `dice eval
// --suite` does: every task's candidate evaluated on the evaluator's thread, progress as each
// finishes, then the per-task verdicts and the paper's metrics table. Stopping lets the
// evaluation in flight end and counts the ones not started as failures.
class SuiteEvaluationDialog : public QDialog {
    Q_OBJECT
public:
    explicit SuiteEvaluationDialog(WorkbenchState* state, QWidget* parent = nullptr);

    void setCandidateFolder(const QString& folder);
    void setPreset(const QString& preset);
    void setRepeats(int repeats);
    // Starts the evaluation with the settings shown; false (with the reason shown) when they
    // cannot start one.
    bool start();
    void stop();
    bool running() const { return m_job != nullptr; }

    // The table shown for the last evaluation (tests read it).
    QString resultText() const;
    QString statusText() const;

Q_SIGNALS:
    void evaluationFinished();

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void chooseFolder();
    void showProgress(const QString& task, const QString& verdict, int finished, int total);
    void showEvaluation(const SuiteEvaluation& evaluation);
    void showFailure(const QString& message);
    void updateButtons();

    WorkbenchState* m_state;
    QPointer<SuiteEvaluationJob> m_job;
    QLabel* m_folderLabel;
    QLineEdit* m_folder;
    QPushButton* m_browse;
    QLabel* m_presetLabel;
    QComboBox* m_preset;
    QLabel* m_repeatsLabel;
    QSpinBox* m_repeats;
    QPushButton* m_start;
    QPushButton* m_stop;
    QProgressBar* m_progress;
    QLabel* m_status;
    QPlainTextEdit* m_result;
};

} // namespace dice
