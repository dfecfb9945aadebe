// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/shell/main_window.h"

#include "core/tasks/task.h"
#include "widgets/editor/code_editor.h"
#include "widgets/finetune/finetune_area.h"
#include "widgets/generate/generate_area.h"
#include "widgets/infill/infill_area.h"
#include "widgets/model/model_manager.h"
#include "widgets/profile/profile_area.h"
#include "widgets/shell/about_dialog.h"
#include "widgets/shell/language.h"
#include "widgets/shell/system_status.h"
#include "widgets/state/model_runner.h"
#include "widgets/state/workbench_state.h"
#include "widgets/tasks/task_browser.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QIcon>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

namespace dice {

MainWindow::MainWindow(WorkbenchState* state, Language* language, QWidget* parent)
    : QMainWindow(parent)
    , m_state(state)
    , m_language(language) {
    setObjectName(QStringLiteral("MainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/dice-workbench.svg")));
    m_areas = new QTabWidget(this);
    m_areas->setObjectName(QStringLiteral("WorkAreas"));
    m_areas->setDocumentMode(true);
    m_generate = new GenerateArea(state, m_areas);
    m_infill = new InfillArea(state, m_areas);
    m_profile = new ProfileArea(state, m_areas);
    m_finetune = new FinetuneArea(state, m_areas);
    m_areas->addTab(m_generate, QString());
    m_areas->addTab(m_infill, QString());
    m_areas->addTab(m_profile, QString());
    m_areas->addTab(m_finetune, QString());
    setCentralWidget(m_areas);

    m_browser = new TaskBrowser(state, this);
    m_browserDock = new QDockWidget(this);
    m_browserDock->setObjectName(QStringLiteral("TaskBrowserDock"));
    m_browserDock->setWidget(m_browser);
    m_browserDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable |
                               QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, m_browserDock);

    m_status = new SystemStatus(state, this);
    // At its natural width, so that the rest of the bar is left to messages (a stretching
    // permanent widget covers the place where showMessage() writes).
    statusBar()->addPermanentWidget(m_status);

    connect(m_generate, &GenerateArea::sendToProfile, this, &MainWindow::sendToProfile);
    connect(m_generate, &GenerateArea::sendToInfill, this, [this](const QString& code) {
        m_infill->setSkeleton(code);
        showArea(Area::Infill);
    });
    connect(m_infill, &InfillArea::sendToProfile, this, &MainWindow::sendToProfile);
    connect(m_finetune, &FinetuneArea::sendToProfile, this,
            [this](const QString& task, const QString& code) {
                if (!sendToProfile(code))
                    return;
                // The rollout's task, so that Profile judges the code against what it was for.
                if (m_state->suite().find(task.toStdString()))
                    m_state->setCurrentTask(task);
                else
                    statusBar()->showMessage(
                        tr("%1 is not a task of this suite; the current task is kept.").arg(task));
            });
    connect(m_finetune, &FinetuneArea::sendToInfill, this, [this](const QString& code) {
        m_infill->setSkeleton(code);
        showArea(Area::Infill);
    });
    connect(m_finetune, &FinetuneArea::openModel, this, &MainWindow::loadModel);
    connect(state->modelRunner(), &ModelRunner::loadFailed, this, [this](const QString& message) {
        statusBar()->showMessage(tr("The model could not be loaded: %1").arg(message));
    });

    createMenus();
    retranslate();
    restoreSettings();
    m_status->refresh();
}

MainWindow::~MainWindow() = default;

void MainWindow::showArea(Area area) {
    m_areas->setCurrentIndex(static_cast<int>(area));
}

