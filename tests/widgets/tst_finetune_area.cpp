// SPDX-License-Identifier: GPL-3.0-or-later
// The Fine-tune area against run folders: the committed fixture (a real CPU run of `dice train
// rl`) drives the curves, the rollouts with their replayed denoising, and the checkpoints; a
// folder whose last line a killed trainer left half-written is read without error; the set-up
// writes what the trainer accepts; and a run of the tiny model started from the area is paused,
// resumed and finished as one run while the GUI thread keeps serving events.
#include "core/common/file_util.h"
#include "core/tasks/task.h"
#include "core/train/rl_config.h"
#include "widgets/finetune/checkpoint_view.h"
#include "widgets/finetune/finetune_area.h"
#include "widgets/finetune/rollout_browser.h"
#include "widgets/finetune/rollout_model.h"
#include "widgets/finetune/run_curves.h"
#include "widgets/finetune/run_setup.h"
#include "widgets/finetune/run_watcher.h"
#include "widgets/finetune/trainer_process.h"
#include "widgets/generate/denoising_canvas.h"
#include "widgets/state/workbench_state.h"

#include "event_loop_probe.h"
#include "tiny_model.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace {

const QString kFixture = QStringLiteral(DICE_TEST_FIXTURES "/rl-run");

std::vector<nlohmann::json> lines(const QString& path) {
    std::vector<nlohmann::json> out;
    std::ifstream file(path.toStdString());
    for (std::string line; std::getline(file, line);)
        if (!line.empty())
            out.push_back(nlohmann::json::parse(line));
    return out;
}

dice::WorkbenchState::Options noStore() {
    dice::WorkbenchState::Options options;
    options.storePath = QStringLiteral("-");
    return options;
}

QString copyFixture(const QTemporaryDir& dir) {
    const QString to = dir.filePath(QStringLiteral("run"));
    std::filesystem::copy(kFixture.toStdString(), to.toStdString(),
                          std::filesystem::copy_options::recursive);
    return to;
}

} // namespace

