// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/infill/infill_area.h"

#include "widgets/editor/code_editor.h"
#include "widgets/shell/workbench_state.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace dice {

InfillArea::InfillArea(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state) {
    m_editor = new CodeEditor(this);
    m_editor->setLanguage(CodeEditor::Language::Python);
    m_fill = new QPushButton(this);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_fill);
    bar->addWidget(m_status, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_editor, 1);
    connect(m_state, &WorkbenchState::currentTaskChanged, this, &InfillArea::loadTaskSkeleton);
    connect(m_state, &WorkbenchState::modelChanged, this, &InfillArea::retranslate);
    retranslate();
    loadTaskSkeleton();
}

void InfillArea::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void InfillArea::retranslate() {
    m_fill->setText(tr("Fill all holes"));
    m_fill->setEnabled(m_state->modelLoaded());
    m_status->setText(m_state->modelLoaded()
                          ? tr("The model fills each hole using the rest of the file as context.")
                          : tr("No model is loaded, so holes cannot be filled yet. The editor "
                               "shows the current task's PyTorch module."));
}

void InfillArea::loadTaskSkeleton() {
    const Task* task = m_state->currentTask();
    m_editor->setText(task ? QString::fromStdString(task->pytorchModule) : QString());
}

} // namespace dice