void MainWindow::createMenus() {
    m_fileMenu = menuBar()->addMenu(QString());
    m_openKernel = m_fileMenu->addAction(QString(), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open kernel"), QString(),
            tr("Kernels and candidates (*.cu *.cuh *.dice);;All files (*)"));
        if (!path.isEmpty())
            openKernelFile(path);
    });
    m_openKernel->setShortcut(QKeySequence::Open);
    m_saveKernel = m_fileMenu->addAction(QString(), this, [this] { saveKernel(false); });
    m_saveKernel->setShortcut(QKeySequence::Save);
    m_saveKernelAs = m_fileMenu->addAction(QString(), this, [this] { saveKernel(true); });
    m_saveKernelAs->setShortcut(QKeySequence::SaveAs);
    m_openSolution = m_fileMenu->addAction(QString(), this, &MainWindow::openTaskSolution);
    m_fileMenu->addSeparator();
    m_openTasks = m_fileMenu->addAction(QString(), this, &MainWindow::openTaskFolder);
    m_fileMenu->addSeparator();
    m_quit = m_fileMenu->addAction(QString(), this, &QWidget::close);
    m_quit->setShortcut(QKeySequence::Quit);

    m_modelMenu = menuBar()->addMenu(QString());
    m_manageModels = m_modelMenu->addAction(QString(), this, &MainWindow::showModels);
    m_unloadModel = m_modelMenu->addAction(QString(), m_state->modelRunner(), &ModelRunner::unload);

    m_viewMenu = menuBar()->addMenu(QString());
    m_viewMenu->addAction(m_browserDock->toggleViewAction());

    m_languageMenu = menuBar()->addMenu(QString());
    m_languageGroup = new QActionGroup(this);
    for (const QString& code : Language::available()) {
        QAction* action = m_languageMenu->addAction(Language::displayName(code));
        action->setCheckable(true);
        action->setData(code);
        action->setChecked(code == m_language->current());
        m_languageGroup->addAction(action);
    }
    connect(m_languageGroup, &QActionGroup::triggered, this, [this](QAction* action) {
        const QString code = action->data().toString();
        if (!m_language->apply(code))
            QMessageBox::warning(
                this, tr("Language"),
                tr("The translation for %1 could not be loaded.").arg(Language::displayName(code)));
        QSettings().setValue(QStringLiteral("language"), m_language->current());
    });
    connect(m_language, &Language::changed, this, [this](const QString& code) {
        for (QAction* action : m_languageGroup->actions())
            action->setChecked(action->data().toString() == code);
    });

    m_helpMenu = menuBar()->addMenu(QString());
    m_about = m_helpMenu->addAction(QString(), this, &MainWindow::showAbout);
    m_aboutQt = m_helpMenu->addAction(QString(), qApp, &QApplication::aboutQt);
}

void MainWindow::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QMainWindow::changeEvent(event);
}

void MainWindow::retranslate() {
    setWindowTitle(tr("DICE Workbench"));
    const auto tab = [this](Area area, const QString& text, const QString& toolTip) {
        m_areas->setTabText(static_cast<int>(area), text);
        m_areas->setTabToolTip(static_cast<int>(area), toolTip);
    };
    tab(Area::Generate, tr("Generate"), tr("Watch the model sculpt a kernel out of masked tokens"));
    tab(Area::Infill, tr("Infill"), tr("Let the model fill the holes of a kernel skeleton"));
    tab(Area::Profile, tr("Profile"), tr("Compile, check and time a kernel"));
    tab(Area::Finetune, tr("Fine-tune"), tr("Fine-tune the model with reinforcement learning"));
    m_browserDock->setWindowTitle(tr("Tasks"));
    m_fileMenu->setTitle(tr("&File"));
    m_openTasks->setText(tr("Open &task folder…"));
    m_openKernel->setText(tr("&Open kernel…"));
    m_openKernel->setToolTip(tr("Open a CUDA kernel or a candidate (.dice) in the Profile editor"));
    m_saveKernel->setText(tr("&Save kernel"));
    m_saveKernelAs->setText(tr("Save kernel &as…"));
    m_openSolution->setText(tr("Open the task's &solution"));
    m_quit->setText(tr("&Quit"));
    m_modelMenu->setTitle(tr("&Model"));
    m_manageModels->setText(tr("&Manage models…"));
    m_unloadModel->setText(tr("&Unload the model"));
    m_viewMenu->setTitle(tr("&View"));
    m_languageMenu->setTitle(tr("&Language"));
    m_helpMenu->setTitle(tr("&Help"));
    m_about->setText(tr("&About DICE Workbench"));
    m_aboutQt->setText(tr("About &Qt"));
    if (!m_taskProblems.isEmpty())
        statusBar()->showMessage(m_taskProblems);
}

