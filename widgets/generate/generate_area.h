// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace dice {

class WorkbenchState;

// Generate: a task or a free prompt, the model and every decoding setting of the sampler.
class GenerateArea : public QWidget {
    Q_OBJECT
public:
    explicit GenerateArea(WorkbenchState* state, QWidget* parent = nullptr);

    QString promptText() const;
    bool generateEnabled() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void updatePrompt();
    void updateAvailability();

    WorkbenchState* m_state;
    QGroupBox* m_sourceBox;
    QRadioButton* m_fromTask;
    QRadioButton* m_freePrompt;
    QPlainTextEdit* m_prompt;
    QGroupBox* m_decodingBox;
    QFormLayout* m_form;
    QList<QLabel*> m_labels;
    QSpinBox* m_blockLength;
    QSpinBox* m_steps;
    QComboBox* m_strategy;
    QDoubleSpinBox* m_threshold;
    QDoubleSpinBox* m_temperature;
    QSpinBox* m_topK;
    QDoubleSpinBox* m_topP;
    QSpinBox* m_maxTokens;
    QSpinBox* m_seed;
    QPushButton* m_generate;
    QPushButton* m_stop;
    QLabel* m_status;
};

} // namespace dice
