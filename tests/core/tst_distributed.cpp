// SPDX-License-Identifier: GPL-3.0-or-later
// Data-parallel training on the CPU with Gloo: torchrun's variables, AdamW with sharded moments
// against LibTorch's own AdamW, TraceRL's update on two ranks against one process, and the
// trainer started with --nproc 2 against the same run in one process.
#include <torch/torch.h>

#include "core/common/child_process.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/common/sanitizer.h"
#include "core/distributed/communicator.h"
#include "core/distributed/gradient_buckets.h"
#include "core/distributed/rank_environment.h"
#include "core/distributed/rank_launcher.h"
#include "core/distributed/sharded_adamw.h"
#include "core/model/qwen3_model.h"
#include "core/model/safetensors.h"
#include "core/model/safetensors_torch.h"
#include "core/train/trace_update.h"

#include "json_lines.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <thread>

using namespace dice;
using dice::test::readLines;

namespace {

const std::string kFixture = std::string(DICE_TEST_FIXTURES) + "/qwen3-tiny";

std::unique_ptr<Qwen3Model> tinyModel() {
    auto model = Qwen3Model::load(kFixture, LoadOptions{});
    for (auto& p : model->parameters())
        p.requires_grad_(true);
    return model;
}

// Rollouts over the fixture's vocabulary (mask 383): blocks of 4 committed in 1 to 4 steps, a
// last block cut short, advantages of both signs.
std::vector<TraceRollout> rollouts(int count) {
    std::vector<TraceRollout> out;
    for (int r = 0; r < count; ++r) {
        TraceRollout t;
        for (int i = 0; i < 5 + r % 3; ++i)
            t.prompt.push_back(3 + (r * 7 + i * 11) % 300);
        const int length = 6 + (r * 5) % 7;
        for (int i = 0; i < length; ++i) {
            t.answer.push_back(3 + (r * 13 + i * 17) % 370);
            t.commitStep.push_back((i * (r + 1)) % 4);
        }
        t.advantage = r % 2 == 0 ? 1.0 - 0.1 * r : -0.5 - 0.05 * r;
        out.push_back(std::move(t));
    }
    return out;
}

TraceUpdateOptions updateOptions(int accumulation) {
    TraceUpdateOptions o;
    o.microBatch = 1;
    o.accumulation = accumulation;
    o.clipNorm = 1.0;
    o.blockLength = 4;
    o.maskId = 383;
    o.padId = 0;
    o.vocabLimit = 383;
    return o;
}

struct RankRun {
    std::vector<at::Tensor> parameters;
    TraceUpdateStats stats;
    std::size_t buckets = 0;
    std::string error;
};

// TraceRL's update on `ranks` threads, each a rank with a Gloo communicator of its own.
std::vector<RankRun> updateOnRanks(int ranks, int accumulation, int steps,
                                   std::int64_t bucketBytes) {
    std::vector<RankRun> runs(static_cast<std::size_t>(ranks));
    const int port = freeTcpPort();
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r)
        threads.emplace_back([&, r] {
            try {
                auto comm = Communicator::connect(rankOnThisHost(r, ranks, port),
                                                  c10::Device(c10::kCPU), std::chrono::seconds(60));
                auto model = tinyModel();
                AdamWSettings settings;
                settings.learningRate = 1e-3;
                settings.weightDecay = 0.01;
                ShardedAdamW optimizer(model->parameters(), settings, comm.get());
                GradientBuckets buckets(model->parameters(), *comm, bucketBytes);
                TraceUpdateOptions o = updateOptions(accumulation);
                o.communicator = comm.get();
                o.buckets = &buckets;
                const auto data = rollouts(7);
                for (int s = 0; s < steps; ++s)
                    runs[r].stats = traceRlUpdate(*model, optimizer, data, o);
                runs[r].buckets = buckets.bucketCount();
                for (const auto& p : model->parameters())
                    runs[r].parameters.push_back(p.detach().clone());
            } catch (const std::exception& e) {
                runs[r].error = e.what();
            }
        });
    for (auto& t : threads)
        t.join();
    return runs;
}

