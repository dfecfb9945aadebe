// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMainWindow>

class QAction;
class QActionGroup;
class QDockWidget;
class QMenu;
class QTabWidget;

namespace dice {

class FinetuneArea;
class GenerateArea;
class InfillArea;
class Language;
class ProfileArea;
class SystemStatus;
class TaskBrowser;
class WorkbenchState;

// The main window: the task browser on the left, the four work areas (Generate, Infill, Profile,
// Fine-tune) in the middle, the machine's facts in the status bar. Geometry, the open area, the
// current task and the language are kept across runs.
class ModelManager;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    MainWindow(WorkbenchState* state, Language* language, QWidget* parent = nullptr);
    ~MainWindow() override;

    // In the order of their tabs; the number of the open one is kept in the settings.
    enum class Area { Generate, Infill, Profile, Finetune };

    QTabWidget* areas() const { return m_areas; }
    TaskBrowser* taskBrowser() const { return m_browser; }
    GenerateArea* generateArea() const { return m_generate; }
    InfillArea* infillArea() const { return m_infill; }
    ProfileArea* profileArea() const { return m_profile; }
    FinetuneArea* finetuneArea() const { return m_finetune; }
    SystemStatus* systemStatus() const { return m_status; }
    void showArea(Area area);

    // Loads the task suite from a folder into the state; reports problems in the status bar.
    void loadTasks(const QString& directory);
    // Loads a checkpoint folder on the model's thread (and adds it to the model manager's list).
    void loadModel(const QString& folder);
    ModelManager* modelManager();

    // The Profile editor's file: opened into the editor (Profile shown), saved to its file or,
    // with chooseFile or without one, to a file the user picks. False when nothing was done.
    bool openKernelFile(const QString& path);
    bool saveKernel(bool chooseFile);
    // The current task's hand-written solution in the Profile editor.
    bool openTaskSolution();
    // Before the window closes or the editor's text is replaced: Save, Discard or Cancel when the
    // Profile editor holds edits not saved. True when it may go on.
    bool settleUnsavedEdits();
    // A candidate from Generate, Infill or a rollout into the Profile editor (Profile shown),
    // once unsaved edits there are settled. False when the user kept them.
    bool sendToProfile(const QString& code);

protected:
    void closeEvent(QCloseEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void createMenus();
    void retranslate();
    void restoreSettings();
    void saveSettings();
    void openTaskFolder();
    void showAbout();
    void showModels();

    WorkbenchState* m_state;
    Language* m_language;
    QTabWidget* m_areas;
    GenerateArea* m_generate;
    InfillArea* m_infill;
    ProfileArea* m_profile;
    FinetuneArea* m_finetune;
    TaskBrowser* m_browser;
    QDockWidget* m_browserDock;
    SystemStatus* m_status;
    ModelManager* m_models = nullptr;

    QMenu* m_fileMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QMenu* m_modelMenu = nullptr;
    QMenu* m_languageMenu = nullptr;
    QMenu* m_helpMenu = nullptr;
    QAction* m_openTasks = nullptr;
    QAction* m_openKernel = nullptr;
    QAction* m_saveKernel = nullptr;
    QAction* m_saveKernelAs = nullptr;
    QAction* m_openSolution = nullptr;
    QAction* m_quit = nullptr;
    QAction* m_manageModels = nullptr;
    QAction* m_unloadModel = nullptr;
    QAction* m_about = nullptr;
    QAction* m_aboutQt = nullptr;
    QActionGroup* m_languageGroup = nullptr;
    QString m_taskProblems;
};

} // namespace dice
