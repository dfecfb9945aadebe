// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/generate/generate_area.h"

#include "core/bench/paper_bench.h"
#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/prompts/answer.h"
#include "core/prompts/decoding_presets.h"
#include "core/prompts/kernelbench_prompts.h"
#include "core/prompts/native_prompts.h"
#include "widgets/generate/decode_plots.h"
#include "widgets/generate/denoising_canvas.h"
#include "widgets/state/model_runner.h"
#include "widgets/state/workbench_state.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

namespace dice {

namespace {

enum PromptStyleIndex { NativePrompt, KernelBenchPrompt };
enum PresetIndex { CustomPreset, EvaluationPreset, RolloutPreset };

RemaskStrategy strategyAt(int index) {
    switch (index) {
    case 0:
        return RemaskStrategy::LowConfidenceStatic;
    case 2:
        return RemaskStrategy::Sequential;
    case 3:
        return RemaskStrategy::EntropyBounded;
    default:
        return RemaskStrategy::LowConfidenceDynamic;
    }
}

int strategyIndex(RemaskStrategy strategy) {
    switch (strategy) {
    case RemaskStrategy::LowConfidenceStatic:
        return 0;
    case RemaskStrategy::LowConfidenceDynamic:
        return 1;
    case RemaskStrategy::Sequential:
        return 2;
    case RemaskStrategy::EntropyBounded:
        return 3;
    }
    return 1;
}

bool writeFile(const QString& path, const QByteArray& bytes, QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        file.write(bytes) != bytes.size()) {
        if (error)
            *error = QObject::tr("%1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace

GenerateArea::GenerateArea(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state) {
    m_sourceBox = new QGroupBox(this);
    m_fromTask = new QRadioButton(m_sourceBox);
    m_freePrompt = new QRadioButton(m_sourceBox);
    m_fromTask->setChecked(true);
    m_promptStyle = new QComboBox(m_sourceBox);
    m_chat = new QCheckBox(m_sourceBox);
    m_chat->setChecked(true);
    m_prompt = new QPlainTextEdit(m_sourceBox);
    m_prompt->setReadOnly(true);
    m_prompt->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    auto* sourceLayout = new QVBoxLayout(m_sourceBox);
    auto* radios = new QHBoxLayout;
    radios->addWidget(m_fromTask);
    radios->addWidget(m_promptStyle);
    radios->addWidget(m_freePrompt);
    radios->addWidget(m_chat);
    radios->addStretch(1);
    sourceLayout->addLayout(radios);
    sourceLayout->addWidget(m_prompt, 1);
    m_scopeNote = new QLabel(m_sourceBox);
    m_scopeNote->setObjectName(QStringLiteral("ScopeNote"));
    m_scopeNote->setWordWrap(true);
    m_scopeNote->setVisible(false);
    sourceLayout->addWidget(m_scopeNote);

    m_decodingBox = new QGroupBox(this);
    m_form = new QFormLayout(m_decodingBox);
    m_preset = new QComboBox(m_decodingBox);
    m_blockLength = new QSpinBox(m_decodingBox);
    m_blockLength->setRange(1, 64);
    m_blockLength->setValue(4);
    m_steps = new QSpinBox(m_decodingBox);
    m_steps->setRange(1, 64);
    m_steps->setValue(4);
    m_strategy = new QComboBox(m_decodingBox);
    m_threshold = new QDoubleSpinBox(m_decodingBox);
    m_threshold->setRange(0.0, 1.0);
    m_threshold->setSingleStep(0.05);
    m_threshold->setValue(0.9);
    m_ebThreshold = new QDoubleSpinBox(m_decodingBox);
    m_ebThreshold->setRange(0.0, 20.0);
    m_ebThreshold->setSingleStep(0.05);
    m_ebThreshold->setValue(0.35);
    m_temperature = new QDoubleSpinBox(m_decodingBox);
    m_temperature->setRange(0.0, 5.0);
    m_temperature->setSingleStep(0.1);
    // Greedy by default, so that what a user first sees is the model's most likely answer.
    m_temperature->setValue(0.0);
    m_topK = new QSpinBox(m_decodingBox);
    m_topK->setRange(0, 1000);
    m_topK->setValue(0);
    m_topP = new QDoubleSpinBox(m_decodingBox);
    m_topP->setRange(0.01, 1.0);
    m_topP->setSingleStep(0.05);
    m_topP->setValue(1.0);
    m_maxTokens = new QSpinBox(m_decodingBox);
    m_maxTokens->setRange(4, 32768);
    // The paper's answer budget: the built-in tasks' solutions run to about 3,900 tokens of the
    // embedded model's vocabulary, and an answer ends at the model's end token before that.
    m_maxTokens->setValue(4096);
    m_seed = new QSpinBox(m_decodingBox);
    m_seed->setRange(0, 1 << 30);
    m_seed->setValue(0);
    // Off, as in the Infill area and dice generate: under greedy decoding the filtered
    // distribution gives every cell confidence 1, so a block is committed in one pass. The raw
    // softmax lets the threshold hold cells back, but the embedded model's answers were no better
    // for it (docs/dice-nano.md), and the model card's figures are of this default.
    m_rawConfidence = new QCheckBox(m_decodingBox);
    m_rawConfidence->setChecked(false);
    m_compareAr = new QCheckBox(m_decodingBox);
    const QList<QWidget*> fields = {m_preset,    m_blockLength, m_steps,       m_strategy,
                                    m_threshold, m_ebThreshold, m_temperature, m_topK,
                                    m_topP,      m_maxTokens,   m_seed};
    for (QWidget* field : fields) {
        auto* label = new QLabel(m_decodingBox);
        m_labels.append(label);
        m_form->addRow(label, field);
    }
    m_form->addRow(m_rawConfidence);
    m_form->addRow(m_compareAr);

    m_generate = new QPushButton(this);
    m_generate->setObjectName(QStringLiteral("GenerateButton"));
    m_stop = new QPushButton(this);
    m_stop->setEnabled(false);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_colorLabel = new QLabel(this);
    m_colorMode = new QComboBox(this);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_generate);
    buttons->addWidget(m_stop);
    buttons->addWidget(m_status, 1);
    buttons->addWidget(m_colorLabel);
    buttons->addWidget(m_colorMode);
    m_colorKey = new ColorKey(this);
    buttons->addWidget(m_colorKey);

    m_canvas = new DenoisingCanvas(this);
    m_canvas->setTrace(&m_trace);
    ModelRunner* runner = m_state->modelRunner();
    m_canvas->setTokenText([runner](qint64 id) { return runner->tokenText(id); });
    m_canvasScroll = new QScrollArea(this);
    m_canvasScroll->setWidget(m_canvas);
    m_canvasScroll->setWidgetResizable(true);
    m_plots = new DecodePlots(this);
    m_plots->setTraces(&m_trace, nullptr);

    m_play = new QPushButton(this);
    m_timeline = new QSlider(Qt::Horizontal, this);
    m_timeline->setObjectName(QStringLiteral("Timeline"));
    m_timeline->setRange(0, 0);
    m_stepLabel = new QLabel(this);
    m_stepLabel->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("0000 / 0000")));
    auto* timelineRow = new QHBoxLayout;
    timelineRow->addWidget(m_play);
    timelineRow->addWidget(m_timeline, 1);
    timelineRow->addWidget(m_stepLabel);