void MainWindow::loadTasks(const QString& directory) {
    TaskSuite suite = loadTaskSuite(directory.toStdString());
    m_taskProblems.clear();
    if (!suite.problems.empty()) {
        m_taskProblems = tr("%n task file(s) could not be read; the first: %1", nullptr,
                            static_cast<int>(suite.problems.size()))
                             .arg(QString::fromStdString(suite.problems.front().message));
        statusBar()->showMessage(m_taskProblems);
    }
    m_state->setSuite(std::move(suite));
}

bool MainWindow::openKernelFile(const QString& path) {
    if (!settleUnsavedEdits())
        return false;
    QString error;
    if (!m_profile->openFile(path, &error)) {
        QMessageBox::warning(this, tr("Open kernel"), error);
        return false;
    }
    showArea(Area::Profile);
    statusBar()->showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(path)), 5000);
    return true;
}

bool MainWindow::saveKernel(bool chooseFile) {
    QString path = m_profile->filePath();
    if (chooseFile || path.isEmpty()) {
        const bool candidate =
            m_profile->editor()->text().contains(QLatin1String("#pragma dice device"));
        path = QFileDialog::getSaveFileName(
            this, tr("Save kernel"),
            path.isEmpty()
                ? (candidate ? QStringLiteral("candidate.dice") : QStringLiteral("kernel.cu"))
                : path,
            tr("Kernels and candidates (*.cu *.cuh *.dice);;All files (*)"));
        if (path.isEmpty())
            return false;
    }
    QString error;
    if (!m_profile->saveFile(path, &error)) {
        QMessageBox::warning(this, tr("Save kernel"), error);
        return false;
    }
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 5000);
    return true;
}

bool MainWindow::openTaskSolution() {
    const Task* task = m_state->currentTask();
    const std::string path = task ? taskSolutionPath(*task) : std::string();
    if (path.empty()) {
        statusBar()->showMessage(
            task
                ? tr("Task %1 has no hand-written solution").arg(QString::fromStdString(task->name))
                : tr("No task is selected"),
            5000);
        return false;
    }
    return openKernelFile(QString::fromStdString(path));
}

bool MainWindow::settleUnsavedEdits() {
    if (!m_profile->hasUnsavedEdits())
        return true;
    const QString name = m_profile->filePath().isEmpty()
                             ? tr("The kernel in the Profile editor")
                             : QFileInfo(m_profile->filePath()).fileName();
    const auto answer = QMessageBox::question(
        this, tr("Unsaved edits"), tr("%1 has edits that are not saved.").arg(name),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save)
        return saveKernel(false);
    return answer == QMessageBox::Discard;
}

bool MainWindow::sendToProfile(const QString& code) {
    if (!settleUnsavedEdits()) {
        statusBar()->showMessage(
            tr("The Profile editor's edits were kept; the candidate was not sent."), 5000);
        return false;
    }
    m_state->setCandidate(code);
    showArea(Area::Profile);
    return true;
}

void MainWindow::openTaskFolder() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open task folder"));
    if (!dir.isEmpty())
        loadTasks(dir);
}

void MainWindow::showAbout() {
    AboutDialog dialog(m_state, this);
    dialog.exec();
}

ModelManager* MainWindow::modelManager() {
    if (!m_models)
        m_models = new ModelManager(m_state->modelRunner(), this);
    return m_models;
}

void MainWindow::showModels() {
    modelManager()->show();
    m_models->raise();
    m_models->activateWindow();
}

void MainWindow::loadModel(const QString& folder) {
    QString error;
    if (!modelManager()->addFolder(folder, &error)) {
        statusBar()->showMessage(tr("The model could not be loaded: %1").arg(error));
        return;
    }
    m_models->loadSelected();
}

void MainWindow::restoreSettings() {
    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        // A laptop's 1366×768 screen, less its panels, holds the first window whole.
        resize(QSize(1280, 720).boundedTo(screen()->availableGeometry().size()));
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    const int area = settings.value(QStringLiteral("window/area")).toInt();
    if (area >= static_cast<int>(Area::Generate) && area <= static_cast<int>(Area::Finetune))
        showArea(static_cast<Area>(area));
}

void MainWindow::saveSettings() {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/area"), m_areas->currentIndex());
    if (const Task* task = m_state->currentTask())
        settings.setValue(QStringLiteral("task/current"), QString::fromStdString(task->name));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!settleUnsavedEdits()) {
        event->ignore();
        return;
    }
    saveSettings();
    event->accept();
}

} // namespace dice