double largestDifference(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b) {
    double largest = 0;
    for (std::size_t k = 0; k < a.size(); ++k)
        largest = std::max(largest, (a[k] - b[k]).abs().max().item<double>());
    return largest;
}

} // namespace

class TestDistributed : public QObject {
    Q_OBJECT

private slots:
    void rankEnvironmentReadsTorchrunVariables() {
        QVERIFY(!rankEnvironmentFrom({}).present);
        const auto env = rankEnvironmentFrom({{"RANK", "3"},
                                              {"WORLD_SIZE", "8"},
                                              {"LOCAL_RANK", "1"},
                                              {"MASTER_ADDR", "10.0.0.2"},
                                              {"MASTER_PORT", "29600"}});
        QVERIFY(env.present);
        QCOMPARE(env.rank, 3);
        QCOMPARE(env.size, 8);
        QCOMPARE(env.localRank, 1);
        QCOMPARE(env.masterAddress, std::string("10.0.0.2"));
        QCOMPARE(env.masterPort, 29600);
        // LOCAL_RANK defaults to RANK (one host), the address and port to torchrun's.
        const auto local = rankEnvironmentFrom({{"RANK", "1"}, {"WORLD_SIZE", "2"}});
        QCOMPARE(local.localRank, 1);
        QCOMPARE(local.masterPort, 29500);
        const std::vector<std::vector<std::pair<std::string, std::string>>> wrong = {
            {{"WORLD_SIZE", "2"}},
            {{"RANK", "2"}, {"WORLD_SIZE", "2"}},
            {{"RANK", "x"}, {"WORLD_SIZE", "2"}},
            {{"RANK", "0"}, {"WORLD_SIZE", "0"}},
            {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "70000"}},
            {{"RANK", "0"}, {"WORLD_SIZE", "2 "}}};
        for (const auto& vars : wrong)
            QVERIFY_EXCEPTION_THROWN(rankEnvironmentFrom(vars), Error);
    }

    void shardedAdamWComputesWhatLibTorchsAdamWDoes() {
        torch::manual_seed(5);
        std::vector<at::Tensor> ours, theirs;
        for (auto shape : std::vector<std::vector<std::int64_t>>{{7, 5}, {13}, {3, 4, 2}}) {
            const auto p = torch::randn(shape);
            ours.push_back(p.clone().requires_grad_(true));
            theirs.push_back(p.clone().requires_grad_(true));
        }
        AdamWSettings s;
        s.learningRate = 3e-3;
        s.beta1 = 0.8;
        s.beta2 = 0.95;
        s.epsilon = 1e-6;
        s.weightDecay = 0.1;
        ShardedAdamW mine(ours, s, nullptr);
        torch::optim::AdamW reference(theirs, torch::optim::AdamWOptions(s.learningRate)
                                                  .betas({s.beta1, s.beta2})
                                                  .eps(s.epsilon)
                                                  .weight_decay(s.weightDecay));
        for (int step = 0; step < 6; ++step) {
            for (std::size_t k = 0; k < ours.size(); ++k) {
                const auto g = torch::randn(ours[k].sizes());
                ours[k].mutable_grad() = g.clone();
                theirs[k].mutable_grad() = g.clone();
            }
            mine.step();
            reference.step();
            for (std::size_t k = 0; k < ours.size(); ++k)
                QVERIFY2(
                    torch::equal(ours[k], theirs[k]),
                    ("step " + std::to_string(step) + ", parameter " + std::to_string(k)).c_str());
        }
        // The state file holds the moments whole; a fresh optimiser that loads it goes on alike.
        const TemporaryFolder work("dice-adamw-test");
        const std::string path = work.path() + "/optimizer.safetensors";
        mine.save(path);
        std::vector<at::Tensor> copies;
        for (const auto& p : ours)
            copies.push_back(p.detach().clone().requires_grad_(true));
        ShardedAdamW resumed(copies, s, nullptr);
        resumed.load(path);
        QCOMPARE(resumed.steps(), mine.steps());
        for (std::size_t k = 0; k < ours.size(); ++k) {
            const auto g = torch::randn(ours[k].sizes());
            ours[k].mutable_grad() = g.clone();
            copies[k].mutable_grad() = g.clone();
        }
        mine.step();
        resumed.step();
        for (std::size_t k = 0; k < ours.size(); ++k)
            QVERIFY(torch::equal(ours[k], copies[k]));
        // A file for other parameters is refused with a reason.
        std::vector<at::Tensor> other = {torch::zeros({4}, torch::requires_grad())};
        ShardedAdamW wrong(other, s, nullptr);
        QVERIFY_EXCEPTION_THROWN(wrong.load(path), FileError);
    }

    void twoRanksUpdateAsOneProcessDoes() {
        // One process, with the same optimiser and the same rollouts.
        auto model = tinyModel();
        AdamWSettings settings;
        settings.learningRate = 1e-3;
        settings.weightDecay = 0.01;
        std::vector<at::Tensor> single;
        TraceUpdateStats alone;
        {
            ShardedAdamW optimizer(model->parameters(), settings, nullptr);
            const auto data = rollouts(7);
            for (int s = 0; s < 2; ++s)
                alone = traceRlUpdate(*model, optimizer, data, updateOptions(2));
            for (const auto& p : model->parameters())
                single.push_back(p.detach().clone());
        }
        // Windows of two micro-batches: each rank has one, and the sum of two gradients does not
        // depend on its order, so the weights are the same to the bit. Small buckets: several of
        // them, started while the backward pass runs.
        const auto two = updateOnRanks(2, 2, 2, 16 << 10);
        for (const auto& run : two)
            QVERIFY2(run.error.empty(), run.error.c_str());
        QVERIFY(two[0].buckets > 2);
        QVERIFY(two[0].stats.bucketsOverlapped > 0);
        for (const auto& run : two)
            QCOMPARE(largestDifference(run.parameters, single), 0.0);
        QCOMPARE(two[0].stats.microBatches, alone.microBatches);
        QCOMPARE(two[0].stats.targets, alone.targets);
        QCOMPARE(two[0].stats.optimizerSteps, alone.optimizerSteps);
        QVERIFY(std::abs(two[0].stats.policy - alone.policy) < 1e-9);
        QVERIFY(std::abs(two[0].stats.kl - alone.kl) < 1e-9);

        // Windows of three: one rank sums two micro-batches first, so the order of the additions
        // differs from one process's, by rounding only: the summed gradient (its norm, before
        // clipping) agrees to 1e-6. AdamW then divides each element's step by the root of its
        // second moment, so an element whose gradient is at the level of that rounding still
        // moves by up to the learning rate (1e-3) either way: after two steps the weights agree to
        // 1e-5.
        const auto singleRun = [&](int steps, TraceUpdateStats* stats) {
            auto fresh = tinyModel();
            ShardedAdamW optimizer(fresh->parameters(), settings, nullptr);
            const auto data = rollouts(7);
            for (int s = 0; s < steps; ++s)
                *stats = traceRlUpdate(*fresh, optimizer, data, updateOptions(3));
            std::vector<at::Tensor> weights;
            for (const auto& p : fresh->parameters())
                weights.push_back(p.detach().clone());
            return weights;
        };
        TraceUpdateStats firstAlone;
        singleRun(1, &firstAlone);
        for (const auto& run : updateOnRanks(2, 3, 1, 1 << 20)) {
            QVERIFY2(run.error.empty(), run.error.c_str());
            const double norm = std::abs(run.stats.gradNorm / firstAlone.gradNorm - 1);
            QVERIFY2(norm <= 1e-6, std::to_string(norm).c_str());
        }
        TraceUpdateStats lastAlone;
        const auto singleThree = singleRun(2, &lastAlone);
        for (const auto& run : updateOnRanks(2, 3, 2, 1 << 20)) {
            QVERIFY2(run.error.empty(), run.error.c_str());
            const double d = largestDifference(run.parameters, singleThree);
            QVERIFY2(d <= 1e-5, std::to_string(d).c_str());
        }
        // The update moved the weights: the comparison is not between two unchanged models.
        QVERIFY(largestDifference(single, tinyModel()->parameters()) > 1e-4);
    }

    void benchmarkStepOnTwoRanks() {
        // The RL benchmark's step split over two CPU ranks: the same work as one process (the
        // single-process figures of tst_rl benchmarkTimesEveryPartOfAStep), rank 0 reporting.
        const TemporaryFolder work("dice-bench-ranks-test");
        const std::string output = work.path() + "/bench.json";
        ChildRunOptions options;
        options.timeoutMs = 300000;
        const ChildResult result = runChild(ChildCommand({DICE_BIN_DIR "/dice",
                                                          "bench",
                                                          "rl",
                                                          "--device",
                                                          "cpu",
                                                          "--shape",
                                                          "20m",
                                                          "--tasks",
                                                          "2",
                                                          "--rollouts",
                                                          "2",
                                                          "--prompt-tokens",
                                                          "12",
                                                          "--max-tokens",
                                                          "16",
                                                          "--batch",
                                                          "3",
                                                          "--accumulation",
                                                          "2",
                                                          "--threads",
                                                          "1",
                                                          "--no-reward",
                                                          "--nproc",
                                                          "2",
                                                          "--output",
                                                          output}),
                                            options);
        QVERIFY2(result.ok(), (result.exit.describe() + "\n" + result.err).c_str());
        const auto r = nlohmann::json::parse(readTextFile(output))["results"];
        QCOMPARE(r["ranks"].get<int>(), 2);
        QCOMPARE(r["collective"].get<std::string>(), std::string("gloo"));
        QCOMPARE(r["sampling"]["answer_tokens"].get<int>(), 4 * 16);
        const auto& u = r["update"];
        QCOMPARE(u["micro_batches"].get<int>(), 4);
        QCOMPARE(u["optimizer_steps"].get<int>(), 2);
        QCOMPARE(u["targets"].get<int>(), 4 * 16);
        QCOMPARE(u["rows"].get<int>(), 4 * 4);
    }

    void nprocRunsTheSameTrainingAsOneProcess() {
        if (kAddressSanitizer)
            QSKIP("the embedded model's passes take minutes under AddressSanitizer; the dev "
                  "stage runs this case");
        const TemporaryFolder work("dice-distributed-test");
        // Answers of the embedded model to relu and silu run 389 and 385 tokens. It writes them
        // the same way every time at temperature 1, so that every group's rewards are equal and
        // nothing is updated; at 1.8 some come out invalid, so groups differ and the update has
        // work. One task a step keeps the update short.
        const nlohmann::json config = {
            {"model", "embedded"},
            {"seed", 3},
            {"threads", 1},
            {"phases",
             {{{"kind", "end_to_end"},
               {"steps", 2},
               {"data", {{"tasks", "builtin"}, {"names", {"relu", "silu"}}}}}}},
            {"tasks_per_step", 1},
            {"rollouts_per_task", 4},
            {"rollout", {{"max_tokens", 400}, {"batch", 4}, {"temperature", 1.8}}},
            {"reward", {{"mode", "compile"}}},
            {"judge", {{"compile_threads", 1}}},
            // Without checkpointing, as the CPU demo: a third less time in the update.
            {"optimizer",
             {{"learning_rate", 1e-4},
              {"micro_batch", 1},
              {"accumulation", 2},
              {"gradient_checkpointing", false}}},
            {"eval", {{"every", 0}}},
            {"save_every", 1}};
        const std::string configPath = work.path() + "/config.json";
        std::ofstream(configPath) << config.dump();
        const auto run = [&](const std::string& output, int processes, const std::string& file) {
            std::vector<std::string> argv = {
                DICE_BIN_DIR "/dice",      "train", "rl", "--config", file, "--output",
                work.path() + "/" + output};
            if (processes > 1) {
                argv.push_back("--nproc");
                argv.push_back(std::to_string(processes));
            }
            ChildRunOptions options;
            options.timeoutMs = 300000;
            const ChildResult result = runChild(ChildCommand(argv), options);
            QVERIFY2(result.ok(), (result.exit.describe() + "\n" + result.err).c_str());
        };
        run("one", 1, configPath);
        run("two", 2, configPath);
        const std::filesystem::path one = work.path() + "/one";
        const std::filesystem::path two = work.path() + "/two";
        for (int step = 1; step <= 2; ++step) {
            const auto a =
                readLines((one / "rollouts" / (std::to_string(step) + ".jsonl")).string());
            const auto b =
                readLines((two / "rollouts" / (std::to_string(step) + ".jsonl")).string());
            QCOMPARE(a.size(), std::size_t(4));
            QCOMPARE(b.size(), a.size());
            for (std::size_t i = 0; i < a.size(); ++i)
                for (const char* key : {"task", "tokens", "commit_step", "verdict", "reward",
                                        "advantage", "kept", "candidate"})
                    QVERIFY2(a[i][key] == b[i][key],
                             (std::string(key) + " of rollout " + std::to_string(i)).c_str());
        }
        const auto ma = readLines((one / "metrics.jsonl").string());
        const auto mb = readLines((two / "metrics.jsonl").string());
        QCOMPARE(mb.size(), ma.size());
        QCOMPARE(mb.back()["ranks"].get<int>(), 2);
        int kept = 0;
        for (std::size_t i = 0; i < ma.size(); ++i) {
            for (const char* key :
                 {"rollouts_kept", "optimizer_steps", "targets", "correct", "grad_norm"})
                QVERIFY2(mb[i][key] == ma[i][key], key);
            kept += ma[i]["rollouts_kept"].get<int>();
        }
        QVERIFY(kept > 0);
        // The final weights and the optimiser's moments, written once, by rank 0. Each window of
        // two micro-batches has one on each rank: the weights are the same to the bit.
        const auto sameWeights = [&] {
            const auto a = SafetensorsFile::open((one / "model" / "model.safetensors").string());
            const auto b = SafetensorsFile::open((two / "model" / "model.safetensors").string());
            for (const auto& entry : a->header().tensors) {
                const SafetensorsEntry* other = b->header().find(entry.name);
                QVERIFY(other);
                const double d = (safetensorsTensor(a, entry).to(torch::kDouble) -
                                  safetensorsTensor(b, *other).to(torch::kDouble))
                                     .abs()
                                     .max()
                                     .item<double>();
                QVERIFY2(d == 0, (entry.name + ": " + std::to_string(d)).c_str());
            }
        };
        sameWeights();
        QVERIFY(std::filesystem::exists(two / "checkpoints" / "step-00000002" /
                                        "optimizer.safetensors"));
        QVERIFY(!std::filesystem::exists(two / "checkpoints" / "step-00000002" / "optimizer.pt"));

        // A third step, each run resumed with the other number of ranks: the two-rank run by one
        // process, the one-process run by two ranks. Their checkpoints hold the same weights and
        // moments, so the third step is the same too.
        nlohmann::json longer = config;
        longer["phases"][0]["steps"] = 3;
        const std::string longerPath = work.path() + "/longer.json";
        std::ofstream(longerPath) << longer.dump();
        run("two", 1, longerPath);
        run("one", 2, longerPath);
        QCOMPARE(readLines((one / "metrics.jsonl").string()).back()["ranks"].get<int>(), 2);
        QCOMPARE(readLines((two / "metrics.jsonl").string()).back()["ranks"].get<int>(), 1);
        const auto a = readLines((one / "rollouts" / "3.jsonl").string());
        const auto b = readLines((two / "rollouts" / "3.jsonl").string());
        QCOMPARE(b.size(), a.size());
        for (std::size_t i = 0; i < a.size(); ++i)
            QVERIFY(a[i]["tokens"] == b[i]["tokens"] && a[i]["advantage"] == b[i]["advantage"]);
        sameWeights();
    }
};

QTEST_GUILESS_MAIN(TestDistributed)
#include "tst_distributed.moc"