    m_figures = new QLabel(this);
    m_figures->setObjectName(QStringLiteral("Figures"));
    m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_figures->setWordWrap(true);
    m_exportTrace = new QPushButton(this);
    m_exportCode = new QPushButton(this);
    m_importTrace = new QPushButton(this);
    m_toProfile = new QPushButton(this);
    m_toProfile->setObjectName(QStringLiteral("SendToProfile"));
    m_toInfill = new QPushButton(this);
    auto* exportRow = new QHBoxLayout;
    exportRow->addWidget(m_figures, 1);
    exportRow->addWidget(m_importTrace);
    exportRow->addWidget(m_exportTrace);
    exportRow->addWidget(m_exportCode);
    exportRow->addWidget(m_toProfile);
    exportRow->addWidget(m_toInfill);

    auto* settingsScroll = new QScrollArea(this);
    settingsScroll->setWidget(m_decodingBox);
    settingsScroll->setWidgetResizable(true);
    settingsScroll->setFrameShape(QFrame::NoFrame);
    auto* top = new QSplitter(Qt::Horizontal, this);
    top->addWidget(m_sourceBox);
    top->addWidget(settingsScroll);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 1);
    auto* bottom = new QSplitter(Qt::Horizontal, this);
    bottom->addWidget(m_canvasScroll);
    bottom->addWidget(m_plots);
    bottom->setStretchFactor(0, 3);
    bottom->setStretchFactor(1, 2);
    auto* vertical = new QSplitter(Qt::Vertical, this);
    vertical->addWidget(top);
    vertical->addWidget(bottom);
    vertical->setStretchFactor(0, 1);
    vertical->setStretchFactor(1, 3);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(vertical, 1);
    layout->addLayout(timelineRow);
    layout->addLayout(exportRow);

