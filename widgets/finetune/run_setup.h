// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QString>
#include <QWidget>

#include <functional>
#include <memory>

class QComboBox;
class QGridLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace dice {

class WorkbenchState;

// The set-up of a BiC-RL run (docs/rl.md): model, phases and their data, schedule, rollouts'
// decoding, reward, policy update, evaluation and checkpoints, devices. It starts from a preset
// (the paper's recipe, or the CPU demo) and edits that configuration, so fields the form does
// not show keep the preset's values; the configuration file and the command that runs it are
// shown as they will be used. The trainer's own parser checks every change.
class RunSetup : public QWidget {
    Q_OBJECT
public:
    explicit RunSetup(WorkbenchState* state, QWidget* parent = nullptr);
    ~RunSetup() override;

    // "paper" or "cpu-demo" (docs/rl.md).
    void applyPreset(const QString& name);
    // Fills the form from a configuration (a JSON object); false with the reason when the
    // trainer would not accept it.
    bool setConfiguration(const QString& json, QString* error);
    // The configuration as the trainer will read it (resolved: every field written out).
    QString configuration() const;
    // Empty when the trainer accepts the configuration; otherwise its message.
    QString problem() const;
    QString outputFolder() const;
    void setOutputFolder(const QString& folder);
    void setModel(const QString& model);
    void setCommandLine(const QString& command);

Q_SIGNALS:
    void changed();

protected:
    void changeEvent(QEvent* event) override;

private:
    struct Field;
    void addField(QGroupBox* box, const char* label, QWidget* editor, std::function<void()> load,
                  std::function<void()> store);
    void loadFields();
    void edited();
    void retranslate();
    void saveConfiguration();
    void loadConfigurationFile();

    WorkbenchState* m_state;
    std::unique_ptr<struct RunSetupConfig> m_config;
    QString m_problem;
    bool m_loading = false;
    QList<std::shared_ptr<Field>> m_fields;
    QComboBox* m_preset;
    QLabel* m_presetLabel;
    QList<QGroupBox*> m_boxes;
    QLineEdit* m_model;
    QLineEdit* m_output;
    QPushButton* m_browseModel;
    QPushButton* m_loadedModel;
    QPushButton* m_browseOutput;
    QLabel* m_commandLabel;
    QLineEdit* m_command;
    QPushButton* m_copy;
    QPushButton* m_save;
    QPushButton* m_open;
    QPlainTextEdit* m_preview;
    QLabel* m_problemLabel;
};

} // namespace dice
