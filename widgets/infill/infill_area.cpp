// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/infill/infill_area.h"

#include "core/common/file_util.h"
#include "core/infill/infill_plan.h"
#include "core/infill/text_diff.h"
#include "core/tasks/holes.h"
#include "widgets/editor/code_editor.h"
#include "widgets/editor/find_bar.h"
#include "widgets/generate/denoising_canvas.h"
#include "widgets/state/model_runner.h"
#include "widgets/state/workbench_state.h"

#include <QEvent>
#include <QFile>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <filesystem>

namespace dice {

namespace {

std::optional<Hole> findHole(const std::string& text, const QString& name) {
    for (const Hole& hole : findHoles(text))
        if (QString::fromStdString(hole.name) == name)
            return hole;
    return std::nullopt;
}

} // namespace

InfillArea::InfillArea(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state) {
    m_editor = new CodeEditor(this);
    m_editor->setLanguage(CodeEditor::Language::Cuda);
    m_findBar = new FindBar(m_editor, this);
    m_holeIndicator = m_editor->indicatorDefine(QsciScintilla::StraightBoxIndicator, 3);
    m_editor->setIndicatorForegroundColor(QColor(0x9a, 0x8f, 0x80), m_holeIndicator);
    m_editor->setIndicatorDrawUnder(true, m_holeIndicator);
    m_holes = new QTreeWidget(this);
    m_holes->setObjectName(QStringLiteral("HoleList"));
    m_holes->setColumnCount(3);
    m_holes->setRootIsDecorated(false);
    m_holes->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_canvas = new DenoisingCanvas(this);
    ModelRunner* runner = m_state->modelRunner();
    m_canvas->setTokenText([runner](qint64 id) { return runner->tokenText(id); });
    auto* canvasScroll = new QScrollArea(this);
    canvasScroll->setWidget(m_canvas);
    canvasScroll->setWidgetResizable(true);
    m_diff = new QPlainTextEdit(this);
    m_diff->setObjectName(QStringLiteral("SkeletonDiff"));
    m_diff->setReadOnly(true);
    m_diff->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_diff->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_tabs = new QTabWidget(this);
    m_tabs->addTab(canvasScroll, QString());
    m_tabs->addTab(m_diff, QString());

    m_makeHole = new QPushButton(this);
    m_fillOne = new QPushButton(this);
    m_fillAll = new QPushButton(this);
    m_stop = new QPushButton(this);
    m_accept = new QPushButton(this);
    m_reject = new QPushButton(this);
    m_undo = new QPushButton(this);
    m_reset = new QPushButton(this);
    m_toProfile = new QPushButton(this);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);

    auto* bar = new QHBoxLayout;
    for (QPushButton* b : {m_makeHole, m_fillOne, m_fillAll, m_stop, m_reset, m_toProfile})
        bar->addWidget(b);
    bar->addStretch(1);
    // What is done with a proposal sits with the list of holes.
    auto* holePanel = new QWidget(this);
    auto* holeLayout = new QVBoxLayout(holePanel);
    holeLayout->setContentsMargins(0, 0, 0, 0);
    holeLayout->addWidget(m_holes, 1);
    auto* proposalBar = new QHBoxLayout;
    for (QPushButton* b : {m_accept, m_reject, m_undo})
        proposalBar->addWidget(b);
    proposalBar->addStretch(1);
    holeLayout->addLayout(proposalBar);
    auto* editorColumn = new QWidget(this);
    auto* editorLayout = new QVBoxLayout(editorColumn);
    editorLayout->setContentsMargins(0, 0, 0, 0);
    editorLayout->addWidget(m_editor, 1);
    editorLayout->addWidget(m_findBar);
    auto* side = new QSplitter(Qt::Vertical, this);
    side->addWidget(holePanel);
    side->addWidget(m_tabs);
    side->setStretchFactor(0, 1);
    side->setStretchFactor(1, 3);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(editorColumn);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);

    connect(m_state, &WorkbenchState::currentTaskChanged, this, &InfillArea::loadTaskSkeleton);
    connect(m_state, &WorkbenchState::modelChanged, this, &InfillArea::updateButtons);
    connect(m_editor, &QsciScintilla::textChanged, this, &InfillArea::refreshHoles);
    connect(m_holes, &QTreeWidget::currentItemChanged, this, [this] {
        showHoleTrace();
        updateButtons();
    });
    connect(m_holes, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        const int line = item->data(1, Qt::UserRole).toInt();
        if (line > 0)
            m_editor->goToLine(line);
    });
    connect(m_makeHole, &QPushButton::clicked, this, [this] {
        bool ok = false;
        const QString name = QInputDialog::getText(
            this, tr("Make a hole"),
            tr("Name of the hole (letters, digits, underscores; empty for none):"),
            QLineEdit::Normal, QStringLiteral("body"), &ok);
        QString error;
        if (ok && !makeHoleFromSelection(name, &error))
            m_status->setText(error);
    });
    connect(m_fillOne, &QPushButton::clicked, this, [this] { fillHole(selectedHole()); });
    connect(m_fillAll, &QPushButton::clicked, this, &InfillArea::fillAll);
    connect(m_stop, &QPushButton::clicked, this, &InfillArea::stop);
    connect(m_accept, &QPushButton::clicked, this, [this] { accept(selectedHole()); });
    connect(m_reject, &QPushButton::clicked, this, [this] { reject(selectedHole()); });
    connect(m_undo, &QPushButton::clicked, m_editor, &QsciScintilla::undo);
    connect(m_reset, &QPushButton::clicked, this, [this] { setSkeleton(m_skeleton); });
    connect(m_toProfile, &QPushButton::clicked, this, [this] { Q_EMIT sendToProfile(text()); });

    retranslate();
    loadTaskSkeleton();
}