    m_playTimer = new QTimer(this);
    m_playTimer->setInterval(80);
    m_viewTimer = new QTimer(this);
    // The view catches up with the trace at most 30 times a second, however fast steps arrive.
    m_viewTimer->setInterval(33);

    connect(m_fromTask, &QRadioButton::toggled, this, &GenerateArea::updatePrompt);
    connect(m_promptStyle, &QComboBox::currentIndexChanged, this, &GenerateArea::updatePrompt);
    connect(m_state, &WorkbenchState::currentTaskChanged, this, [this] {
        // An answer belongs to the task it was asked for: it must not go on to Profile, where it
        // would be judged against another task.
        if (m_fromTask->isChecked())
            clearAnswer();
        updatePrompt();
    });
    // "The prompt is empty." answers one click; once there is a prompt it no longer holds.
    connect(m_prompt, &QPlainTextEdit::textChanged, this, [this] {
        if (!running() && m_status->text() == tr("The prompt is empty.") &&
            !m_prompt->toPlainText().trimmed().isEmpty())
            updateAvailability();
    });
    connect(m_state, &WorkbenchState::modelChanged, this, &GenerateArea::updateAvailability);
    connect(m_state, &WorkbenchState::modelChanged, this, &GenerateArea::updateScopeNote);
    connect(m_strategy, &QComboBox::currentIndexChanged, this, [this] {
        m_threshold->setEnabled(m_strategy->currentIndex() == 1);
        m_ebThreshold->setEnabled(m_strategy->currentIndex() == 3);
    });
    connect(m_preset, &QComboBox::activated, this, &GenerateArea::applyPreset);
    const QList<QWidget*> custom = {m_blockLength, m_steps, m_strategy, m_threshold, m_ebThreshold,
                                    m_temperature, m_topK,  m_topP,     m_maxTokens};
    for (QWidget* w : custom) {
        if (auto* spin = qobject_cast<QSpinBox*>(w))
            connect(spin, &QSpinBox::valueChanged, this, [this] {
                if (m_preset->currentIndex() != CustomPreset && !m_preset->signalsBlocked())
                    m_preset->setCurrentIndex(CustomPreset);
            });
        else if (auto* dspin = qobject_cast<QDoubleSpinBox*>(w))
            connect(dspin, &QDoubleSpinBox::valueChanged, this, [this] {
                if (m_preset->currentIndex() != CustomPreset && !m_preset->signalsBlocked())
                    m_preset->setCurrentIndex(CustomPreset);
            });
    }
    connect(m_generate, &QPushButton::clicked, this, &GenerateArea::startGeneration);
    connect(m_stop, &QPushButton::clicked, this, &GenerateArea::stopGeneration);
    connect(m_colorMode, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_canvas->setColorMode(index == 1 ? DenoisingCanvas::ColorMode::ByConfidence
                                          : DenoisingCanvas::ColorMode::ByStep);
        m_colorKey->setMode(m_canvas->colorMode());
    });
    connect(m_timeline, &QSlider::valueChanged, this, &GenerateArea::setTimelineStep);
    connect(m_timeline, &QSlider::sliderPressed, this, [this] { m_canvas->setFollow(false); });
    connect(m_play, &QPushButton::clicked, this, &GenerateArea::togglePlay);
    connect(m_playTimer, &QTimer::timeout, this, [this] {
        if (m_timeline->value() >= m_timeline->maximum()) {
            togglePlay();
            return;
        }
        m_timeline->setValue(m_timeline->value() + 1);
    });
    connect(m_viewTimer, &QTimer::timeout, this, [this] {
        if (m_viewDirty)
            refreshView();
    });
    connect(m_exportTrace, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export the step trace"), QStringLiteral("trace.jsonl"),
            tr("JSON lines (*.jsonl);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !exportTrace(path, &error))
            m_status->setText(error);
    });
    connect(m_exportCode, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the code"), QString(),
                                                          tr("All files (*)"));
        QString error;
        if (!path.isEmpty() && !exportCode(path, &error))
            m_status->setText(error);
    });
    connect(m_importTrace, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open a step trace"), QString(), tr("JSON lines (*.jsonl);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !importTrace(path, &error))
            m_status->setText(error);
    });
    connect(m_toProfile, &QPushButton::clicked, this,
            [this] { Q_EMIT sendToProfile(codeToSend()); });
    connect(m_toInfill, &QPushButton::clicked, this, [this] { Q_EMIT sendToInfill(codeToSend()); });

    retranslate();
    updatePrompt();
    updateFigures();
    // Wide enough for the labels and fields once they have their (translated) text.
    settingsScroll->setMinimumWidth(m_decodingBox->sizeHint().width() +
                                    settingsScroll->verticalScrollBar()->sizeHint().width() + 8);
}

