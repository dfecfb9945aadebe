// SPDX-License-Identifier: GPL-3.0-or-later
// Reading run folders from outside the trainer: the JSON-lines follower and the run follower,
// against a run folder written by `dice train rl` (tests/fixtures/rl-run, README there).
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/train/run_folder.h"

#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace dice;
namespace fs = std::filesystem;

namespace {

const fs::path kFixture = fs::path(DICE_TEST_FIXTURES) / "rl-run";

void append(const fs::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::app | std::ios::binary);
    out << text;
}

std::size_t lineCount(const fs::path& file) {
    std::ifstream in(file);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);)
        n += line.empty() ? 0 : 1;
    return n;
}

} // namespace

class TestRunFolder : public QObject {
    Q_OBJECT

private slots:
    void followerWaitsForTheEndOfALine() {
        const TemporaryFolder work("dice-run-folder-test");
        const fs::path file = fs::path(work.path()) / "metrics.jsonl";
        JsonLinesFollower follower(file);
        QVERIFY(follower.poll().lines.empty()); // not there yet

        append(file, "{\"step\": 1}\n{\"step\": 2, \"loss\"");
        auto news = follower.poll();
        QCOMPARE(news.lines.size(), std::size_t(1));
        QCOMPARE(news.lines[0]["step"].get<int>(), 1);
        QVERIFY(follower.poll().lines.empty());

        append(file, ": 0.5}\nnot json\n\n{\"step\": 3}\n");
        news = follower.poll();
        QCOMPARE(news.lines.size(), std::size_t(2));
        QCOMPARE(news.lines[0]["loss"].get<double>(), 0.5);
        QCOMPARE(news.lines[1]["step"].get<int>(), 3);
        QCOMPARE(follower.skippedLines(), 1);
        QVERIFY(follower.lastProblem().find("not a JSON object") != std::string::npos);
        QVERIFY(!news.restarted);
    }

    void followerStartsAgainOnAFileWrittenAnew() {
        const TemporaryFolder work("dice-run-folder-test");
        const fs::path file = fs::path(work.path()) / "eval.jsonl";
        append(file, "{\"step\": 1}\n{\"step\": 2}\n");
        JsonLinesFollower follower(file);
        QCOMPARE(follower.poll().lines.size(), std::size_t(2));
        fs::remove(file);
        append(file, "{\"step\": 9}\n");
        const auto news = follower.poll();
        QVERIFY(news.restarted);
        QCOMPARE(news.lines.size(), std::size_t(1));
        QCOMPARE(news.lines[0]["step"].get<int>(), 9);
    }

    void runFollowerReadsATrainersFolder() {
        RlRunFollower run(kFixture);
        QVERIFY(run.poll());
        QVERIFY(!run.poll()); // nothing changed since
        QVERIFY(run.problems().empty());
        QCOMPARE(run.config()["rollouts_per_task"].get<int>(), 4);
        QCOMPARE(run.status()["state"].get<std::string>(), std::string("finished"));
        const std::size_t steps = lineCount(kFixture / "metrics.jsonl");
        QCOMPARE(run.metrics().size(), steps);
        QCOMPARE(run.metrics().front()["phase"].get<std::string>(), std::string("infill"));
        QCOMPARE(run.metrics().back()["phase"].get<std::string>(), std::string("end_to_end"));
        for (const auto& m : run.metrics())
            for (const char* key : {"step", "mean_reward", "loss_policy", "kl", "clip_fraction",
                                    "sample_seconds", "judge_seconds", "update_seconds"})
                QVERIFY2(m.contains(key), key);
        QCOMPARE(run.evaluations().size(), lineCount(kFixture / "eval.jsonl"));
        QVERIFY(!run.evaluations().empty());
        QCOMPARE(run.rolloutSteps().size(), steps);
        QCOMPARE(run.rolloutSteps().front(), std::int64_t(1));
        QVERIFY(!run.checkpoints().empty());
        QCOMPARE(run.checkpoints().back().step, static_cast<std::int64_t>(steps));

        const auto rollouts = readRollouts(kFixture, run.rolloutSteps().front());
        QCOMPARE(rollouts.size(), std::size_t(4));
        for (const auto& r : rollouts) {
            // The trace: the step at which each token was committed.
            QCOMPARE(r["tokens"].size(), r["commit_step"].size());
            QVERIFY(r.contains("verdict") && r.contains("reward") && r.contains("prompt"));
        }
        QVERIFY(readRollouts(kFixture, 999).empty());
    }

    void aKilledTrainersHalfLineIsNoError() {
        // A trainer killed while it wrote a line leaves half of it: read without a problem, and
        // the line counts once it is whole (a resumed run writes on).
        const TemporaryFolder work("dice-run-folder-test");
        const fs::path run = fs::path(work.path()) / "run";
        fs::copy(kFixture, run, fs::copy_options::recursive);
        const std::size_t steps = lineCount(run / "metrics.jsonl");
        append(run / "metrics.jsonl", "{\"step\": 99, \"phase\": \"end_to_end\", \"mean_rew");
        RlRunFollower follower(run);
        follower.poll();
        QCOMPARE(follower.metrics().size(), steps);
        QVERIFY(follower.problems().empty());
        append(run / "metrics.jsonl", "ard\": 0.25}\n");
        QVERIFY(follower.poll());
        QCOMPARE(follower.metrics().size(), steps + 1);
        QCOMPARE(follower.metrics().back()["mean_reward"].get<double>(), 0.25);

        // A status caught while written keeps the last whole one.
        std::ofstream(run / "status.json") << "{\"state\": \"sampl";
        follower.poll();
        QCOMPARE(follower.status()["state"].get<std::string>(), std::string("finished"));
        std::ofstream(run / "status.json") << "{\"state\": \"sampling\", \"step\": 4}";
        QVERIFY(follower.poll());
        QCOMPARE(follower.status()["state"].get<std::string>(), std::string("sampling"));
    }