void InfillArea::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void InfillArea::retranslate() {
    m_holes->setHeaderLabels({tr("Hole"), tr("Line"), tr("State")});
    m_tabs->setTabText(0, tr("Denoising of the hole"));
    m_tabs->setTabText(1, tr("Diff against the skeleton"));
    m_makeHole->setText(tr("Make a hole from the selection…"));
    m_fillOne->setText(tr("Fill this hole"));
    m_fillAll->setText(tr("Fill all holes"));
    m_stop->setText(tr("Stop"));
    m_accept->setText(tr("Accept"));
    m_reject->setText(tr("Reject"));
    m_undo->setText(tr("Undo"));
    m_reset->setText(tr("Back to the skeleton"));
    m_toProfile->setText(tr("Send to Profile"));
    refreshHoles();
}

void InfillArea::loadTaskSkeleton() {
    const Task* task = m_state->currentTask();
    if (!task) {
        setSkeleton(QString());
        return;
    }
    const auto path = std::filesystem::path(dataDirectory()) / "solutions" / (task->name + ".dice");
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) {
        try {
            if (const auto skeleton = makeSkeleton(readTextFile(path.string()))) {
                setSkeleton(QString::fromStdString(skeleton->text));
                return;
            }
        } catch (const std::exception& e) {
            m_status->setText(QString::fromStdString(e.what()));
        }
    }
    // Without a native solution, the KernelBench module is the starting point: the user marks
    // the holes.
    setSkeleton(QString::fromStdString(task->pytorchModule));
}

void InfillArea::setSkeleton(const QString& text) {
    stop();
    m_queue.clear();
    m_canvas->setTrace(nullptr);
    m_work.clear();
    m_skeleton = text;
    m_editor->setLanguage(infillDialect(text.toStdString()) == InfillDialect::KernelBench
                              ? CodeEditor::Language::Python
                              : CodeEditor::Language::Cuda);
    m_editor->setText(text);
    m_editor->SendScintilla(QsciScintilla::SCI_EMPTYUNDOBUFFER);
    m_canvas->setTrace(nullptr);
    refreshHoles();
}

QString InfillArea::text() const {
    return m_editor->text();
}

QString InfillArea::diffText() const {
    // Proposals not yet accepted are part of what the diff shows: a fill's result is there as
    // soon as it is proposed, not only once it is accepted.
    std::map<std::string, std::string> proposals;
    for (const auto& [hole, work] : m_work)
        if (work.state == HoleState::Proposed)
            proposals[hole.toStdString()] = work.proposal.toStdString();
    const std::string current = text().toStdString();
    if (proposals.empty())
        return QString::fromStdString(
            unifiedDiff(m_skeleton.toStdString(), current, "skeleton", "current"));
    // "\n" is no hole's name, so every proposal is filled in.
    return QString::fromStdString(unifiedDiff(m_skeleton.toStdString(),
                                              contextForHole(current, "\n", proposals), "skeleton",
                                              "current with the proposals"));
}

QStringList InfillArea::holeNames() const {
    QStringList names;
    for (const Hole& hole : findHoles(text().toStdString()))
        names << QString::fromStdString(hole.name);
    return names;
}