void GenerateArea::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void GenerateArea::retranslate() {
    m_sourceBox->setTitle(tr("What to generate"));
    m_fromTask->setText(tr("Current task"));
    m_freePrompt->setText(tr("Free prompt"));
    m_chat->setText(tr("Chat template"));
    m_chat->setToolTip(tr("Wrap the prompt in the Qwen3 chat template, as DICE models expect."));
    const int style = m_promptStyle->currentIndex();
    m_promptStyle->clear();
    m_promptStyle->addItems({tr("Native kernel (.dice)"), tr("KernelBench (Python)")});
    m_promptStyle->setCurrentIndex(style < 0 ? 0 : style);
    m_decodingBox->setTitle(tr("Decoding"));
    const QStringList labels = {tr("Preset"),
                                tr("Block length"),
                                tr("Denoising steps per block"),
                                tr("Remasking strategy"),
                                tr("Confidence threshold"),
                                tr("Entropy bound"),
                                tr("Temperature"),
                                tr("Top-k (0: off)"),
                                tr("Top-p"),
                                tr("Maximum new tokens"),
                                tr("Seed")};
    for (int i = 0; i < labels.size() && i < m_labels.size(); ++i)
        m_labels[i]->setText(labels[i]);
    const int preset = m_preset->currentIndex();
    m_preset->clear();
    m_preset->addItems(
        {tr("Custom"), tr("KernelBench evaluation (paper)"), tr("RL rollout (paper)")});
    m_preset->setCurrentIndex(preset < 0 ? 0 : preset);
    const int strategy = m_strategy->currentIndex();
    m_strategy->clear();
    m_strategy->addItems({tr("Low confidence, static"), tr("Low confidence, dynamic"),
                          tr("Sequential"), tr("Entropy bounded")});
    m_strategy->setCurrentIndex(strategy < 0 ? 1 : strategy);
    m_rawConfidence->setText(tr("Confidence from the raw softmax"));
    m_compareAr->setText(tr("Also decode autoregressively, side by side"));
    m_generate->setText(tr("Generate"));
    m_stop->setText(tr("Stop"));
    m_colorLabel->setText(tr("Colour by"));
    const int color = m_colorMode->currentIndex();
    m_colorMode->clear();
    m_colorMode->addItems({tr("Step"), tr("Confidence")});
    m_colorMode->setCurrentIndex(color < 0 ? 0 : color);
    m_play->setText(m_playTimer->isActive() ? tr("Pause") : tr("Replay"));
    m_exportTrace->setText(tr("Export trace…"));
    m_importTrace->setText(tr("Open trace…"));
    m_exportCode->setText(tr("Export code…"));
    m_toProfile->setText(tr("Send to Profile"));
    m_toInfill->setText(tr("Send to Infill"));
    updatePrompt();
    updateAvailability();
    updateFigures();
}

void GenerateArea::applyPreset(int index) {
    if (index == CustomPreset)
        return;
    const SamplerOptions preset =
        (index == EvaluationPreset ? evaluationPreset() : rolloutPreset()).sampler;
    const QSignalBlocker blocker(m_preset);
    m_blockLength->setValue(static_cast<int>(preset.blockLength));
    m_steps->setValue(static_cast<int>(preset.steps));
    m_strategy->setCurrentIndex(strategyIndex(preset.strategy));
    m_threshold->setValue(preset.threshold);
    m_temperature->setValue(preset.temperature);
    m_topK->setValue(static_cast<int>(preset.topK));
    m_topP->setValue(preset.topP);
    m_maxTokens->setValue(static_cast<int>(preset.maxTokens));
    m_rawConfidence->setChecked(preset.rawConfidence);
    m_preset->setCurrentIndex(index);
}

