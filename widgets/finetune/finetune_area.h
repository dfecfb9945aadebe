// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QDoubleSpinBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace dice {

class WorkbenchState;

// Fine-tune: the two BiC-RL phases (kernel infilling, then end-to-end generation) with their data
// schedule from single operators to model blocks.
class FinetuneArea : public QWidget {
    Q_OBJECT
public:
    explicit FinetuneArea(WorkbenchState* state, QWidget* parent = nullptr);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();

    WorkbenchState* m_state;
    QGroupBox* m_phases;
    QGroupBox* m_rollouts;
    QGroupBox* m_optimiser;
    QList<QLabel*> m_labels;
    QSpinBox* m_infillSteps;
    QSpinBox* m_endToEndSteps;
    QSpinBox* m_tasksPerStep;
    QSpinBox* m_responses;
    QDoubleSpinBox* m_threshold;
    QDoubleSpinBox* m_learningRate;
    QDoubleSpinBox* m_clip;
    QDoubleSpinBox* m_kl;
    QLabel* m_schedule;
    QPushButton* m_start;
    QLabel* m_status;
};

} // namespace dice
