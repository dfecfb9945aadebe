// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/workbench/workbench_script.h"

#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/cuda/ncu_report.h"
#include "core/eval/candidate.h"
#include "widgets/finetune/finetune_area.h"
#include "widgets/finetune/rollout_browser.h"
#include "widgets/finetune/rollout_model.h"
#include "widgets/generate/generate_area.h"
#include "widgets/infill/infill_area.h"
#include "widgets/profile/counters_view.h"
#include "widgets/profile/profile_area.h"
#include "widgets/shell/main_window.h"
#include "widgets/state/model_runner.h"
#include "widgets/state/workbench_state.h"

#include <nlohmann/json.hpp>

#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>

namespace dice {

namespace {

void saveAndQuit(MainWindow& window, const QString& file) {
    if (!window.grab().save(file, "PNG"))
        qWarning("Could not write %s", qPrintable(file));
    QApplication::quit();
}

} // namespace

WorkbenchScript::WorkbenchScript(QCommandLineParser& parser)
    : m_parser(parser)
    , m_area(QStringLiteral("area"),
             QStringLiteral("Work area to open: generate, infill, profile or finetune."),
             QStringLiteral("name"))
    , m_screenshot(QStringLiteral("screenshot"),
                   QStringLiteral("Save a picture of the window to this PNG file, then quit."),
                   QStringLiteral("file"))
    , m_quitAfter(QStringLiteral("quit-after"),
                  QStringLiteral("Quit after this many milliseconds (for screenshots and checks)."),
                  QStringLiteral("ms"))
    , m_generate(QStringLiteral("generate"),
                 QStringLiteral("Generate for the selected task once the model is loaded (with "
                                "--screenshot, the picture is taken when it is done)."))
    , m_fill(QStringLiteral("fill"),
             QStringLiteral("Fill every hole of the Infill area once the model is loaded (with "
                            "--screenshot, the picture is taken when they are filled)."))
    , m_source(QStringLiteral("source"), QStringLiteral("File to open in the Profile area."),
               QStringLiteral("file"))
    , m_run(QStringLiteral("run"),
            QStringLiteral("Run of the run store to open in the Profile area."),
            QStringLiteral("id"))
    , m_rlRun(QStringLiteral("rl-run"), QStringLiteral("RL run folder to follow in Fine-tune."),
              QStringLiteral("folder"))
    , m_rlCompare(QStringLiteral("rl-compare"),
                  QStringLiteral("RL run folder whose curves are drawn over --rl-run's."),
                  QStringLiteral("folder"))
    , m_rlPage(QStringLiteral("rl-page"),
               QStringLiteral("Fine-tune page to show: setup, curves, rollouts, checkpoints or "
                              "log."),
               QStringLiteral("name"))
    , m_rlStep(QStringLiteral("rl-step"),
               QStringLiteral("Step whose rollouts Fine-tune shows, the best of its first group "
                              "opened and replayed to its middle."),
               QStringLiteral("step"))
    , m_counters(QStringLiteral("counters"),
                 QStringLiteral("Counters to show in Profile's Counters tab: the output of dice "
                                "eval --profile --json, or a dice bench counters result file "
                                "(the entry of --task)."),
                 QStringLiteral("file")) {
    parser.addOptions({m_area, m_screenshot, m_quitAfter, m_generate, m_fill, m_source, m_run,
                       m_rlRun, m_rlCompare, m_rlPage, m_rlStep, m_counters});
}

bool WorkbenchScript::open(MainWindow& window) const {
    if (m_parser.isSet(m_area)) {
        const QStringList areas = {QStringLiteral("generate"), QStringLiteral("infill"),
                                   QStringLiteral("profile"), QStringLiteral("finetune")};
        const auto index = areas.indexOf(m_parser.value(m_area));
        if (index >= 0)
            window.showArea(static_cast<MainWindow::Area>(index));
    }
    if (m_parser.isSet(m_source)) {
        try {
            window.profileArea()->setSource(QString::fromStdString(
                readCandidateFile(QFile::encodeName(m_parser.value(m_source)).toStdString())));
        } catch (const Error& e) {
            qWarning("%s", e.what());
            return false;
        }
    }
    if (m_parser.isSet(m_rlRun)) {
        FinetuneArea* area = window.finetuneArea();
        if (!area->openRun(m_parser.value(m_rlRun)))
            return false;
        if (m_parser.isSet(m_rlCompare))
            area->addComparison(m_parser.value(m_rlCompare));
        const QStringList pages = {QStringLiteral("setup"), QStringLiteral("curves"),
                                   QStringLiteral("rollouts"), QStringLiteral("checkpoints"),
                                   QStringLiteral("log")};
        const auto page = pages.indexOf(m_parser.value(m_rlPage));
        if (page >= 0)
            area->showPage(static_cast<FinetuneArea::Page>(page));
        if (m_parser.isSet(m_rlStep)) {
            RolloutBrowser* browser = area->rollouts();
            QObject::connect(browser, &RolloutBrowser::rolloutsShown, browser, [browser] {
                const int best = browser->model()->bestAndWorst(0).first;
                for (int row = 0; row < browser->proxy()->rowCount(); ++row)
                    if (browser->proxy()->mapToSource(browser->proxy()->index(row, 0)).row() ==
                        best)
                        browser->table()->selectRow(row);
                browser->timeline()->setValue(browser->timeline()->maximum() / 2);
            });
            browser->showStep(m_parser.value(m_rlStep).toLongLong());
        }
    }
    if (m_parser.isSet(m_counters)) {
        try {
            const auto document = nlohmann::json::parse(
                readTextFile(QFile::encodeName(m_parser.value(m_counters)).toStdString()));
            const std::string task = m_parser.isSet(QStringLiteral("task"))
                                         ? m_parser.value(QStringLiteral("task")).toStdString()
                                         : std::string();
            CountersView* view = window.profileArea()->countersView();
            // A result file says which GPU its counters came from: its roofline is that GPU's.
            const auto devices = document.is_object() && document.contains("system")
                                     ? document["system"].value("devices", nlohmann::json())
                                     : nlohmann::json();
            if (devices.is_array() && !devices.empty() && devices[0].is_object())
                view->setCeilings(devices[0].value("peak_bandwidth_bytes_per_s", 0.0),
                                  devices[0].value("peak_fp32_flops", 0.0));
            view->showReport(counterReportFromDocument(document, task));
            window.showArea(MainWindow::Area::Profile);
            window.profileArea()->tabs()->setCurrentIndex(ProfileArea::CountersTab);
        } catch (const std::exception& e) {
            qWarning("%s", e.what());
            return false;
        }
    }
    if (m_parser.isSet(m_run) &&
        !window.profileArea()->openRunById(m_parser.value(m_run).toLongLong())) {
        qWarning("There is no run %s in the run store", qPrintable(m_parser.value(m_run)));
        return false;
    }
    return true;
}

void WorkbenchScript::start(MainWindow& window, WorkbenchState& state, bool withModel) const {
    const bool generate = m_parser.isSet(m_generate) && withModel;
    const bool fill = m_parser.isSet(m_fill) && withModel;
    ModelRunner* runner = state.modelRunner();
    if (fill)
        QObject::connect(runner, &ModelRunner::loaded, &window, [&window] {
            window.showArea(MainWindow::Area::Infill);
            window.infillArea()->fillAll();
        });
    if (generate)
        QObject::connect(runner, &ModelRunner::loaded, &window, [&window] {
            window.showArea(MainWindow::Area::Generate);
            window.generateArea()->startGeneration();
        });
    if (generate || fill) {
        QObject::connect(runner, &ModelRunner::loadFailed, &window, [](const QString& message) {
            qWarning("%s", qPrintable(message));
            QApplication::exit(1);
        });
    }
    const QString shot = m_parser.value(m_screenshot);
    // A moment for the last frame to be painted.
    auto grabAndQuit = [&window, shot] {
        QTimer::singleShot(300, &window, [&window, shot] { saveAndQuit(window, shot); });
    };
    if (generate && !shot.isEmpty()) {
        QObject::connect(window.generateArea(), &GenerateArea::generationDone, &window,
                         [&window, grabAndQuit] {
                             // Mid-way through the generation: the timeline at half the steps.
                             QSlider* timeline = window.generateArea()->timeline();
                             timeline->setValue(timeline->maximum() / 2);
                             grabAndQuit();
                         });
    } else if (fill && !shot.isEmpty()) {
        QObject::connect(window.infillArea(), &InfillArea::allFinished, &window,
                         [&window, grabAndQuit] {
                             window.infillArea()->acceptAll();
                             grabAndQuit();
                         });
    } else if (m_parser.isSet(m_screenshot)) {
        // Give the background checks (machine facts, first compile) time to arrive first.
        const int delay = m_parser.isSet(m_quitAfter) ? m_parser.value(m_quitAfter).toInt() : 3000;
        QTimer::singleShot(delay, &window, [&window, shot] { saveAndQuit(window, shot); });
    } else if (m_parser.isSet(m_quitAfter)) {
        QTimer::singleShot(m_parser.value(m_quitAfter).toInt(), qApp, &QApplication::quit);
    }
}

} // namespace dice