SamplerOptions GenerateArea::samplerOptions() const {
    SamplerOptions o;
    o.blockLength = m_blockLength->value();
    o.steps = m_steps->value();
    o.strategy = strategyAt(m_strategy->currentIndex());
    o.threshold = m_threshold->value();
    o.ebThreshold = m_ebThreshold->value();
    o.temperature = m_temperature->value();
    o.topK = m_topK->value();
    o.topP = m_topP->value();
    o.rawConfidence = m_rawConfidence->isChecked();
    o.maxTokens = m_maxTokens->value();
    o.seed = static_cast<std::uint64_t>(m_seed->value());
    return o;
}

void GenerateArea::updateScopeNote() {
    QString note;
    if (m_state->embeddedModelLoaded()) {
        if (!m_fromTask->isChecked())
            note = tr("The embedded model, DICE-nano, was trained only on the workbench's task "
                      "prompts (the built-in tasks, and families of elementwise maps, row "
                      "reductions and normalisations, softmax, pooling and small matrix "
                      "products): a free request gives text it never learnt to write. Pick a "
                      "task, or load a DICE checkpoint.");
        else if (m_promptStyle->currentIndex() == KernelBenchPrompt)
            note = tr("The embedded model, DICE-nano, was not trained on KernelBench prompts: use "
                      "the native prompt, or load a DICE checkpoint.");
    }
    m_scopeNote->setText(note);
    m_scopeNote->setVisible(!note.isEmpty());
}

QString GenerateArea::scopeNote() const {
    return m_scopeNote->text();
}

void GenerateArea::updatePrompt() {
    updateScopeNote();
    const bool fromTask = m_fromTask->isChecked();
    m_prompt->setReadOnly(fromTask);
    m_promptStyle->setEnabled(fromTask);
    m_chat->setEnabled(!fromTask);
    if (!fromTask) {
        m_prompt->setPlaceholderText(tr("Describe the kernel to write…"));
        return;
    }
    m_chat->setChecked(true);
    const Task* task = m_state->currentTask();
    if (!task) {
        m_prompt->setPlainText(QString());
        m_prompt->setPlaceholderText(tr("Select a task in the task browser."));
        return;
    }
    if (m_promptStyle->currentIndex() == KernelBenchPrompt) {
        if (task->pytorchModule.empty()) {
            m_prompt->setPlainText(QString());
            m_prompt->setPlaceholderText(tr("This task has no KernelBench module."));
            return;
        }
        try {
            m_prompt->setPlainText(QString::fromStdString(kernelbench::endToEndMessage(
                task->pytorchModule, kernelbench::loadPromptExamples())));
        } catch (const std::exception& e) {
            m_prompt->setPlainText(QString());
            m_prompt->setPlaceholderText(QString::fromStdString(e.what()));
        }
        return;
    }
    m_prompt->setPlainText(QString::fromStdString(nativeGenerationPrompt(*task)));
}

void GenerateArea::setFreePrompt(const QString& text) {
    m_freePrompt->setChecked(true);
    m_prompt->setPlainText(text);
}

void GenerateArea::setCompareAutoregressive(bool on) {
    m_compareAr->setChecked(on);
}

void GenerateArea::setMaxTokens(int tokens) {
    m_maxTokens->setValue(tokens);
}

void GenerateArea::clearAnswer() {
    if (running()) {
        // Nothing the cancelled generation still reports belongs here any more.
        disconnect(m_job, nullptr, this, nullptr);
        m_job->cancel();
        m_job = nullptr;
        m_viewTimer->stop();
    }
    forgetResult();
    m_plots->setTraces(&m_trace, nullptr);
    refreshView();
    m_outcome.clear();
    updateAvailability();
}

void GenerateArea::forgetResult() {
    if (m_playTimer->isActive())
        togglePlay();
    m_trace.clear();
    m_arTrace.clear();
    m_answer.clear();
    m_arAnswer.clear();
    m_tokensPerSecond = 0;
    m_arTokensPerSecond = 0;
    m_canvas->setTrace(&m_trace);
}

