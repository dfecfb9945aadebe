// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/generate/generate_area.h"

#include "widgets/shell/workbench_state.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace dice {

GenerateArea::GenerateArea(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state) {
    m_sourceBox = new QGroupBox(this);
    m_fromTask = new QRadioButton(m_sourceBox);
    m_freePrompt = new QRadioButton(m_sourceBox);
    m_fromTask->setChecked(true);
    m_prompt = new QPlainTextEdit(m_sourceBox);
    m_prompt->setReadOnly(true);
    auto* sourceLayout = new QVBoxLayout(m_sourceBox);
    auto* radios = new QHBoxLayout;
    radios->addWidget(m_fromTask);
    radios->addWidget(m_freePrompt);
    radios->addStretch(1);
    sourceLayout->addLayout(radios);
    sourceLayout->addWidget(m_prompt, 1);

    m_decodingBox = new QGroupBox(this);
    m_form = new QFormLayout(m_decodingBox);
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
    m_temperature = new QDoubleSpinBox(m_decodingBox);
    m_temperature->setRange(0.0, 5.0);
    m_temperature->setSingleStep(0.1);
    m_temperature->setValue(1.0);
    m_topK = new QSpinBox(m_decodingBox);
    m_topK->setRange(0, 1000);
    m_topK->setValue(0);
    m_topP = new QDoubleSpinBox(m_decodingBox);
    m_topP->setRange(0.01, 1.0);
    m_topP->setSingleStep(0.05);
    m_topP->setValue(1.0);
    m_maxTokens = new QSpinBox(m_decodingBox);
    m_maxTokens->setRange(4, 32768);
    m_maxTokens->setValue(512);
    m_seed = new QSpinBox(m_decodingBox);
    m_seed->setRange(0, 1 << 30);
    m_seed->setValue(0);
    const QList<QWidget*> fields = {m_blockLength, m_steps, m_strategy,  m_threshold, m_temperature,
                                    m_topK,        m_topP,  m_maxTokens, m_seed};
    for (QWidget* field : fields) {
        auto* label = new QLabel(m_decodingBox);
        m_labels.append(label);
        m_form->addRow(label, field);
    }

    m_generate = new QPushButton(this);
    m_stop = new QPushButton(this);
    m_stop->setEnabled(false);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_generate);
    buttons->addWidget(m_stop);
    buttons->addWidget(m_status, 1);

    auto* right = new QVBoxLayout;
    right->addWidget(m_decodingBox);
    right->addStretch(1);
    auto* top = new QHBoxLayout;
    top->addWidget(m_sourceBox, 3);
    top->addLayout(right, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top, 1);
    layout->addLayout(buttons);

    connect(m_fromTask, &QRadioButton::toggled, this, &GenerateArea::updatePrompt);
    connect(m_state, &WorkbenchState::currentTaskChanged, this, &GenerateArea::updatePrompt);
    connect(m_state, &WorkbenchState::modelChanged, this, &GenerateArea::updateAvailability);
    connect(m_strategy, &QComboBox::currentIndexChanged, this,
            [this] { m_threshold->setEnabled(m_strategy->currentIndex() == 1); });
    retranslate();
    updatePrompt();
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
    m_decodingBox->setTitle(tr("Decoding"));
    const QStringList labels = {tr("Block length"),
                                tr("Denoising steps per block"),
                                tr("Remasking strategy"),
                                tr("Confidence threshold"),
                                tr("Temperature"),
                                tr("Top-k (0: off)"),
                                tr("Top-p"),
                                tr("Maximum new tokens"),
                                tr("Seed")};
    for (int i = 0; i < labels.size() && i < m_labels.size(); ++i)
        m_labels[i]->setText(labels[i]);
    const int strategy = m_strategy->currentIndex();
    m_strategy->clear();
    m_strategy->addItems({tr("Low confidence, static"), tr("Low confidence, dynamic"),
                          tr("Sequential"), tr("Entropy bounded")});
    m_strategy->setCurrentIndex(strategy < 0 ? 0 : strategy);
    m_generate->setText(tr("Generate"));
    m_stop->setText(tr("Stop"));
    updatePrompt();
    updateAvailability();
}

void GenerateArea::updatePrompt() {
    const bool fromTask = m_fromTask->isChecked();
    m_prompt->setReadOnly(fromTask);
    if (!fromTask) {
        if (m_prompt->placeholderText().isEmpty() || m_prompt->toPlainText().isEmpty())
            m_prompt->setPlaceholderText(tr("Describe the kernel to write…"));
        return;
    }
    const Task* task = m_state->currentTask();
    if (!task) {
        m_prompt->setPlainText(QString());
        m_prompt->setPlaceholderText(tr("Select a task in the task browser."));
        return;
    }
    m_prompt->setPlainText(QString::fromStdString(
        task->pytorchModule.empty() ? task->reference : task->pytorchModule));
}

void GenerateArea::updateAvailability() {
    const bool loaded = m_state->modelLoaded();
    m_generate->setEnabled(loaded);
    m_status->setText(loaded ? tr("Model: %1").arg(m_state->modelName())
                             : tr("No model is loaded, so nothing can be generated yet."));
}

QString GenerateArea::promptText() const {
    return m_prompt->toPlainText();
}

bool GenerateArea::generateEnabled() const {
    return m_generate->isEnabled();
}

} // namespace dice
