// SPDX-License-Identifier: GPL-3.0-or-later
// BiC-RL: TraceRL's rounds and loss, group standardisation, the schedule, the configuration, and
// the trainer's run folder. The strongest check replays real sampler traces: the training pass
// of every round must give each committed token the probability the sampler saw for it.
#include <torch/torch.h>

#include "core/bench/model_bench.h"
#include "core/bench/rl_bench.h"
#include "core/bench/rollout_bench.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/common/json_depth.h"
#include "core/diffusion/qwen3_network.h"
#include "core/diffusion/sdar_sampler.h"
#include "core/model/qwen3_model.h"
#include "core/selftest/model_checks.h"
#include "core/tasks/holes.h"
#include "core/train/bd3_batch.h"
#include "core/train/rl_config.h"
#include "core/train/rl_tasks.h"
#include "core/train/rl_trainer.h"
#include "core/train/trace_rl.h"
#include "core/train/train_common.h"

#include "json_lines.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <set>

using namespace dice;
using dice::test::readLines;

namespace {

// The trainer's hooks with the worker of this build (a test binary has none beside it).
RlHooks judged() {
    RlHooks hooks;
    hooks.workerExecutable = DICE_BIN_DIR "/dice-evald";
    return hooks;
}

} // namespace

class TestRl : public QObject {
    Q_OBJECT

private slots:
    void benchmarkFlopsCountEveryMatrixAndBothAttentionProducts() {
        // The 1.7B shape worked by hand: per layer q and o 2048x2048, k and v 2048x1024, the MLP
        // 3 x 2048x6144, for every token; the output head 151936x2048 for the scored cells only;
        // the embedding lookup costs nothing.
        const double layers = 28.0 * (2 * 2048.0 * 2048 + 2 * 2048.0 * 1024 + 3 * 2048.0 * 6144);
        const double rows = 3, length = 1000, scored = 700;
        const double expected = 2 * layers * rows * length + 2 * 151936.0 * 2048 * scored +
                                4 * 28.0 * 16 * 128 * length * length * rows;
        const double got = forwardFlops(benchmarkShape("1.7b"), 3, 1000, 700);
        QVERIFY2(std::abs(got / expected - 1) < 1e-3, std::to_string(got / expected).c_str());
    }

    void benchmarkTimesEveryPartOfAStep() {
        RlBenchOptions o;
        o.shape = "20m";
        o.device = ModelDevice::Cpu;
        o.tasks = 2;
        o.rolloutsPerTask = 2;
        o.promptTokens = 12;
        o.maxTokens = 16;
        o.rolloutBatch = 3;
        o.accumulation = 2;
        o.reward = false;
        const auto r = runRlBenchmark(o);
        // Random weights never write a stop token: every answer uses its whole budget.
        QCOMPARE(r["sampling"]["answer_tokens"].get<int>(), 4 * 16);
        QVERIFY(r["sampling"]["seconds"].get<double>() > 0);
        QVERIFY(r["reward"].is_null());
        const auto& u = r["update"];
        QCOMPARE(u["micro_batches"].get<int>(), 4);
        QCOMPARE(u["optimizer_steps"].get<int>(), 2);
        QCOMPARE(u["targets"].get<int>(), 4 * 16);
        // Each rollout is replayed in as many rounds as a block has denoising steps (4, one token
        // each at this confidence), over the doubled prompt + answer (+ a tail to the block).
        QCOMPARE(u["rows"].get<int>(), 4 * 4);
        QCOMPARE(u["row_length"].get<int>(), 2 * 28);
        const double fwd = forwardFlops(benchmarkShape("20m"), 16, 56, 4 * 16);
        QVERIFY(std::abs(u["forward_tflop"].get<double>() * 1e12 / fwd - 1) < 1e-9);
        QVERIFY(u["mfu"].get<double>() > 0);
        QVERIFY(std::abs(r["step_seconds"].get<double>() - (r["sampling"]["seconds"].get<double>() +
                                                            u["old_policy_seconds"].get<double>() +
                                                            u["update_seconds"].get<double>())) <
                1e-6);
    }

