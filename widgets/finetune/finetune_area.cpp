// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/finetune/finetune_area.h"

#include "widgets/state/workbench_state.h"

#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace dice {

namespace {

QSpinBox* spin(QWidget* parent, int low, int high, int value) {
    auto* box = new QSpinBox(parent);
    box->setRange(low, high);
    box->setValue(value);
    return box;
}

QDoubleSpinBox* real(QWidget* parent, double low, double high, double value, int decimals) {
    auto* box = new QDoubleSpinBox(parent);
    box->setDecimals(decimals);
    box->setRange(low, high);
    box->setValue(value);
    box->setSingleStep(value / 10);
    return box;
}

} // namespace

FinetuneArea::FinetuneArea(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state) {
    // Defaults are the paper's BiC-RL settings (20 infilling steps, 100 end-to-end steps, 64 tasks
    // by 16 rollouts, dynamic decoding at 0.9, AdamW 1e-6, clip 0.2, KL 0.01).
    m_phases = new QGroupBox(this);
    m_rollouts = new QGroupBox(this);
    m_optimiser = new QGroupBox(this);
    m_infillSteps = spin(m_phases, 0, 10000, 20);
    m_endToEndSteps = spin(m_phases, 0, 10000, 100);
    m_tasksPerStep = spin(m_rollouts, 1, 4096, 64);
    m_responses = spin(m_rollouts, 1, 256, 16);
    m_threshold = real(m_rollouts, 0, 1, 0.9, 2);
    m_learningRate = real(m_optimiser, 1e-9, 1e-2, 1e-6, 8);
    m_clip = real(m_optimiser, 0, 1, 0.2, 2);
    m_kl = real(m_optimiser, 0, 1, 0.01, 3);

    auto addRows = [this](QGroupBox* box, const QList<QWidget*>& fields) {
        auto* form = new QFormLayout(box);
        for (QWidget* field : fields) {
            auto* label = new QLabel(box);
            m_labels.append(label);
            form->addRow(label, field);
        }
    };
    addRows(m_phases, {m_infillSteps, m_endToEndSteps});
    addRows(m_rollouts, {m_tasksPerStep, m_responses, m_threshold});
    addRows(m_optimiser, {m_learningRate, m_clip, m_kl});

    m_schedule = new QLabel(this);
    m_schedule->setWordWrap(true);
    m_start = new QPushButton(this);
    m_start->setEnabled(false);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);

    auto* columns = new QHBoxLayout;
    columns->addWidget(m_phases);
    columns->addWidget(m_rollouts);
    columns->addWidget(m_optimiser);
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_start);
    bar->addWidget(m_status, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(columns);
    layout->addWidget(m_schedule);
    layout->addStretch(1);
    layout->addLayout(bar);
    connect(m_state, &WorkbenchState::modelChanged, this, &FinetuneArea::retranslate);
    retranslate();
}

void FinetuneArea::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void FinetuneArea::retranslate() {
    m_phases->setTitle(tr("Phases"));
    m_rollouts->setTitle(tr("Rollouts"));
    m_optimiser->setTitle(tr("Policy update"));
    const QStringList labels = {tr("Kernel-infilling steps"),
                                tr("End-to-end steps"),
                                tr("Tasks per step"),
                                tr("Responses per task"),
                                tr("Dynamic threshold"),
                                tr("Learning rate"),
                                tr("PPO clip"),
                                tr("KL weight")};
    for (int i = 0; i < labels.size() && i < m_labels.size(); ++i)
        m_labels[i]->setText(labels[i]);
    m_schedule->setText(tr("Data schedule: single operators (level 1), then fusions (level 2), "
                           "then model blocks (level 3), within each phase."));
    m_start->setText(tr("Start fine-tuning"));
    m_status->setText(m_state->modelLoaded()
                          ? tr("Reinforcement-learning fine-tuning is not part of this version; "
                               "its settings are shown for planning.")
                          : tr("No model is loaded. Reinforcement-learning fine-tuning is not "
                               "part of this version."));
}

} // namespace dice