InfillArea::HoleState InfillArea::holeState(const QString& name) const {
    const auto it = m_work.find(name);
    return it == m_work.end() ? HoleState::Empty : it->second.state;
}

QString InfillArea::proposal(const QString& name) const {
    const auto it = m_work.find(name);
    return it == m_work.end() ? QString() : it->second.proposal;
}

void InfillArea::refreshHoles() {
    const QString current = selectedHole();
    const auto holes = findHoles(text().toStdString());
    {
        const QSignalBlocker blocker(m_holes);
        m_holes->clear();
        for (const Hole& hole : holes) {
            const QString name = QString::fromStdString(hole.name);
            QString state;
            switch (holeState(name)) {
            case HoleState::Empty:
                state = tr("empty");
                break;
            case HoleState::Queued:
                state = tr("waiting");
                break;
            case HoleState::Filling:
                state = tr("filling…");
                break;
            case HoleState::Proposed:
                state = tr("proposal ready, lines: %n", nullptr,
                           static_cast<int>(m_work[name].proposal.count(QLatin1Char('\n')) + 1));
                break;
            case HoleState::Failed:
                state = tr("failed: %1").arg(m_work[name].note);
                break;
            }
            auto* item = new QTreeWidgetItem(m_holes);
            item->setText(0, name.isEmpty() ? tr("(unnamed)") : name);
            item->setData(0, Qt::UserRole, name);
            item->setText(1, QString::number(hole.line));
            item->setData(1, Qt::UserRole, hole.line);
            item->setText(2, state);
            if (const auto it = m_work.find(name); it != m_work.end() && !it->second.note.isEmpty())
                item->setToolTip(2, it->second.note);
            if (name == current)
                m_holes->setCurrentItem(item);
        }
        if (!m_holes->currentItem() && m_holes->topLevelItemCount() > 0)
            m_holes->setCurrentItem(m_holes->topLevelItem(0));
    }
    markHoles();
    m_diff->setPlainText(diffText());
    showHoleTrace();
    updateButtons();
}

void InfillArea::markHoles() {
    const int lastLine = std::max(0, m_editor->lines() - 1);
    m_editor->clearIndicatorRange(0, 0, lastLine, m_editor->lineLength(lastLine), m_holeIndicator);
    for (const Hole& hole : findHoles(text().toStdString())) {
        int line = 0;
        int index = 0;
        m_editor->lineIndexFromPosition(static_cast<int>(hole.offset), &line, &index);
        int endLine = 0;
        int endIndex = 0;
        m_editor->lineIndexFromPosition(static_cast<int>(hole.offset + hole.length), &endLine,
                                        &endIndex);
        m_editor->fillIndicatorRange(line, index, endLine, endIndex, m_holeIndicator);
    }
}

QString InfillArea::selectedHole() const {
    const QTreeWidgetItem* item = m_holes->currentItem();
    return item ? item->data(0, Qt::UserRole).toString() : QString();
}

void InfillArea::showHoleTrace() {
    const QString name = selectedHole();
    const auto it = m_work.find(name);
    if (!m_holes->currentItem() || it == m_work.end()) {
        m_canvas->setTrace(nullptr);
        return;
    }
    m_canvas->setTrace(&it->second.trace);
    m_canvas->setFollow(true);
    m_canvas->traceChanged();
}

void InfillArea::updateButtons() {
    const bool loaded = m_state->modelLoaded();
    const bool busy = !m_filling.isEmpty() || !m_queue.empty();
    const bool haveHole = m_holes->currentItem() != nullptr;
    const HoleState state = holeState(selectedHole());
    m_fillOne->setEnabled(loaded && haveHole && !busy);
    m_fillAll->setEnabled(loaded && m_holes->topLevelItemCount() > 0 && !busy);
    m_stop->setEnabled(busy);
    m_accept->setEnabled(haveHole && state == HoleState::Proposed);
    m_reject->setEnabled(haveHole && state == HoleState::Proposed);
    m_undo->setEnabled(m_editor->isUndoAvailable());
    m_toProfile->setEnabled(!text().isEmpty());
    if (busy)
        return;
    if (!loaded)
        m_status->setText(tr("No model is loaded, so holes cannot be filled yet. Load one with "
                             "Model ▸ Manage models…"));
    else if (m_holes->topLevelItemCount() == 0)
        m_status->setText(tr("No holes. Select code and make a hole from it, or write "
                             "{{hole:NAME}} where the model should write."));
    else if (m_state->embeddedModelLoaded() &&
             infillDialect(text().toStdString()) == InfillDialect::KernelBench)
        m_status->setText(tr("The embedded model, DICE-nano, was trained to fill the kernel "
                             "bodies of native skeletons, not KernelBench code: load a DICE "
                             "checkpoint to fill this file."));
    else if (m_state->embeddedModelLoaded())
        m_status->setText(tr("The embedded model, DICE-nano, fills each hole using the rest of "
                             "the file as context; it was trained on holes that are whole kernel "
                             "bodies of the built-in tasks' solutions and of the task families "
                             "of its corpus."));
    else
        m_status->setText(tr("The model fills each hole using the rest of the file as context."));
}

