// SPDX-License-Identifier: GPL-3.0-or-later
// dice-workbench: the desktop program.
#include "core/common/version.h"
#include "core/tasks/task.h"
#include "widgets/shell/language.h"
#include "widgets/shell/main_window.h"
#include "widgets/shell/workbench_state.h"
#include "widgets/tasks/task_browser.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QLocale>
#include <QSettings>
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
    parser.addOptions(
        {langOption, tasksOption, taskOption, areaOption, screenshotOption, quitOption});
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
    window.show();
    if (parser.isSet(screenshotOption)) {
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
