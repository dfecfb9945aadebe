// SPDX-License-Identifier: GPL-3.0-or-later
// dice-workbench: the desktop program.
#include "core/common/file_util.h"
#include "core/common/version.h"
#include "core/tasks/task.h"
#include "widgets/generate/generate_area.h"
#include "widgets/infill/infill_area.h"
#include "widgets/profile/profile_area.h"
#include "widgets/shell/language.h"
#include "widgets/shell/main_window.h"
#include "widgets/state/model_runner.h"
#include "widgets/state/workbench_state.h"
#include "widgets/tasks/task_browser.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QSettings>
#include <QSlider>
#include <QTabWidget>
#include <QTimer>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("dice-workbench"));
    QApplication::setApplicationName(QStringLiteral("dice-workbench"));
    QApplication::setApplicationDisplayName(QStringLiteral("DICE Workbench"));
    QApplication::setApplicationVersion(QString::fromLatin1(dice::kProductVersion));
    QApplication::setDesktopFileName(QStringLiteral("dice-workbench"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Generate, infill, test and time CUDA kernels with diffusion models"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption langOption(QStringLiteral("lang"),
                                        QStringLiteral("User interface language (en, ja)."),
                                        QStringLiteral("code"));
    const QCommandLineOption tasksOption(
        QStringLiteral("tasks"), QStringLiteral("Task folder to open."), QStringLiteral("dir"));
    const QCommandLineOption taskOption(
        QStringLiteral("task"), QStringLiteral("Task to select at start."), QStringLiteral("name"));
    const QCommandLineOption areaOption(
        QStringLiteral("area"),
        QStringLiteral("Work area to open: generate, infill, profile or finetune."),
        QStringLiteral("name"));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QStringLiteral("Save a picture of the window to this PNG file, then quit."),
        QStringLiteral("file"));
    const QCommandLineOption quitOption(
        QStringLiteral("quit-after"),
        QStringLiteral("Quit after this many milliseconds (for screenshots and checks)."),
        QStringLiteral("ms"));
    const QCommandLineOption modelOption(
        QStringLiteral("model"),
        QStringLiteral("Checkpoint folder to load at start (default: the embedded model, if any)."),
        QStringLiteral("dir"));
    const QCommandLineOption noModelOption(QStringLiteral("no-model"),
                                           QStringLiteral("Start without loading a model."));
    const QCommandLineOption generateOption(
        QStringLiteral("generate"),
        QStringLiteral("Generate for the selected task once the model is loaded (with "
                       "--screenshot, the picture is taken when it is done)."));
    const QCommandLineOption fillOption(
        QStringLiteral("fill"),
        QStringLiteral("Fill every hole of the Infill area once the model is loaded (with "
                       "--screenshot, the picture is taken when they are filled)."));
    const QCommandLineOption sourceOption(QStringLiteral("source"),
                                          QStringLiteral("File to open in the Profile area."),
                                          QStringLiteral("file"));
    const QCommandLineOption runOption(
        QStringLiteral("run"), QStringLiteral("Run of the run store to open in the Profile area."),
        QStringLiteral("id"));
    parser.addOptions({langOption, tasksOption, taskOption, areaOption, screenshotOption,
                       quitOption, modelOption, noModelOption, generateOption, fillOption,
                       sourceOption, runOption});
    parser.process(app);

    QSettings settings;
    dice::Language language;
    QString code = parser.value(langOption);
    if (code.isEmpty())
        code = settings.value(QStringLiteral("language")).toString();
    if (code.isEmpty())
        code = dice::Language::fromLocale(QLocale::system().name());
    if (!dice::Language::available().contains(code)) {
        qWarning("Unknown language '%s'; using English.", qPrintable(code));
        code = QStringLiteral("en");
    }
    language.apply(code);

    dice::WorkbenchState state;
    dice::MainWindow window(&state, &language);
    window.loadTasks(parser.isSet(tasksOption)
                         ? parser.value(tasksOption)
                         : QString::fromStdString(dice::builtinTaskDirectory()));
    const QString task = parser.isSet(taskOption)
                             ? parser.value(taskOption)
                             : settings.value(QStringLiteral("task/current")).toString();
    if (!task.isEmpty())
        window.taskBrowser()->selectTask(task);
    if (parser.isSet(areaOption)) {
        const QStringList areas = {QStringLiteral("generate"), QStringLiteral("infill"),
                                   QStringLiteral("profile"), QStringLiteral("finetune")};
        const int index = static_cast<int>(areas.indexOf(parser.value(areaOption)));
        if (index >= 0)
            window.areas()->setCurrentIndex(index);
    }
    if (parser.isSet(sourceOption)) {
        QFile file(parser.value(sourceOption));
        if (!file.open(QIODevice::ReadOnly)) {
            qWarning("Cannot read %s", qPrintable(parser.value(sourceOption)));
            return 1;
        }
        window.profileArea()->setSource(QString::fromUtf8(file.readAll()));
    }
    if (parser.isSet(runOption) &&
        !window.profileArea()->openRunById(parser.value(runOption).toLongLong())) {
        qWarning("There is no run %s in the run store", qPrintable(parser.value(runOption)));
        return 1;
    }
    window.show();
    QString model = parser.value(modelOption);
    const QString embedded = QDir(QString::fromStdString(dice::dataDirectory()))
                                 .filePath(QStringLiteral("models/dice-nano"));
    if (model.isEmpty() && !parser.isSet(noModelOption) &&
        QFileInfo::exists(embedded + QStringLiteral("/config.json")))
        model = embedded;
    if (!model.isEmpty())
        window.loadModel(model);
    const bool generate = parser.isSet(generateOption) && !model.isEmpty();
    const bool fill = parser.isSet(fillOption) && !model.isEmpty();
    if (fill)
        QObject::connect(state.modelRunner(), &dice::ModelRunner::loaded, &window, [&window] {
            window.areas()->setCurrentIndex(dice::MainWindow::InfillIndex);
            window.infillArea()->fillAll();
        });
    if (generate)
        QObject::connect(state.modelRunner(), &dice::ModelRunner::loaded, &window, [&window] {
            window.areas()->setCurrentIndex(dice::MainWindow::GenerateIndex);
            window.generateArea()->startGeneration();
        });
    if (generate || fill) {
        QObject::connect(state.modelRunner(), &dice::ModelRunner::loadFailed, &app,
                         [](const QString& message) {
                             qWarning("%s", qPrintable(message));
                             QApplication::exit(1);
                         });
    }
    const QString shot = parser.value(screenshotOption);
    auto grabAndQuit = [&window, shot] {
        // A moment for the last frame to be painted.
        QTimer::singleShot(300, &window, [&window, shot] {
            if (!window.grab().save(shot, "PNG"))
                qWarning("Could not write %s", qPrintable(shot));
            QApplication::quit();
        });
    };
    if (generate && !shot.isEmpty()) {
        QObject::connect(window.generateArea(), &dice::GenerateArea::generationDone, &window,
                         [&window, grabAndQuit] {
                             // Mid-way through the generation: the timeline at half the steps.
                             QSlider* timeline = window.generateArea()->timeline();
                             timeline->setValue(timeline->maximum() / 2);
                             grabAndQuit();
                         });
    } else if (fill && !shot.isEmpty()) {
        QObject::connect(window.infillArea(), &dice::InfillArea::allFinished, &window,
                         [&window, grabAndQuit] {
                             window.infillArea()->acceptAll();
                             grabAndQuit();
                         });
    } else if (parser.isSet(screenshotOption)) {
        // Give the background checks (machine facts, first compile) time to arrive first.
        const QString file = parser.value(screenshotOption);
        const int delay = parser.isSet(quitOption) ? parser.value(quitOption).toInt() : 3000;
        QTimer::singleShot(delay, &window, [&window, file] {
            if (!window.grab().save(file, "PNG"))
                qWarning("Could not write %s", qPrintable(file));
            QApplication::quit();
        });
    } else if (parser.isSet(quitOption)) {
        QTimer::singleShot(parser.value(quitOption).toInt(), &app, &QApplication::quit);
    }
    return app.exec();
}
