// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>
#include <QStringList>

class QComboBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace dice {

class ModelRunner;

// Which model the workbench runs: the embedded model and the checkpoint folders the user added
// (kept across runs), each described from its config.json and files before anything is loaded;
// where and in which precision to load it; loading with progress and cancel; unloading.
class ModelManager : public QDialog {
    Q_OBJECT
public:
    explicit ModelManager(ModelRunner* runner, QWidget* parent = nullptr);

    // Folders found under <data>/models and the ones added before.
    QStringList knownFolders() const;
    // Adds a folder to the list (and to the settings); returns false with a reason when it is not
    // a model folder.
    bool addFolder(const QString& folder, QString* error = nullptr);
    void selectFolder(const QString& folder);
    // A description of the selected folder's model (empty with none selected).
    QString description() const;
    void loadSelected();

    static QString describeFolder(const QString& folder);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void refreshList();
    void updateDetails();
    void updateButtons();

    ModelRunner* m_runner;
    QStringList m_added;
    QListWidget* m_list;
    QLabel* m_details;
    QLabel* m_deviceLabel;
    QComboBox* m_device;
    QLabel* m_dtypeLabel;
    QComboBox* m_dtype;
    QLabel* m_threadsLabel;
    QSpinBox* m_threads;
    QProgressBar* m_progress;
    QLabel* m_state;
    QPushButton* m_add;
    QPushButton* m_remove;
    QPushButton* m_load;
    QPushButton* m_cancel;
    QPushButton* m_unload;
    QPushButton* m_close;
};

} // namespace dice
