// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/tasks/suite_evaluation_dialog.h"

#include "core/suite/suite_evaluation.h"
#include "widgets/state/evaluation_service.h"
#include "widgets/state/workbench_state.h"

#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFontDatabase>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace dice {

SuiteEvaluationDialog::SuiteEvaluationDialog(WorkbenchState* state, QWidget* parent)
    : QDialog(parent)
    , m_state(state) {
    setObjectName(QStringLiteral("SuiteEvaluationDialog"));
    m_folderLabel = new QLabel(this);
    m_folder = new QLineEdit(this);
    m_folder->setObjectName(QStringLiteral("CandidateFolder"));
    m_browse = new QPushButton(this);
    m_presetLabel = new QLabel(this);
    m_preset = new QComboBox(this);
    m_preset->addItems({QStringLiteral("bench"), QStringLiteral("small")});
    m_repeatsLabel = new QLabel(this);
    m_repeats = new QSpinBox(this);
    m_repeats->setRange(1, 100);
    m_start = new QPushButton(this);
    m_start->setDefault(true);
    m_stop = new QPushButton(this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);
    m_result = new QPlainTextEdit(this);
    m_result->setReadOnly(true);
    m_result->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_result->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    auto* form = new QGridLayout;
    auto* folderRow = new QHBoxLayout;
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(m_browse);
    form->addWidget(m_folderLabel, 0, 0);
    form->addLayout(folderRow, 0, 1);
    form->addWidget(m_presetLabel, 1, 0);
    form->addWidget(m_preset, 1, 1, Qt::AlignLeft);
    form->addWidget(m_repeatsLabel, 2, 0);
    form->addWidget(m_repeats, 2, 1, Qt::AlignLeft);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_progress, 1);
    buttons->addWidget(m_start);
    buttons->addWidget(m_stop);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(m_status);
    layout->addWidget(m_result, 1);
    resize(760, 520);

    connect(m_browse, &QPushButton::clicked, this, &SuiteEvaluationDialog::chooseFolder);
    connect(m_start, &QPushButton::clicked, this, &SuiteEvaluationDialog::start);
    connect(m_stop, &QPushButton::clicked, this, &SuiteEvaluationDialog::stop);
    connect(m_folder, &QLineEdit::textChanged, this, &SuiteEvaluationDialog::updateButtons);
    connect(m_state, &WorkbenchState::suiteChanged, this, &SuiteEvaluationDialog::updateButtons);
    retranslate();
    updateButtons();
}

void SuiteEvaluationDialog::setCandidateFolder(const QString& folder) {
    m_folder->setText(folder);
}

void SuiteEvaluationDialog::setPreset(const QString& preset) {
    m_preset->setCurrentText(preset);
}

void SuiteEvaluationDialog::setRepeats(int repeats) {
    m_repeats->setValue(repeats);
}

bool SuiteEvaluationDialog::start() {
    if (running())
        return false;
    const QString folder = m_folder->text().trimmed();
    if (m_state->suite().tasks.empty()) {
        m_status->setText(tr("The suite has no tasks: open a task folder first."));
        return false;
    }
    if (folder.isEmpty() || !QDir(folder).exists()) {
        m_status->setText(tr("Choose the folder that holds a <task>.dice file for each task."));
        return false;
    }
    SuiteEvaluationOptions options;
    options.candidateDirectory = QDir(folder).absolutePath().toStdString();
    options.eval.preset = m_preset->currentText().toStdString();
    options.repeats = m_repeats->value();
    m_result->clear();
    m_progress->setRange(0, 0);
    m_status->setText(tr("Evaluating the candidates in %1…").arg(QDir::toNativeSeparators(folder)));
    m_job = m_state->evaluationService()->evaluateSuite(m_state->suite(), options);
    connect(m_job, &SuiteEvaluationJob::progress, this, &SuiteEvaluationDialog::showProgress);
    connect(m_job, &SuiteEvaluationJob::finished, this, &SuiteEvaluationDialog::showEvaluation);
    connect(m_job, &SuiteEvaluationJob::failed, this, &SuiteEvaluationDialog::showFailure);
    connect(m_job, &Job::done, this, [this] {
        m_job = nullptr;
        updateButtons();
        Q_EMIT evaluationFinished();
    });
    updateButtons();
    return true;
}

void SuiteEvaluationDialog::stop() {
    if (!m_job)
        return;
    m_job->cancel();
    m_status->setText(tr("Stopping after the evaluations in flight…"));
}

QString SuiteEvaluationDialog::resultText() const {
    return m_result->toPlainText();
}

QString SuiteEvaluationDialog::statusText() const {
    return m_status->text();
}

void SuiteEvaluationDialog::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QDialog::changeEvent(event);
}

void SuiteEvaluationDialog::retranslate() {
    setWindowTitle(tr("Evaluate the Suite"));
    m_folderLabel->setText(tr("Candidates:"));
    m_folder->setPlaceholderText(tr("A folder with <task>.dice for each task"));
    m_browse->setText(tr("Choose…"));
    m_presetLabel->setText(tr("Timing preset:"));
    m_repeatsLabel->setText(tr("Evaluations per candidate:"));
    m_start->setText(tr("Evaluate"));
    m_stop->setText(tr("Stop"));
}

void SuiteEvaluationDialog::chooseFolder() {
    const QString folder =
        QFileDialog::getExistingDirectory(this, tr("Folder of Candidates"), m_folder->text());
    if (!folder.isEmpty())
        m_folder->setText(folder);
}

void SuiteEvaluationDialog::showProgress(const QString& task, const QString& verdict, int finished,
                                         int total) {
    m_progress->setRange(0, total);
    m_progress->setValue(finished);
    m_status->setText(tr("%1 of %2 evaluated; %3: %4").arg(finished).arg(total).arg(task, verdict));
}

void SuiteEvaluationDialog::showEvaluation(const SuiteEvaluation& evaluation) {
    m_progress->setRange(0, 1);
    m_progress->setValue(1);
    const auto missing = evaluation.missing();
    m_status->setText(missing.empty() ? tr("%n evaluation(s) of every task's candidate.", nullptr,
                                           static_cast<int>(evaluation.runs.size()))
                                      : tr("%n task(s) had no candidate and count as failures.",
                                           nullptr, static_cast<int>(missing.size())));
    m_result->setPlainText(QString::fromStdString(formatSuiteEvaluation(evaluation)));
}

void SuiteEvaluationDialog::showFailure(const QString& message) {
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_status->setText(tr("The suite could not be evaluated: %1").arg(message));
}

void SuiteEvaluationDialog::updateButtons() {
    m_start->setEnabled(!running() && !m_folder->text().trimmed().isEmpty() &&
                        !m_state->suite().tasks.empty());
    m_stop->setEnabled(running());
    m_folder->setEnabled(!running());
    m_browse->setEnabled(!running());
    m_preset->setEnabled(!running());
    m_repeats->setEnabled(!running());
}

} // namespace dice