void GenerateArea::updateAvailability() {
    const bool loaded = m_state->modelLoaded();
    const bool busy = running();
    m_generate->setEnabled(loaded && !busy);
    m_stop->setEnabled(busy);
    const bool haveResult = m_trace.stepCount() > 0;
    m_exportTrace->setEnabled(haveResult && !busy);
    m_exportCode->setEnabled(!m_answer.isEmpty() && !busy);
    m_toProfile->setEnabled(!m_answer.isEmpty() && !busy);
    m_toInfill->setEnabled(!m_answer.isEmpty() && !busy);
    m_play->setEnabled(haveResult && !busy);
    if (busy)
        return;
    // What the last generation came to stays until the next one, or until the model changes.
    const QString model = loaded ? tr("Model: %1").arg(m_state->modelName())
                                 : tr("No model is loaded, so nothing can be generated yet. Load "
                                      "one with Model ▸ Manage models…");
    m_status->setText(m_outcome.isEmpty() || !loaded ? model
                                                     : m_outcome + QLatin1Char(' ') + model);
}

bool GenerateArea::generateEnabled() const {
    return m_generate->isEnabled();
}

QString GenerateArea::statusText() const {
    return m_status->text();
}

void GenerateArea::startGeneration() {
    ModelRunner* runner = m_state->modelRunner();
    if (!runner->isLoaded() || running())
        return;
    const QString prompt = m_prompt->toPlainText();
    if (prompt.trimmed().isEmpty()) {
        m_status->setText(tr("The prompt is empty."));
        return;
    }
    forgetResult();
    m_canvas->setFollow(true);
    m_plots->setTraces(&m_trace, m_compareAr->isChecked() ? &m_arTrace : nullptr);
    GenerationRequest request;
    request.prompt = prompt;
    request.chat = m_chat->isChecked();
    request.options = samplerOptions();
    request.alsoAutoregressive = m_compareAr->isChecked();
    request.fitBudget = true;
    m_job = runner->generate(request);
    connect(m_job, &GenerationJob::step, this, &GenerateArea::onStep);
    connect(m_job, &GenerationJob::finished, this, &GenerateArea::onFinished);
    connect(m_job, &GenerationJob::failed, this, &GenerateArea::onFailed);
    connect(m_job, &GenerationJob::done, this, &GenerateArea::onDone);
    m_outcome.clear();
    m_status->setText(tr("Generating…"));
    m_viewTimer->start();
    updateAvailability();
    refreshView();
}

void GenerateArea::stopGeneration() {
    if (!running())
        return;
    m_job->cancel();
    // A generation stopped before it began reports nothing more; one that began says how far it
    // got when it ends.
    m_outcome = tr("Stopped.");
    m_status->setText(tr("Stopping…"));
}

void GenerateArea::onStep(int pass, const DecodeStep& step) {
    (pass == 0 ? m_trace : m_arTrace).append(step);
    m_viewDirty = true;
}

void GenerateArea::onFinished(const GenerationOutcome& outcome) {
    const double seconds = outcome.result.milliseconds / 1000.0;
    const double rate =
        seconds > 0 ? static_cast<double>(outcome.result.tokens.size()) / seconds : 0.0;
    if (outcome.pass == 0) {
        m_answer = outcome.text;
        m_tokensPerSecond = rate;
        m_outcome = outcome.result.reason == FinishReason::Cancelled
                        ? tr("Stopped after %n token(s).", nullptr,
                             static_cast<int>(outcome.result.tokens.size()))
                        : tr("Done.");
        m_status->setText(outcome.result.reason != FinishReason::Cancelled &&
                                  m_compareAr->isChecked()
                              ? tr("Decoding autoregressively…")
                              : m_outcome);
    } else {
        m_arAnswer = outcome.text;
        m_arTokensPerSecond = rate;
        m_outcome = outcome.result.reason == FinishReason::Cancelled
                        ? tr("Stopped during the autoregressive comparison.")
                        : tr("Done.");
        m_status->setText(m_outcome);
    }
    m_viewDirty = true;
}

void GenerateArea::onFailed(const QString& message) {
    m_outcome = tr("Generation failed: %1").arg(message);
    m_status->setText(m_outcome);
}

void GenerateArea::onDone() {
    m_job = nullptr;
    m_viewTimer->stop();
    refreshView();
    updateAvailability();
    Q_EMIT generationDone();
}