QString InfillArea::statusText() const {
    return m_status->text();
}

bool InfillArea::makeHoleFromSelection(const QString& name, QString* error) {
    int lineFrom = 0;
    int indexFrom = 0;
    int lineTo = 0;
    int indexTo = 0;
    m_editor->getSelection(&lineFrom, &indexFrom, &lineTo, &indexTo);
    if (lineFrom < 0 || !m_editor->hasSelectedText()) {
        if (error)
            *error = tr("Select the code the hole should replace first.");
        return false;
    }
    const int begin = m_editor->positionFromLineIndex(lineFrom, indexFrom);
    const int end = m_editor->positionFromLineIndex(lineTo, indexTo);
    const HoleEdit edit = holeFromSelection(text().toStdString(), static_cast<std::size_t>(begin),
                                            static_cast<std::size_t>(end), name.toStdString());
    switch (edit.problem) {
    case HoleEdit::Problem::None:
        break;
    case HoleEdit::Problem::NameTaken:
        if (error)
            *error = tr("There is a hole named \"%1\" already.").arg(name);
        return false;
    case HoleEdit::Problem::Invalid:
        if (error)
            *error = QString::fromStdString(edit.message);
        return false;
    }
    m_editor->beginUndoAction();
    m_editor->SendScintilla(QsciScintilla::SCI_SETSEL, static_cast<unsigned long>(edit.offset),
                            static_cast<long>(edit.offset + edit.length));
    m_editor->replaceSelectedText(QString::fromStdString(edit.replacement));
    m_editor->endUndoAction();
    return true;
}

QString InfillArea::contextText(const QString& name) const {
    std::map<std::string, std::string> proposals;
    for (const auto& [hole, work] : m_work)
        if (work.state == HoleState::Proposed)
            proposals[hole.toStdString()] = work.proposal.toStdString();
    return QString::fromStdString(
        contextForHole(text().toStdString(), name.toStdString(), proposals));
}

QString InfillArea::promptFor(const QString& name, QString* error) const {
    const HolePrompt prompt =
        promptForHole(contextText(name).toStdString(), name.toStdString(), m_state->currentTask());
    switch (prompt.problem) {
    case HolePrompt::Problem::None:
        break;
    case HolePrompt::Problem::NoSuchHole:
        if (error)
            *error = tr("There is no hole named \"%1\".").arg(name);
        return QString();
    case HolePrompt::Problem::NoTask:
        if (error)
            *error = tr("A native skeleton is filled for a task: select one in the task browser.");
        return QString();
    case HolePrompt::Problem::Failed:
        if (error)
            *error = QString::fromStdString(prompt.message);
        return QString();
    }
    return QString::fromStdString(prompt.text);
}

QString InfillArea::answerToContent(const QString& name, const QString& answer,
                                    QString* note) const {
    const HoleContent content = contentFromAnswer(contextText(name).toStdString(),
                                                  name.toStdString(), answer.toStdString());
    if (note)
        *note = QString::fromStdString(content.note);
    return QString::fromStdString(content.content);
}

void InfillArea::fillHole(const QString& name) {
    if (!holeNames().contains(name) || !m_state->modelLoaded())
        return;
    m_queue.push_back(name);
    m_work[name].state = HoleState::Queued;
    if (m_filling.isEmpty())
        startNext();
    refreshHoles();
}

void InfillArea::fillAll() {
    for (const QString& name : holeNames()) {
        if (holeState(name) == HoleState::Queued || name == m_filling)
            continue;
        m_queue.push_back(name);
        m_work[name].state = HoleState::Queued;
    }
    if (m_filling.isEmpty())
        startNext();
    refreshHoles();
}