class TestFinetuneArea : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName("dice-workbench-tests");
        QCoreApplication::setApplicationName("tst_finetune_area");
        QSettings().clear();
        if (qEnvironmentVariableIsEmpty("DICE_CLI_PROGRAM"))
            qputenv("DICE_CLI_PROGRAM", DICE_BIN_DIR "/dice");
    }

    void fixtureDrivesEveryView() {
        dice::WorkbenchState state(noStore());
        dice::FinetuneArea area(&state);
        QVERIFY(area.openRun(kFixture));
        const auto metrics = lines(kFixture + "/metrics.jsonl");
        const auto evaluations = lines(kFixture + "/eval.jsonl");
        QVERIFY(metrics.size() >= 3);

        // Curves: the reward's mean is the file's, step by step; the held-out points are the
        // evaluations; the infilling phase's end is marked.
        QCustomPlot* reward = area.curves()->plot(dice::RunCurves::Reward);
        QVERIFY(reward->graphCount() >= 1);
        QCOMPARE(reward->graph(0)->dataCount(), static_cast<int>(metrics.size()));
        for (std::size_t i = 0; i < metrics.size(); ++i) {
            QCOMPARE(reward->graph(0)->data()->at(static_cast<int>(i))->key,
                     metrics[i]["step"].get<double>());
            QCOMPARE(reward->graph(0)->data()->at(static_cast<int>(i))->value,
                     metrics[i]["mean_reward"].get<double>());
        }
        QCOMPARE(area.curves()->plot(dice::RunCurves::HeldOut)->graph(0)->dataCount(),
                 static_cast<int>(evaluations.size()));
        QCOMPARE(area.curves()->phaseMarks(), QList<double>{1.5});
        for (int c = 0; c < dice::RunCurves::CurveCount; ++c)
            QVERIFY2(area.curves()->plot(static_cast<dice::RunCurves::Curve>(c))->graphCount() > 0,
                     qPrintable(QString::number(c)));

        // Rollouts: the newest step first; then step 1, the infilling step, with its holes.
        dice::RolloutBrowser* browser = area.rollouts();
        QSignalSpy shown(browser, &dice::RolloutBrowser::rolloutsShown);
        QTRY_VERIFY_WITH_TIMEOUT(browser->model()->rowCount() > 0, 10000);
        const qint64 last = metrics.back()["step"].get<qint64>();
        QCOMPARE(browser->step(), last);
        shown.clear();
        browser->showStep(1);
        QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 10000);
        const auto step1 = lines(kFixture + "/rollouts/1.jsonl");
        QCOMPARE(browser->model()->rowCount(), static_cast<int>(step1.size()));
        QVERIFY(browser->model()
                    ->data(browser->model()->index(0, dice::RolloutModel::Flags))
                    .toString()
                    .contains(QString::fromStdString(step1[0]["hole"].get<std::string>())));

        // The replay is the rollout's trace: after every step, each answer token in its cell.
        browser->table()->sortByColumn(dice::RolloutModel::Group, Qt::AscendingOrder);
        browser->openRow(0);
        const nlohmann::json* opened = browser->openedRollout();
        QVERIFY(opened);
        const auto tokens = (*opened)["tokens"].get<std::vector<qint64>>();
        const auto steps = (*opened)["commit_step"].get<std::vector<qint64>>();
        const qint64 passes = *std::max_element(steps.begin(), steps.end()) + 1;
        QCOMPARE(browser->timeline()->maximum(), static_cast<int>(passes));
        const auto& cells = browser->canvas()->cells();
        QVERIFY(cells.size() >= tokens.size());
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            QVERIFY(cells[i].committed);
            QCOMPARE(cells[i].token, tokens[i]);
        }
        // Half-way, exactly the tokens committed in the first half of the steps are shown.
        browser->timeline()->setValue(static_cast<int>(passes / 2));
        for (std::size_t i = 0; i < tokens.size(); ++i)
            QCOMPARE(browser->canvas()->cells()[i].committed, steps[i] < passes / 2);
        QCOMPARE(browser->answerText(), QString::fromStdString((*opened)["answer"]));

        // The best and the worst of the group side by side.
        double high = -1e9, low = 1e9;
        std::string best, worst;
        for (const auto& r : step1) {
            if (r["group"] != (*opened)["group"])
                continue;
            const double value = r["reward"]["value"].get<double>();
            if (value > high)
                high = value, best = r["answer"].get<std::string>();
            if (value < low)
                low = value, worst = r["answer"].get<std::string>();
        }
        QCOMPARE(browser->bestText(), QString::fromStdString(best));
        QCOMPARE(browser->worstText(), QString::fromStdString(worst));

        // On to Profile with its task.
        QSignalSpy toProfile(&area, &dice::FinetuneArea::sendToProfile);
        QVERIFY(QMetaObject::invokeMethod(
            browser, "sendToProfile", Q_ARG(QString, QString::fromStdString((*opened)["task"])),
            Q_ARG(QString, QString::fromStdString((*opened)["candidate"]))));
        QCOMPARE(toProfile.count(), 1);

        // The filter keeps the rows that mention what is typed.
        const QString task = QString::fromStdString(step1[0]["task"].get<std::string>());
        browser->proxy()->setFilterFixedString(task);
        int matching = 0;
        for (const auto& r : step1)
            matching += QString::fromStdString(r.dump()).contains(task) ? 1 : 0;
        QVERIFY(browser->proxy()->rowCount() >= 1);
        QVERIFY(browser->proxy()->rowCount() <= matching);
        browser->proxy()->setFilterFixedString(QString());

        // Checkpoints with their held-out scores.
        QTableWidget* checkpoints = area.checkpoints()->checkpoints();
        const auto saved = dice::listCheckpoints(kFixture.toStdString());
        QCOMPARE(checkpoints->rowCount(), static_cast<int>(saved.size()));
        for (int r = 0; r < checkpoints->rowCount(); ++r) {
            QCOMPARE(area.checkpoints()->checkpointFolder(r),
                     QString::fromStdString(saved[static_cast<std::size_t>(r)].folder.string()));
            const auto it =
                std::find_if(evaluations.begin(), evaluations.end(), [&](const nlohmann::json& e) {
                    return e["step"].get<std::int64_t>() == saved[static_cast<std::size_t>(r)].step;
                });
            if (it != evaluations.end())
                QVERIFY(
                    checkpoints->item(r, 1)->text().contains(QStringLiteral("(%1/%2)")
                                                                 .arg((*it)["correct"].get<int>())
                                                                 .arg((*it)["tasks"].get<int>())));
        }
        QVERIFY(area.statusText().contains(QStringLiteral("Finished")));
        QVERIFY(!area.canResume());
    }

    void comparedRunsAreOverlaid() {
        QTemporaryDir dir;
        const QString copy = copyFixture(dir);
        dice::WorkbenchState state(noStore());
        dice::FinetuneArea area(&state);
        QVERIFY(area.openRun(kFixture));
        QVERIFY(area.addComparison(copy));
        QVERIFY(!area.addComparison(copy));
        QCustomPlot* reward = area.curves()->plot(dice::RunCurves::Reward);
        QList<QColor> colours;
        for (int g = 0; g < reward->graphCount(); ++g)
            if (reward->graph(g)->pen().style() == Qt::SolidLine &&
                !colours.contains(reward->graph(g)->pen().color()))
                colours << reward->graph(g)->pen().color();
        QCOMPARE(colours.size(), 2);
        area.clearComparisons();
        QCOMPARE(area.curves()->plot(dice::RunCurves::HeldOut)->graphCount(), 1);
    }

    void truncatedLastLineIsReadWithoutError() {
        QTemporaryDir dir;
        const QString run = copyFixture(dir);
        const std::string path = (run + "/metrics.jsonl").toStdString();
        const std::string whole = dice::readTextFile(path);
        const auto cut = whole.rfind('\n', whole.size() - 2) + 20;
        dice::writeFileAtomically(path, whole.substr(0, cut));
        dice::WorkbenchState state(noStore());
        dice::FinetuneArea area(&state);
        QVERIFY(area.openRun(run));
        const auto complete = lines(kFixture + "/metrics.jsonl").size();
        QCOMPARE(area.currentRun()->run().metrics().size(), complete - 1);
        QVERIFY(area.currentRun()->run().problems().empty());
        QVERIFY(!area.statusText().contains(QStringLiteral("left out")));
        // The writer finishes its line: the step appears.
        std::ofstream(path, std::ios::app) << whole.substr(cut);
        QTRY_COMPARE_WITH_TIMEOUT(area.currentRun()->run().metrics().size(), complete, 5000);
        QCOMPARE(area.curves()->plot(dice::RunCurves::Reward)->graph(0)->dataCount(),
                 static_cast<int>(complete));
    }

    void setupWritesWhatTheTrainerReads() {
        dice::WorkbenchState state(noStore());
        dice::RunSetup setup(&state);
        setup.applyPreset(QStringLiteral("paper"));
        QVERIFY(!setup.problem().isEmpty()); // no run folder yet
        setup.setOutputFolder(QStringLiteral("runs/paper"));
        QCOMPARE(setup.problem(), QString());
        const auto written = nlohmann::json::parse(setup.configuration().toStdString());
        auto expected = dice::toJson(dice::rlConfigFromJson({{"preset", "paper"}}));
        expected["output"] = "runs/paper";
        QCOMPARE(QString::fromStdString(nlohmann::json::diff(written, expected).dump()),
                 QStringLiteral("[]"));

        setup.applyPreset(QStringLiteral("cpu-demo"));
        const auto demo =
            dice::rlConfigFromJson(nlohmann::json::parse(setup.configuration().toStdString()));
        QCOMPARE(demo.output, std::string("runs/paper"));
        QCOMPARE(demo.device, std::string("cpu"));
        QVERIFY(demo.reward.mode == dice::JudgeMode::Compile);
        QVERIFY(!demo.gradientCheckpointing);
        auto* checkpointing = setup.findChild<QCheckBox*>(QStringLiteral("GradientCheckpointing"));
        QVERIFY(checkpointing);
        QVERIFY(!checkpointing->isChecked());
        checkpointing->setChecked(true);
        QVERIFY(dice::rlConfigFromJson(nlohmann::json::parse(setup.configuration().toStdString()))
                    .gradientCheckpointing);

        // A configuration the trainer refuses is shown with its message, and not kept.
        QString error;
        QVERIFY(
            !setup.setConfiguration(QStringLiteral("{\"phases\": [], \"output\": \"x\"}"), &error));
        QVERIFY(error.contains(QStringLiteral("config.phases")));
        QVERIFY(setup.setConfiguration(
            QStringLiteral("{\"output\": \"x\", \"phases\": [{\"kind\": \"infill\", \"steps\": "
                           "3}], \"rollouts_per_task\": 8}"),
            &error));
        const auto read =
            dice::rlConfigFromJson(nlohmann::json::parse(setup.configuration().toStdString()));
        QCOMPARE(read.rolloutsPerTask, 8);
        QCOMPARE(read.phases.size(), std::size_t(1));
        QCOMPARE(read.phases[0].steps, std::int64_t(3));

        // The command shown runs the file a start writes.
        dice::FinetuneArea area(&state);
        area.setup()->setOutputFolder(QStringLiteral("runs/demo"));
        const auto* command = area.setup()->findChild<QLineEdit*>(QStringLiteral("RunCommand"));
        QVERIFY(command);
        QVERIFY(command->text().endsWith(
            QStringLiteral("train rl --config runs/demo/run-config.json --output runs/demo")));
    }

    void runStartedFromTheAreaPausesAndResumes() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString model = makeModelFolder(dir);
        const QString run = dir.filePath(QStringLiteral("run"));
        // Steps of a few tenths of a second: enough of them for a pause to land in the middle of
        // the run, wherever the area's polling happens to see the first step.
        constexpr int kSteps = 30;
        const nlohmann::json config = {
            {"model", model.toStdString()},
            {"output", run.toStdString()},
            {"threads", 1},
            {"seed", 7},
            {"phases",
             {{{"kind", "end_to_end"},
               {"steps", kSteps},
               {"data", {{"tasks", "builtin"}, {"names", {"relu", "gelu"}}}}}}},
            {"tasks_per_step", 1},
            {"rollouts_per_task", 4},
            {"max_prompt_tokens", 8000},
            {"rollout", {{"max_tokens", 48}, {"batch", 4}}},
            {"reward", {{"mode", "compile"}}},
            {"judge", {{"compile_threads", 1}}},
            {"optimizer", {{"micro_batch", 2}, {"accumulation", 1}}},
            {"eval", {{"every", 0}, {"max_tokens", 8}}},
            {"save_every", 1}};
        dice::WorkbenchState state(noStore());
        dice::FinetuneArea area(&state);
        area.resize(1366, 700);
        area.show();
        QString error;
        QVERIFY2(area.setup()->setConfiguration(QString::fromStdString(config.dump()), &error),
                 qPrintable(error));
        QVERIFY2(area.canStart(), qPrintable(area.setup()->problem()));
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        QVERIFY2(area.start(), qPrintable(area.statusText()));
        // Following starts once the curves are first drawn.
        QTest::qWait(300);
        EventLoopProbe probe;
        probe.start();
        QVERIFY(area.trainer()->running());
        QCOMPARE(area.currentRun()->folder(), QDir::cleanPath(run));

        // The first step arrives; pause, and the trainer ends after its step with a checkpoint.
        const auto failed = [&area] { return area.currentRun()->state() == "failed"; };
        QTRY_VERIFY_WITH_TIMEOUT(area.currentRun()->run().metrics().size() >= 1 || failed(),
                                 180000);
        QVERIFY2(!failed(), qPrintable(area.statusText() + "\n" + area.logText()));
        QVERIFY(area.canPause());
        QVERIFY(area.pause());
        QTRY_VERIFY2_WITH_TIMEOUT(!area.trainer()->running(), qPrintable(area.logText()), 180000);
        area.currentRun()->pollNow();
        QCOMPARE(area.currentRun()->state(), QStringLiteral("paused"));
        const auto pausedAt = area.currentRun()->run().metrics().size();
        QVERIFY(pausedAt >= 1 && pausedAt < static_cast<std::size_t>(kSteps));
        QVERIFY(area.statusText().contains(QStringLiteral("Paused")));
        QVERIFY(area.canResume());
        QVERIFY(!area.currentRun()->run().checkpoints().empty());

        // Resumed: the same run goes on from its checkpoint to the end.
        QVERIFY(area.resume());
        QTRY_VERIFY_WITH_TIMEOUT(area.currentRun()->state() == "finished" || failed(), 240000);
        QVERIFY2(!failed(), qPrintable(area.statusText() + "\n" + area.logText()));
        QTRY_VERIFY_WITH_TIMEOUT(!area.trainer()->running(), 10000);
        probe.stop();
        const auto& metrics = area.currentRun()->run().metrics();
        QCOMPARE(metrics.size(), static_cast<std::size_t>(kSteps));
        for (std::size_t i = 0; i < metrics.size(); ++i)
            QCOMPARE(metrics[i]["step"].get<std::size_t>(), i + 1);
        QVERIFY(area.logText().contains(QStringLiteral("resuming from")));
        QCOMPARE(area.curves()->plot(dice::RunCurves::Reward)->graph(0)->dataCount(), kSteps);
        QTRY_COMPARE_WITH_TIMEOUT(area.rollouts()->step(), qint64(kSteps), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(area.rollouts()->model()->rowCount(), 4, 10000);
        // The newest checkpoint scored on the built-in suite, in the background.
        dice::CheckpointView* checkpoints = area.checkpoints();
        const int newest = checkpoints->checkpoints()->rowCount() - 1;
        QVERIFY(newest >= 0);
        QSignalSpy scored(checkpoints, &dice::CheckpointView::scoringEnded);
        QVERIFY(
            checkpoints->score(QStringLiteral("newest"), checkpoints->checkpointFolder(newest)));
        QVERIFY(checkpoints->scoring());
        QTRY_COMPARE_WITH_TIMEOUT(scored.count(), 1, 240000);
        QVERIFY2(checkpoints->statusText().contains(QStringLiteral("is scored")),
                 qPrintable(checkpoints->statusText()));
        QCOMPARE(checkpoints->comparison()->rowCount(), 1);
        const auto score = lines(run + "/scores/newest/eval.jsonl");
        QCOMPARE(score.size(), std::size_t(1));
        const auto builtin = dice::loadTaskSuite(dice::builtinTaskDirectory()).tasks.size();
        QCOMPARE(score[0]["tasks"].get<std::size_t>(), builtin);
        QVERIFY(checkpoints->comparison()->item(0, 2)->text().contains(
            QStringLiteral("/%1)").arg(builtin)));
        qInfo("GUI thread: %d timer ticks, longest gap %lld ms during %lld ms of a followed run",
              probe.ticks(), probe.longestGapMs(), probe.elapsedMs());
        // The GUI thread kept serving its timers while the trainer ran beside it (the longest
        // gap is printed above: a bound on it would time the machine, not the code).
        QVERIFY2(probe.ticks() >= probe.elapsedMs() / 50,
                 qPrintable(QString::number(probe.ticks())));
    }
};

QTEST_MAIN(TestFinetuneArea)
#include "tst_finetune_area.moc"