void GenerateArea::refreshView() {
    m_viewDirty = false;
    const int steps = m_trace.stepCount();
    const bool follow = m_canvas->follow();
    {
        const QSignalBlocker blocker(m_timeline);
        m_timeline->setRange(0, steps);
        if (follow)
            m_timeline->setValue(steps);
    }
    m_canvas->traceChanged();
    m_plots->refresh();
    m_plots->setCursorStep(m_canvas->step());
    m_stepLabel->setText(QStringLiteral("%1 / %2").arg(m_canvas->step()).arg(steps));
    m_colorKey->setSteps(steps);
    updateFigures();
}

void GenerateArea::setTimelineStep(int step) {
    m_canvas->setFollow(step >= m_timeline->maximum());
    m_canvas->setStep(step);
    m_plots->setCursorStep(step);
    m_stepLabel->setText(QStringLiteral("%1 / %2").arg(step).arg(m_trace.stepCount()));
}

void GenerateArea::togglePlay() {
    if (m_playTimer->isActive()) {
        m_playTimer->stop();
    } else {
        if (m_timeline->value() >= m_timeline->maximum())
            m_timeline->setValue(0);
        m_playTimer->start();
    }
    m_play->setText(m_playTimer->isActive() ? tr("Pause") : tr("Replay"));
}

QString GenerateArea::figuresText() const {
    if (m_trace.stepCount() == 0)
        return tr("No generation yet.");
    const qint64 tokens = m_trace.length();
    // Denoising passes: the pass that writes a finished block's keys and values to the cache can
    // be the next block's first pass (as a left-to-right decoder writes a token's cache in the
    // pass that predicts the next one), so it is not counted, for either decoding.
    const qint64 passes = m_trace.stepCount();
    const double first = m_trace.timeToFirstBlockMs();
    // While the answer is written, the rate so far: tokens committed over the time they took.
    double rate = m_tokensPerSecond;
    if (rate <= 0 && m_trace.elapsedMs() > 0) {
        const auto figures = m_trace.figures();
        if (!figures.empty())
            rate = static_cast<double>(figures.back().tokensSoFar) / (m_trace.elapsedMs() / 1000.0);
    }
    QString text =
        tr("%1 tokens in %2 steps, %3 tokens/s, %4 denoising passes per token, first "
           "block complete after %5 ms")
            .arg(tokens)
            .arg(m_trace.stepCount())
            .arg(rate, 0, 'f', 1)
            .arg(tokens > 0 ? static_cast<double>(passes) / static_cast<double>(tokens) : 0.0, 0,
                 'f', 2)
            .arg(first >= 0 ? QString::number(first, 'f', 0) : QStringLiteral("–"));
    if (m_arTrace.stepCount() > 0) {
        const qint64 arTokens = m_arTrace.length();
        const qint64 arPasses = m_arTrace.stepCount();
        text +=
            QLatin1Char('\n') +
            tr("Autoregressive: %1 tokens, %2 tokens/s, %3 denoising passes per token")
                .arg(arTokens)
                .arg(m_arTokensPerSecond, 0, 'f', 1)
                .arg(arTokens > 0 ? static_cast<double>(arPasses) / static_cast<double>(arTokens)
                                  : 0.0,
                     0, 'f', 2);
    }
    return text;
}

void GenerateArea::updateFigures() {
    m_figures->setText(figuresText());
}

QString GenerateArea::codeToSend() const {
    const auto extracted = kernelbench::extractFirstCodeBlock(m_answer.toStdString());
    if (extracted.found)
        return QString::fromStdString(extracted.code);
    return QString::fromStdString(kernelbench::stripModelTokens(m_answer.toStdString()));
}

bool GenerateArea::exportTrace(const QString& path, QString* error) const {
    return writeFile(path, QByteArray::fromStdString(m_trace.toJsonLines()), error);
}

bool GenerateArea::exportCode(const QString& path, QString* error) const {
    return writeFile(path, codeToSend().toUtf8(), error);
}

bool GenerateArea::importTrace(const QString& path, QString* error) {
    if (running())
        return false;
    try {
        m_trace = DecodeTrace::fromJsonLines(
            readTextFile(QFile::encodeName(path).toStdString(), limits::kDecodeTrace));
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    m_arTrace.clear();
    m_answer.clear();
    m_tokensPerSecond = m_trace.elapsedMs() > 0
                            ? static_cast<double>(m_trace.length()) / (m_trace.elapsedMs() / 1000.0)
                            : 0.0;
    m_canvas->setTrace(&m_trace);
    m_canvas->setFollow(true);
    m_plots->setTraces(&m_trace, nullptr);
    refreshView();
    updateAvailability();
    return true;
}

} // namespace dice