    void rolloutBenchmarkRunsTheSameWorkBothWays() {
        RolloutBenchOptions o;
        o.shape = "20m";
        o.device = ModelDevice::Cpu;
        o.dtype = ModelDType::Float32;
        o.rollouts = 6;
        o.batch = 2;
        o.minPromptTokens = 3;
        o.maxPromptTokens = 9;
        o.minAnswerTokens = 4;
        o.maxAnswerTokens = 24;
        o.seed = 5;
        const auto r = runRolloutBenchmark(o);
        const auto budget = r["budget_tokens"].get<std::int64_t>();
        // Random weights never stop: both ways decode every budget to its end.
        QCOMPARE(r["fixed"]["answer_tokens"].get<std::int64_t>(), budget);
        QCOMPARE(r["continuous"]["answer_tokens"].get<std::int64_t>(), budget);
        // A fixed batch waits for its longest answer with rows idle; the pool refills them, so
        // it needs fewer passes, each fuller.
        QVERIFY(r["continuous"]["block_passes"].get<std::int64_t>() <
                r["fixed"]["block_passes"].get<std::int64_t>());
        QVERIFY(r["continuous"]["row_occupancy"].get<double>() >
                r["fixed"]["row_occupancy"].get<double>());
        QVERIFY(r["continuous"]["row_occupancy"].get<double>() <= 1.0);
        // 20m by hand: keys and values x 6 layers x 2 key/value heads x 64 dims x 4 bytes, over
        // 9 + 24 positions rounded up to whole blocks of 4 (36).
        QCOMPARE(r["cache"]["bytes_per_row"].get<std::int64_t>(), std::int64_t(221184));
        // Paged in pages of 32 positions, one page a sequence: a cache of two pages holds the
        // pool's two rows, one of a single page makes each sequence wait for the other. The same
        // answers are decoded either way; the peak is what the pool held at once.
        o.fixed = false;
        o.pageTokens = 32;
        o.cacheTokens = 64;
        const auto paged = runRolloutBenchmark(o);
        QCOMPARE(paged["continuous"]["answer_tokens"].get<std::int64_t>(), budget);
        QCOMPARE(paged["continuous"]["cache_pages"].get<std::int64_t>(), std::int64_t(2));
        QCOMPARE(paged["continuous"]["peak_cache_pages"].get<std::int64_t>(), std::int64_t(2));
        QCOMPARE(paged["continuous"]["block_passes"].get<std::int64_t>(),
                 r["continuous"]["block_passes"].get<std::int64_t>());
        o.cacheTokens = 32;
        const auto waiting = runRolloutBenchmark(o);
        QCOMPARE(waiting["continuous"]["answer_tokens"].get<std::int64_t>(), budget);
        QCOMPARE(waiting["continuous"]["row_occupancy"].get<double>(), 0.5);
        o.pageTokens = 48;
        QVERIFY_THROWS_EXCEPTION(dice::Error, runRolloutBenchmark(o));
        o.pageTokens = 0;
        o.fixed = o.continuous = false;
        QVERIFY_THROWS_EXCEPTION(dice::Error, runRolloutBenchmark(o));
    }

