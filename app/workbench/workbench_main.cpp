// SPDX-License-Identifier: GPL-3.0-or-later
// dice-workbench: the desktop program.
#include "app/workbench/workbench_script.h"
#include "core/common/file_util.h"
#include "core/common/version.h"
#include "widgets/shell/language.h"
#include "widgets/shell/main_window.h"
#include "widgets/state/workbench_state.h"
#include "widgets/tasks/task_browser.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QSettings>

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
    const QCommandLineOption modelOption(
        QStringLiteral("model"),
        QStringLiteral("Checkpoint folder to load at start (default: the embedded model, if any)."),
        QStringLiteral("dir"));
    const QCommandLineOption noModelOption(QStringLiteral("no-model"),
                                           QStringLiteral("Start without loading a model."));
    parser.addOptions({langOption, tasksOption, taskOption, modelOption, noModelOption});
    const dice::WorkbenchScript script(parser);
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
    if (!script.open(window))
        return 1;
    window.show();
    QString model = parser.value(modelOption);
    const QString embedded = QDir(QString::fromStdString(dice::dataDirectory()))
                                 .filePath(QStringLiteral("models/dice-nano"));
    if (model.isEmpty() && !parser.isSet(noModelOption) &&
        QFileInfo::exists(embedded + QStringLiteral("/config.json")))
        model = embedded;
    if (!model.isEmpty())
        window.loadModel(model);
    script.start(window, state, !model.isEmpty());
    return app.exec();
}