void InfillArea::startNext() {
    while (!m_queue.empty()) {
        const QString name = m_queue.front();
        m_queue.pop_front();
        QString error;
        const QString prompt = promptFor(name, &error);
        HoleWork& work = m_work[name];
        if (prompt.isEmpty()) {
            work.state = HoleState::Failed;
            work.note = error;
            continue;
        }
        work.state = HoleState::Filling;
        work.trace.clear();
        work.proposal.clear();
        work.note.clear();
        m_filling = name;
        GenerationRequest request;
        request.prompt = prompt;
        request.chat = true;
        request.options.maxTokens = kInfillAnswerTokens;
        request.options.blockLength = m_state->modelRunner()->summary().config.blockSize;
        request.options.steps = request.options.blockLength;
        request.options.strategy = RemaskStrategy::LowConfidenceDynamic;
        request.options.threshold = 0.9;
        request.options.temperature = 0;
        m_job = m_state->modelRunner()->generate(request);
        connect(m_job, &GenerationJob::step, this,
                [this](int, const DecodeStep& step) { onStep(step); });
        connect(m_job, &GenerationJob::finished, this, &InfillArea::onFinished);
        connect(m_job, &GenerationJob::failed, this, &InfillArea::onFailed);
        connect(m_job, &GenerationJob::done, this, &InfillArea::onDone);
        m_status->setText(tr("Filling %1…").arg(name.isEmpty() ? tr("(unnamed)") : name));
        selectFromName(name);
        return;
    }
    refreshHoles();
    Q_EMIT allFinished();
}

void InfillArea::selectFromName(const QString& name) {
    for (int i = 0; i < m_holes->topLevelItemCount(); ++i)
        if (m_holes->topLevelItem(i)->data(0, Qt::UserRole).toString() == name)
            m_holes->setCurrentItem(m_holes->topLevelItem(i));
}

void InfillArea::stop() {
    if (m_job)
        m_job->cancel();
    for (const QString& name : m_queue)
        m_work[name].state = HoleState::Empty;
    m_queue.clear();
}

void InfillArea::onStep(const DecodeStep& step) {
    if (m_filling.isEmpty())
        return;
    HoleWork& work = m_work[m_filling];
    work.trace.append(step);
    if (selectedHole() == m_filling)
        m_canvas->traceChanged();
}

void InfillArea::onFinished(const GenerationOutcome& outcome) {
    if (m_filling.isEmpty())
        return;
    HoleWork& work = m_work[m_filling];
    if (outcome.result.reason == FinishReason::Cancelled) {
        work.state = HoleState::Empty;
        return;
    }
    QString note;
    work.proposal = answerToContent(m_filling, outcome.text, &note);
    work.note = note;
    work.state = HoleState::Proposed;
}

void InfillArea::onFailed(const QString& message) {
    if (m_filling.isEmpty())
        return;
    m_work[m_filling].state = HoleState::Failed;
    m_work[m_filling].note = message;
}

void InfillArea::onDone() {
    const QString name = m_filling;
    m_filling.clear();
    m_job = nullptr;
    if (!name.isNull() && m_work[name].state == HoleState::Filling)
        m_work[name].state = HoleState::Empty;
    refreshHoles();
    startNext();
}

bool InfillArea::accept(const QString& name) {
    const auto it = m_work.find(name);
    if (it == m_work.end() || it->second.state != HoleState::Proposed)
        return false;
    const auto hole = findHole(text().toStdString(), name);
    if (!hole)
        return false;
    const QString content = it->second.proposal;
    m_canvas->setTrace(nullptr);
    m_work.erase(it);
    m_editor->beginUndoAction();
    m_editor->SendScintilla(QsciScintilla::SCI_SETSEL, static_cast<unsigned long>(hole->offset),
                            static_cast<long>(hole->offset + hole->length));
    m_editor->replaceSelectedText(content);
    m_editor->endUndoAction();
    // The caret goes to the start of what was filled in, so the view shows it from its start.
    m_editor->SendScintilla(QsciScintilla::SCI_GOTOPOS, static_cast<unsigned long>(hole->offset));
    m_editor->SendScintilla(QsciScintilla::SCI_SETXOFFSET, 0UL);
    return true;
}

int InfillArea::acceptAll() {
    int accepted = 0;
    for (const QString& name : holeNames())
        accepted += accept(name) ? 1 : 0;
    if (accepted > 0)
        m_tabs->setCurrentIndex(1);
    return accepted;
}

void InfillArea::reject(const QString& name) {
    const auto it = m_work.find(name);
    if (it == m_work.end() || it->second.state != HoleState::Proposed)
        return;
    it->second.state = HoleState::Empty;
    it->second.proposal.clear();
    it->second.trace.clear();
    refreshHoles();
}

} // namespace dice