    void roundsFollowTheTrace() {
        // Prompt of 3 tokens, blocks of 4 from position 0: block 0 holds answer[0], block 1
        // answer[1..4], block 2 answer[5].
        TraceRollout r;
        r.prompt = {1, 2, 3};
        r.answer = {10, 11, 12, 13, 14, 15};
        r.commitStep = {1, 5, 4, 5, 6, 8};
        const auto rounds = traceRounds(r, 3, 4);
        QCOMPARE(rounds.size(), std::size_t(3));
        QCOMPARE(rounds[0].targets, (std::vector<std::int64_t>{0, 2, 5}));
        QCOMPARE(rounds[0].masked, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}));
        QCOMPARE(rounds[1].targets, (std::vector<std::int64_t>{1, 3}));
        QCOMPARE(rounds[1].masked, (std::vector<std::int64_t>{1, 3, 4}));
        QCOMPARE(rounds[2].targets, (std::vector<std::int64_t>{4}));
        QCOMPARE(rounds[2].masked, (std::vector<std::int64_t>{4}));
        r.commitStep.pop_back();
        QVERIFY_THROWS_EXCEPTION(Error, traceRounds(r, 3, 4));
    }

    void batchIsTheBlockDiffusionLayout() {
        TraceRollout r;
        r.prompt = {1, 2, 3};
        r.answer = {10, 11, 12, 13, 14, 15};
        r.commitStep = {1, 5, 4, 5, 6, 8};
        r.advantage = 0.5;
        TraceRollout shorter;
        shorter.prompt = {1, 2};
        shorter.answer = {20, 21};
        shorter.commitStep = {0, 0};
        shorter.advantage = -1;
        const auto batch = makeTraceBatch({&r, &shorter}, 4, 99, 0);
        QCOMPARE(batch.rows, std::int64_t(4)); // 3 rounds + 1
        const std::int64_t L = 9;
        QCOMPARE(batch.tokens.size(1), 2 * L);
        // Round 1 of the first rollout: answer[1], [3], [4] masked in the noisy half only.
        const auto row = batch.tokens[1];
        const std::vector<std::int64_t> noisy = {1, 2, 3, 10, 99, 12, 99, 99, 15};
        const std::vector<std::int64_t> clean = {1, 2, 3, 10, 11, 12, 13, 14, 15};
        for (std::int64_t i = 0; i < L; ++i) {
            QCOMPARE(row[i].item<std::int64_t>(), noisy[static_cast<std::size_t>(i)]);
            QCOMPARE(row[L + i].item<std::int64_t>(), clean[static_cast<std::size_t>(i)]);
            QCOMPARE(batch.positions[1][i].item<std::int64_t>(), i);
            QCOMPARE(batch.positions[1][L + i].item<std::int64_t>(), i);
        }
        QVERIFY(torch::equal(batch.mask[1][0], bd3AttentionMask(9, L, 4)));
        QVERIFY(torch::equal(batch.mask[3][0], bd3AttentionMask(4, L, 4)));
        // Targets: 3 + 2 + 1 of the first rollout, 2 of the second.
        QCOMPARE(batch.targetCount, std::int64_t(8));
        QCOMPARE(batch.advantage[0].item<float>(), 0.5f);
        QCOMPARE(batch.advantage[7].item<float>(), -1.0f);
        // Each target weighs 1 / (its answer's length * the batch's rollouts).
        QCOMPARE(batch.normaliser[0].item<float>(), 1.0f / 12.0f);
        QCOMPARE(batch.normaliser[7].item<float>(), 1.0f / 4.0f);
        QCOMPARE(batch.scored[7].item<std::int64_t>(), 3 * 2 * L + 2 + 1);
    }

    void lossIsTheClippedSurrogate() {
        TraceRollout r;
        r.prompt = {1};
        r.answer = {5, 6};
        r.commitStep = {0, 0};
        r.advantage = 2.0;
        const auto batch = makeTraceBatch({&r}, 4, 99, 0);
        const auto old = torch::log(torch::tensor({0.5f, 0.25f}));
        // Unchanged policy: the surrogate is -A per token over the answer's length.
        auto same = old.clone().requires_grad_(true);
        TraceLossOptions o;
        auto l = traceLoss(same, old, batch, o);
        QVERIFY(std::abs(l.policy - (-2.0 * 2 / 2)) < 1e-6);
        QVERIFY(std::abs(l.kl) < 1e-9);
        l.loss.backward();
        // Raising a target's probability lowers the loss when its advantage is positive.
        QVERIFY(same.grad()[0].item<float>() < 0);
        // Past 1 + eps with a positive advantage the surrogate is flat: only the KL term pulls.
        auto far = (old + std::log(1.5)).detach().requires_grad_(true);
        o.klBeta = 0;
        l = traceLoss(far, old, batch, o);
        l.loss.backward();
        QCOMPARE(far.grad().abs().sum().item<float>(), 0.0f);
        QCOMPARE(l.clipped, 1.0);
        // The k3 estimator: exp(-d) - 1 + d.
        o.klBeta = 1;
        const auto moved = (old + 0.3).detach();
        l = traceLoss(moved, old, batch, o);
        QVERIFY(std::abs(l.kl - (std::exp(-0.3) - 1 + 0.3)) < 1e-6);
    }

    void groupsAreStandardised() {
        std::vector<double> advantages;
        std::vector<bool> kept;
        standardiseGroups({1, 0, 1, 0, 1, 1, 1, 1, 0, 0, 0, 3}, 4, advantages, kept);
        QCOMPARE(advantages[0], 1.0);
        QCOMPARE(advantages[1], -1.0);
        QVERIFY(kept[0] && kept[3]);
        // All equal: dropped.
        QVERIFY(!kept[4] && !kept[7]);
        QCOMPARE(advantages[5], 0.0);
        // Population standard deviation: mean 0.75, std sqrt(27/16).
        QVERIFY(std::abs(advantages[11] - (3 - 0.75) / std::sqrt(27.0 / 16.0)) < 1e-12);
    }

    // The heart of TraceRL: the training input of every round puts each committed token in the
    // state the sampler saw when it committed it. With greedy decoding and the raw softmax as the
    // confidence, the sampler reports the probability of each token it commits; the training
    // pass must give the same probability.
    void roundsReproduceTheSamplersView() {
        const ModelConfig config = tinyModelConfig();
        auto model = Qwen3Model::random(config, {}, 11, 0.3);
        SamplerOptions options;
        options.blockLength = 4;
        options.steps = 4;
        options.strategy = RemaskStrategy::LowConfidenceDynamic;
        options.threshold = 0.3;
        options.temperature = 0;
        options.rawConfidence = true;
        options.maxTokens = 14;
        options.maskId = *config.maskTokenId;
        const std::vector<std::vector<std::int64_t>> prompts = {{3, 7, 9, 11, 2}, {5, 6}};
        std::map<std::pair<int, std::int64_t>, float> seen;
        std::vector<GenerationResult> results;
        {
            at::NoGradGuard noGrad;
            Qwen3Network network(*model);
            results = generate(network, prompts, options, [&](const DecodeStep& s) {
                if (s.kind != DecodeStep::Kind::Denoise)
                    return;
                for (std::size_t k = 0; k < s.positions.size(); ++k)
                    seen[{s.sequence, s.positions[k]}] = s.confidences[k];
            });
        }
        // The first prompt's last block runs past the budget: its tail is context to replay.
        QVERIFY(!results[0].tailTokens.empty());
        std::vector<TraceRollout> rollouts(prompts.size());
        std::vector<const TraceRollout*> pointers;
        for (std::size_t i = 0; i < prompts.size(); ++i) {
            rollouts[i] = {prompts[i], results[i].tokens,     results[i].commitStep,
                           1.0,        results[i].tailTokens, results[i].tailCommitStep};
            pointers.push_back(&rollouts[i]);
            QVERIFY(results[i].tokens.size() >= 8);
            // Dynamic decoding commits several tokens in some steps: rounds differ from tokens.
            QVERIFY(
                traceRounds(rollouts[i], static_cast<std::int64_t>(prompts[i].size()), 4).size() <=
                4);
        }
        const auto batch = makeTraceBatch(pointers, 4, *config.maskTokenId, 0);
        at::NoGradGuard noGrad;
        const auto logits = model->forward(batch.tokens, batch.positions, batch.mask, batch.scored);
        const auto probs = torch::exp(targetLogProbs(logits, batch));
        // Map every scored cell back to its rollout and answer position.
        const std::int64_t L = batch.tokens.size(1) / 2;
        std::vector<std::int64_t> rowRollout;
        for (std::size_t i = 0; i < rollouts.size(); ++i)
            for (std::size_t k = 0;
                 k <
                 traceRounds(rollouts[i], static_cast<std::int64_t>(prompts[i].size()), 4).size();
                 ++k)
                rowRollout.push_back(static_cast<std::int64_t>(i));
        QCOMPARE(batch.targetCount,
                 static_cast<std::int64_t>(results[0].tokens.size() + results[1].tokens.size()));
        for (std::int64_t t = 0; t < batch.targetCount; ++t) {
            const std::int64_t cell = batch.scored[t].item<std::int64_t>();
            const std::int64_t row = cell / (2 * L);
            const std::int64_t i = rowRollout[static_cast<std::size_t>(row)];
            const std::int64_t position =
                cell % (2 * L) -
                static_cast<std::int64_t>(prompts[static_cast<std::size_t>(i)].size());
            const float sampler = seen.at({static_cast<int>(i), position});
            QVERIFY2(std::abs(probs[t].item<float>() - sampler) < 1e-4,
                     qPrintable(QString("rollout %1 position %2: training %3, sampler %4")
                                    .arg(i)
                                    .arg(position)
                                    .arg(probs[t].item<float>())
                                    .arg(sampler)));
        }
    }

    void configurationReadsPresetsAndRejectsMistakes() {
        const RlConfig paper = rlConfigFromJson({{"preset", "paper"}, {"output", "run"}});
        QCOMPARE(paper.phases.size(), std::size_t(2));
        QVERIFY(paper.phases[0].kind == RlPhaseKind::Infill);
        QCOMPARE(paper.phases[0].steps, std::int64_t(20));
        QCOMPARE(paper.phases[1].steps, std::int64_t(100));
        QCOMPARE(paper.tasksPerStep, 64);
        QCOMPARE(paper.rolloutsPerTask, 16);
        QCOMPARE(paper.learningRate, 1e-6);
        QCOMPARE(paper.sampler.threshold, 0.9);
        QCOMPARE(paper.accumulation, 32);
        // A file changes a preset's fields, and reads back to itself.
        const RlConfig changed =
            rlConfigFromJson({{"preset", "cpu-demo"}, {"output", "run"}, {"tasks_per_step", 5}});
        QCOMPARE(changed.tasksPerStep, 5);
        QVERIFY(changed.reward.mode == JudgeMode::Compile);
        QCOMPARE(toJson(rlConfigFromJson(toJson(changed))).dump(), toJson(changed).dump());
        // A resolved configuration (a run folder's config.json) reads back, with or without
        // held-out tasks: a run is resumed from it.
        QVERIFY(paper.evalData.tasks.empty());
        QCOMPARE(toJson(rlConfigFromJson(toJson(paper))).dump(), toJson(paper).dump());
        const auto fails = [](const nlohmann::json& j, const std::string& message) {
            try {
                rlConfigFromJson(j);
            } catch (const Error& e) {
                return std::string(e.what()).find(message) != std::string::npos;
            }
            return false;
        };
        QVERIFY(fails({{"phases", nlohmann::json::array()}}, "config.phases must list"));
        QVERIFY(fails({{"phases", {{{"kind", "pretrain"}, {"steps", 1}}}}},
                      "config.phases[0].kind must be"));
        QVERIFY(fails({{"phases", {{{"steps", 1}}}}, {"rollouts_per_task", 1}},
                      "config.rollouts_per_task must be a whole number from 2"));
        QVERIFY(fails({{"phases", {{{"steps", 1}}}}, {"optimiser", {}}},
                      "config.optimiser is not a field here"));
        QVERIFY(fails({{"phases", {{{"steps", 1}}}}, {"device", "tpu"}}, "config.device"));
        QVERIFY(fails({{"preset", "fast"}}, "no RL preset \"fast\""));
        QVERIFY(fails({{"phases", {{{"steps", 1}}}}, {"save_dtype", "float16"}},
                      "config.save_dtype must be \"float32\" or \"bfloat16\""));
        const RlConfig small =
            rlConfigFromJson({{"preset", "cpu-demo"}, {"save_dtype", "bfloat16"}});
        QVERIFY(small.saveDType == ModelDType::BFloat16);
        QVERIFY(changed.saveDType == ModelDType::Float32);
        QCOMPARE(toJson(rlConfigFromJson(toJson(small))).dump(), toJson(small).dump());
        QVERIFY(fails({{"phases", {{{"steps", 1}}}}, {"judge", {{"compile_lookahead", 4097}}}},
                      "config.judge.compile_lookahead"));
        const RlConfig guided =
            rlConfigFromJson({{"preset", "cpu-demo"},
                              {"judge", {{"guided_chunks", true}, {"compile_lookahead", 32}}}});
        QVERIFY(guided.guidedChunks);
        QCOMPARE(guided.compileLookahead, 32);
        QVERIFY(!changed.guidedChunks);
        // The sampler's paged cache: pages of a multiple of 32 positions, a size only with pages.
        const RlConfig paged = rlConfigFromJson(
            {{"preset", "cpu-demo"}, {"rollout", {{"page_tokens", 64}, {"cache_tokens", 4096}}}});
        QCOMPARE(paged.rolloutPageTokens, std::int64_t(64));
        QCOMPARE(paged.rolloutCacheTokens, std::int64_t(4096));
        QCOMPARE(toJson(rlConfigFromJson(toJson(paged))).dump(), toJson(paged).dump());
        QCOMPARE(changed.rolloutPageTokens, std::int64_t(0));
        QVERIFY(fails({{"phases", {{{"steps", 1}}}}, {"rollout", {{"page_tokens", 48}}}},
                      "config.rollout.page_tokens must be a multiple of 32"));
        QVERIFY(fails({{"phases", {{{"steps", 1}}}}, {"rollout", {{"cache_tokens", 4096}}}},
                      "config.rollout.cache_tokens is for a paged cache"));
        // The update's attention in chunks of queries: a count, off by default.
        const RlConfig chunked =
            rlConfigFromJson({{"preset", "cpu-demo"}, {"optimizer", {{"attention_chunk", 256}}}});
        QCOMPARE(chunked.attentionChunk, std::int64_t(256));
        QCOMPARE(toJson(rlConfigFromJson(toJson(chunked))).dump(), toJson(chunked).dump());
        QCOMPARE(paper.attentionChunk, std::int64_t(0));
        QCOMPARE(changed.attentionChunk, std::int64_t(64));
        QVERIFY(fails({{"phases", {{{"steps", 1}}}}, {"optimizer", {{"attention_chunk", -1}}}},
                      "config.optimizer.attention_chunk"));
        // No step and nothing to evaluate is a mistake; no step with an evaluation scores a model.
        QVERIFY(fails({{"phases", {{{"steps", 0}}}}}, "config.phases have no step to run"));
        const RlConfig scoring = rlConfigFromJson(
            {{"phases", {{{"steps", 0}}}}, {"eval", {{"every", 1}, {"data", "builtin"}}}});
        QCOMPARE(scoring.totalSteps(), std::int64_t(0));
        // A configuration nested far deeper than any is refused before it is copied, which
        // exhausted the stack (dice train rl --config crashed with a segmentation fault).
        std::string deep;
        for (int i = 0; i < 200000; ++i)
            deep += '[';
        deep += std::string(200000, ']');
        const nlohmann::json nested =
            nlohmann::json::parse("{\"phases\":[{\"steps\":1}],\"reward\":{\"x\":" + deep + "}}");
        QVERIFY(fails(nested, "RL configuration: nests arrays and objects deeper than 64 levels"));
        QVERIFY(jsonNestingDepth(toJson(paper), 64) <= 64);
    }

    void schedulesTakeEasyTasksFirst() {
        RlData data;
        const RlTaskPool pool = RlTaskPool::load(data);
        QVERIFY(pool.tasks().size() > 20);
        for (std::size_t i = 1; i < pool.tasks().size(); ++i)
            QVERIFY(pool.tasks()[i - 1].task.level <= pool.tasks()[i].task.level);
        std::vector<std::size_t> all(pool.tasks().size());
        std::iota(all.begin(), all.end(), std::size_t(0));
        const std::map<std::string, RlTaskRecord> none;
        const auto first = scheduleStep(RlSchedule::Sequential, pool, all, 5, 0, none, 1);
        QCOMPARE(first, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
        const auto wrap = scheduleStep(RlSchedule::Sequential, pool, all, 5,
                                       static_cast<std::int64_t>(pool.tasks().size()), none, 1);
        QCOMPARE(wrap[0], 5 * pool.tasks().size() % pool.tasks().size());
        // Adaptive: a task whose answers are all correct is drawn far less than an unsure one.
        std::map<std::string, RlTaskRecord> records;
        records[pool.tasks()[0].task.name] = {40, 40, 40};
        records[pool.tasks()[1].task.name] = {40, 20, 20};
        const std::vector<std::size_t> two = {0, 1};
        int unsure = 0;
        for (int step = 0; step < 200; ++step)
            unsure += scheduleStep(RlSchedule::Adaptive, pool, two, 1, step, records, 3)[0] == 1;
        QVERIFY2(unsure > 150, qPrintable(QString::number(unsure)));
        const auto distinct = scheduleStep(RlSchedule::Adaptive, pool, all, 10, 0, none, 3);
        QCOMPARE(std::set<std::size_t>(distinct.begin(), distinct.end()).size(), std::size_t(10));
    }

    void promptsAndCandidatesOfBothPhases() {
        RlData data;
        data.limit = 8;
        const RlTaskPool pool = RlTaskPool::load(data);
        const auto infillable = pool.infillable();
        QVERIFY(!infillable.empty());
        const std::size_t t = infillable.front();
        const RlPrompt infill = pool.prompt(t, RlPhaseKind::Infill, 0);
        QVERIFY(infill.text.find("{{hole:" + infill.hole + "}}") != std::string::npos);
        // The reference's own body makes the reference again.
        const auto skeleton = makeSkeleton(pool.tasks()[t].solution);
        QVERIFY(skeleton.has_value());
        QCOMPARE(pool.candidate(infill, skeleton->bodies.front()), pool.tasks()[t].solution);
        const RlPrompt whole = pool.prompt(t, RlPhaseKind::EndToEnd, 0);
        QVERIFY(whole.skeleton.empty());
        QCOMPARE(pool.candidate(whole, "Here it is:\n```cuda\nCODE\n```\n<|im_end|>"),
                 std::string("CODE"));
    }

    // A whole run on the CPU with the embedded model, judged by compiling: the run folder holds
    // what docs/rl.md says, a STOP file ends a run with a checkpoint, and it resumes from there.
    void runFolderIsTheContract() {
        const TemporaryFolder work("dice-rl-test");
        nlohmann::json json = {
            {"model", "embedded"},
            {"output", work.path() + "/run"},
            {"seed", 3},
            {"threads", 2},
            {"phases",
             {{{"kind", "infill"}, {"steps", 2}, {"data", {{"tasks", "builtin"}, {"limit", 4}}}}}},
            {"tasks_per_step", 1},
            {"rollouts_per_task", 4},
            {"rollout", {{"max_tokens", 96}, {"batch", 4}}},
            {"reward", {{"mode", "compile"}}},
            {"judge", {{"compile_threads", 2}}},
            // The update's masked attention in chunks of queries, as a GPU run may have it.
            {"optimizer",
             {{"learning_rate", 1e-5},
              {"micro_batch", 2},
              {"accumulation", 2},
              {"attention_chunk", 64}}},
            {"eval", {{"every", 0}}},
            {"save_every", 1}};
        const RlReport first = trainRl(rlConfigFromJson(json), judged());
        QVERIFY(!first.stopped);
        QCOMPARE(first.steps, std::int64_t(2));
        const std::filesystem::path run = work.path() + "/run";
        QVERIFY(std::filesystem::exists(run / "config.json"));
        QVERIFY(std::filesystem::exists(run / "model" / "model.safetensors"));
        const auto status = nlohmann::json::parse(readTextFile((run / "status.json").string()));
        QCOMPARE(status.value("state", std::string()), std::string("finished"));
        auto metrics = readLines((run / "metrics.jsonl").string());
        QCOMPARE(metrics.size(), std::size_t(2));
        for (const char* key :
             {"mean_reward", "reward_std", "levels", "correct", "groups_kept", "loss_policy", "kl",
              "entropy", "answer_tokens", "sample_seconds", "judge_seconds", "update_seconds"})
            QVERIFY2(metrics[0].contains(key), key);
        for (const auto& m : metrics) {
            QCOMPARE(m["levels"]["1"]["rollouts"].get<int>(), 4);
            // A policy over a vocabulary of thousands is never certain of every target, and never
            // more uncertain than the uniform distribution over it.
            if (m["rollouts_kept"].get<int>() > 0)
                QVERIFY(m["entropy"].get<double>() > 0 && m["entropy"].get<double>() < 12.0);
        }
        const auto rollouts = readLines((run / "rollouts" / "1.jsonl").string());
        QCOMPARE(rollouts.size(), std::size_t(4));
        for (const auto& r : rollouts) {
            QCOMPARE(r["tokens"].size(), r["commit_step"].size());
            QVERIFY(r["candidate"].get<std::string>().find("#pragma dice device") !=
                    std::string::npos);
            QVERIFY(r.contains("hole") && r.contains("verdict") && r.contains("advantage"));
            QVERIFY(r["prompt_tokens"].get<int>() > 0);
            // Judged for real: the worker ran (compile only, there is no GPU here).
            QVERIFY2(r["message"].get<std::string>().find("could not start") == std::string::npos,
                     r["message"].get<std::string>().c_str());
        }
        // A stop file: the run ends before its next step, with a checkpoint to resume from.
        json["phases"][0]["steps"] = 3;
        std::ofstream((run / "STOP").string()) << "\n";
        const RlReport stopped = trainRl(rlConfigFromJson(json), judged());
        QVERIFY(stopped.stopped);
        QCOMPARE(stopped.stopReason, std::string("stopped"));
        QCOMPARE(stopped.steps, std::int64_t(2));
        std::filesystem::remove(run / "STOP");
        const auto savedDType = [](const std::filesystem::path& folder) {
            return nlohmann::json::parse(readTextFile((folder / "config.json").string()))
                .value("torch_dtype", std::string());
        };
        QCOMPARE(savedDType(run / "model"), std::string("float32"));
        // The final model may be saved in bf16; checkpoints keep the fp32 master weights.
        json["save_dtype"] = "bfloat16";
        const RlReport resumed = trainRl(rlConfigFromJson(json), judged());
        QCOMPARE(savedDType(run / "model"), std::string("bfloat16"));
        QCOMPARE(savedDType(listCheckpoints(run).back().folder), std::string("float32"));
        QCOMPARE(resumed.firstStep, std::int64_t(2));
        QCOMPARE(resumed.steps, std::int64_t(3));
        metrics = readLines((run / "metrics.jsonl").string());
        QCOMPARE(metrics.size(), std::size_t(3));
        QCOMPARE(metrics.back()["step"].get<int>(), 3);

        // A checkpoint of an earlier version (LibTorch's optimiser archive) is refused with what
        // to do instead, not with a missing file.
        const auto newest = listCheckpoints(run).back().folder;
        std::filesystem::rename(newest / "optimizer.safetensors", newest / "optimizer.pt");
        json["phases"][0]["steps"] = 4;
        try {
            trainRl(rlConfigFromJson(json), judged());
            QFAIL("resumed from a checkpoint without its optimiser state");
        } catch (const FileError& e) {
            QVERIFY2(std::string(e.what()).find("earlier version") != std::string::npos, e.what());
        }
        std::filesystem::rename(newest / "optimizer.pt", newest / "optimizer.safetensors");

        // A run of no step scores a checkpoint: one evaluation, and no model written again.
        const nlohmann::json scoring = {
            {"model", (run / "checkpoints" / "step-00000003").string()},
            {"output", work.path() + "/score"},
            {"threads", 2},
            {"phases", {{{"kind", "end_to_end"}, {"steps", 0}}}},
            {"reward", {{"mode", "compile"}}},
            {"eval",
             {{"every", 1}, {"max_tokens", 48}, {"data", {{"tasks", "builtin"}, {"limit", 2}}}}}};
        const RlReport scored = trainRl(rlConfigFromJson(scoring), judged());
        QCOMPARE(scored.steps, std::int64_t(0));
        const auto evaluations = readLines(work.path() + "/score/eval.jsonl");
        QCOMPARE(evaluations.size(), std::size_t(1));
        QCOMPARE(evaluations[0]["tasks"].get<int>(), 2);
        QVERIFY(!std::filesystem::exists(work.path() + "/score/model"));
    }
};

QTEST_GUILESS_MAIN(TestRl)
#include "tst_rl.moc"