    // The replay of a rollout from the run folder: after its last step every answer token is in
    // its cell; each step's tokens lie in one block, the blocks aligned after the prompt as the
    // sampler aligned them; and a malformed trace is an error, not a picture.
    void rolloutsReplayTheirTrace() {
        const auto config =
            nlohmann::json::parse(readTextFile((kFixture / "config.json").string()));
        const std::int64_t block = config["rollout"]["block_length"].get<std::int64_t>();
        int replayed = 0;
        for (std::int64_t step = 1; step <= 3; ++step) {
            for (const auto& rollout : readRollouts(kFixture, step)) {
                const auto tokens = rollout["tokens"].get<std::vector<std::int64_t>>();
                const auto steps = rollout["commit_step"].get<std::vector<std::int64_t>>();
                const DecodeTrace trace = rolloutTrace(rollout, block);
                QCOMPARE(static_cast<std::int64_t>(trace.stepCount()),
                         *std::max_element(steps.begin(), steps.end()) + 1);
                const auto cells = trace.cellsAfter(trace.stepCount());
                QVERIFY(cells.size() >= tokens.size());
                for (std::size_t i = 0; i < tokens.size(); ++i)
                    QCOMPARE(cells[i].token, tokens[i]);
                for (const DecodeStep& e : trace.events()) {
                    if (e.kind != DecodeStep::Kind::Denoise)
                        continue;
                    QCOMPARE(e.blockLength, static_cast<int>(block));
                    QCOMPARE((rollout["prompt_tokens"].get<std::int64_t>() + e.blockStart) % block,
                             std::int64_t(0));
                    for (auto p : e.positions)
                        QVERIFY(p >= e.blockStart && p < e.blockStart + block);
                }
                ++replayed;
            }
        }
        QCOMPARE(replayed, 12);
        const auto fails = [block](nlohmann::json r) {
            try {
                rolloutTrace(r, block);
            } catch (const Error&) {
                return true;
            }
            return false;
        };
        QVERIFY(fails({{"tokens", {1, 2}}, {"commit_step", {0}}}));
        QVERIFY(fails({{"tokens", {1}}, {"commit_step", {-1}}}));
        // More steps than cells to commit: no sampler wrote it (and it would be millions of
        // empty steps to draw).
        QVERIFY(fails({{"tokens", {1}}, {"commit_step", {4000000}}}));
        QVERIFY(fails({{"tokens", {1}}, {"commit_step", {"0"}}}));
        QVERIFY(fails({{"tokens", {1}}}));
        QVERIFY(fails(nlohmann::json::array()));
        QVERIFY(!fails(
            {{"tokens", nlohmann::json::array()}, {"commit_step", nlohmann::json::array()}}));
    }

    void checkpointsAreListedOnlyWhenComplete() {
        const TemporaryFolder work("dice-run-folder-test");
        const fs::path out(work.path());
        fs::create_directories(checkpointFolder(out, 2));
        std::ofstream(checkpointFolder(out, 2) / "trainer_state.json") << "{}";
        fs::create_directories(checkpointFolder(out, 3)); // still being written
        fs::create_directories(out / "checkpoints" / "step-00000004.tmp");
        const auto list = listCheckpoints(out);
        QCOMPARE(list.size(), std::size_t(1));
        QCOMPARE(list[0].step, std::int64_t(2));
        QCOMPARE(checkpointFolder(out, 2).filename().string(), std::string("step-00000002"));
    }

    // A run killed after its checkpoint at step 2 had logged steps 3 and 4 and half of 5; resumed
    // at 2, it logs them again, so they go first. Lines without a step stay.
    void resumingDropsTheLinesPastTheCheckpoint() {
        const TemporaryFolder work("dice-run-folder-test");
        const fs::path file = fs::path(work.path()) / "metrics.jsonl";
        append(file, "{\"step\":1,\"loss\":2.5}\n{\"step\":2,\"loss\":2.0}\n"
                     "{\"note\":\"no step\"}\n{\"step\":3,\"loss\":1.5}\n"
                     "{\"step\":4,\"loss\":1.0}\n{\"step\":5,\"lo");
        QCOMPARE(dropLinesAfterStep(file, 2), std::size_t(3));
        QCOMPARE(readTextFile(file.string()),
                 std::string("{\"step\":1,\"loss\":2.5}\n{\"step\":2,\"loss\":2.0}\n"
                             "{\"note\":\"no step\"}\n"));
        const auto before = fs::last_write_time(file);
        QCOMPARE(dropLinesAfterStep(file, 2), std::size_t(0));
        QCOMPARE(fs::last_write_time(file), before);
        QCOMPARE(dropLinesAfterStep(fs::path(work.path()) / "absent.jsonl", 0), std::size_t(0));
        QVERIFY(!fs::exists(fs::path(work.path()) / "absent.jsonl"));
    }
};

QTEST_GUILESS_MAIN(TestRunFolder)
#include "tst_run_folder.moc"
