// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/bench/rl_bench.h"

#include "core/bench/model_bench.h"
#include "core/bench/reward_bench.h"
#include "core/common/error.h"
#include "core/diffusion/qwen3_network.h"
#include "core/diffusion/sdar_sampler.h"
#include "core/distributed/communicator.h"
#include "core/distributed/gradient_buckets.h"
#include "core/distributed/rank_environment.h"
#include "core/distributed/sharded_adamw.h"
#include "core/model/cpu_threads.h"
#include "core/model/device_memory.h"
#include "core/train/trace_update.h"
#include "core/train/train_common.h"

#include <algorithm>
#include <random>

namespace dice {

namespace {

// Each rank's numbers, rank by rank (one rank: its own).
std::vector<std::vector<double>> gatherNumbers(Communicator* comm,
                                               const std::vector<double>& mine) {
    if (!comm)
        return {mine};
    std::vector<std::vector<double>> all;
    for (const std::string& text : comm->allGatherText(nlohmann::json(mine).dump()))
        all.push_back(nlohmann::json::parse(text).get<std::vector<double>>());
    return all;
}

// The largest of each number over the ranks: a step waits for its slowest rank.
std::vector<double> largest(Communicator* comm, const std::vector<double>& mine) {
    std::vector<double> out = mine;
    for (const auto& theirs : gatherNumbers(comm, mine))
        for (std::size_t i = 0; i < out.size(); ++i)
            out[i] = std::max(out[i], theirs[i]);
    return out;
}

double total(Communicator* comm, double mine) {
    double sum = 0;
    for (const auto& theirs : gatherNumbers(comm, {mine}))
        sum += theirs[0];
    return sum;
}

} // namespace

double forwardFlops(const ModelConfig& config, std::int64_t rows, std::int64_t length,
                    std::int64_t scored) {
    const double head = static_cast<double>(config.vocabSize) * config.hiddenSize;
    // The embedding and, untied, the output head: neither is a per-token matrix of the layers.
    const double layers = static_cast<double>(config.parameterCount()) - head -
                          (config.tieWordEmbeddings ? 0.0 : head);
    const double tokens = static_cast<double>(rows) * length;
    const double attention = 4.0 * config.numLayers * config.numHeads * config.headDim *
                             static_cast<double>(length) * length * rows;
    return 2.0 * layers * tokens + 2.0 * head * static_cast<double>(scored) + attention;
}

nlohmann::json runRlBenchmark(const RlBenchOptions& o, const RlBenchProgress& progress) {
    const auto say = [&](const std::string& line) {
        if (progress)
            progress(line);
    };
    if (o.tasks < 1 || o.rolloutsPerTask < 2 || o.promptTokens < 1 || o.maxTokens < 1 ||
        o.rolloutBatch < 1 || o.microBatch < 1 || o.accumulation < 1 || o.attentionChunk < 0)
        throw Error("dice bench rl: tasks, prompt and answer lengths and batches must be positive, "
                    "a group needs two rollouts at least, and an attention chunk is not negative");
    setCpuThreads(o.cpuThreads);
    const bool cuda = o.device == ModelDevice::Cuda;
    const ModelConfig config = benchmarkShape(o.shape);
    // Several ranks (docs/distributed.md): each on its own GPU, the step's tasks split as the
    // trainer splits them.
    const RankEnvironment env = rankEnvironment();
    const int gpu = cuda && env.present ? env.localRank : 0;
    std::unique_ptr<Communicator> comm;
    if (env.present)
        comm =
            Communicator::connect(env,
                                  cuda ? c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(gpu))
                                       : c10::Device(c10::kCPU),
                                  std::chrono::seconds(1800));
    const int rank = comm ? comm->rank() : 0;
    const int ranks = comm ? comm->size() : 1;
    ModelPlacement placement;
    placement.device = o.device;
    placement.deviceIndex = gpu;
    // As the trainer: float32 master weights, bfloat16 autocast on the GPU.
    placement.dtype = ModelDType::Float32;
    say("building " + o.shape + " (" + std::to_string(config.parameterCount()) +
        " parameters) in float32");
    if (cuda)
        resetPeakDeviceMemory(gpu);
    auto model = Qwen3Model::random(config, placement, o.seed);
    if (comm) {
        at::NoGradGuard noGrad;
        for (auto& p : model->parameters())
            comm->broadcast(p, 0);
    }
    const std::int64_t maskId = config.maskTokenId.value_or(config.vocabSize - 1);

    // Prompts of random ordinary tokens, each asked rolloutsPerTask times.
    std::mt19937_64 random(o.seed);
    std::uniform_int_distribution<std::int64_t> token(0,
                                                      std::min<std::int64_t>(maskId, 151643) - 1);
    std::vector<std::vector<std::int64_t>> prompts;
    for (int t = 0; t < o.tasks; ++t) {
        std::vector<std::int64_t> ids(static_cast<std::size_t>(o.promptTokens));
        for (auto& id : ids)
            id = token(random);
        for (int g = 0; g < o.rolloutsPerTask; ++g)
            prompts.push_back(ids);
    }

    // Sampling, with the RL rollouts' settings.
    SamplerOptions sampler;
    sampler.maxTokens = o.maxTokens;
    sampler.maskId = maskId;
    sampler.vocabLimit = maskId;
    say("sampling " + std::to_string(prompts.size()) + " rollouts of up to " +
        std::to_string(o.maxTokens) + " tokens, " + std::to_string(o.rolloutBatch) + " at a time");
    const std::size_t group = static_cast<std::size_t>(o.rolloutsPerTask);
    const std::size_t firstTask = static_cast<std::size_t>(o.tasks) * rank / ranks;
    const std::size_t endTask = static_cast<std::size_t>(o.tasks) * (rank + 1) / ranks;
    const std::vector<std::vector<std::int64_t>> share(prompts.begin() + firstTask * group,
                                                       prompts.begin() + endTask * group);
    std::vector<GenerationResult> results;
    if (comm)
        comm->barrier();
    auto start = TrainClock::now();
    // As the trainer: a bfloat16 copy of the weights samples on the GPU.
    std::unique_ptr<Qwen3Model> samplingCopy;
    if (cuda)
        samplingCopy = model->copyAs(ModelDType::BFloat16);
    {
        at::NoGradGuard noGrad;
        Qwen3Network network(samplingCopy ? *samplingCopy : *model);
        // As the trainer: a pool of rolloutBatch rows refilled as sequences finish.
        sampler.maxActive = o.rolloutBatch;
        sampler.seed = o.seed;
        sampler.firstSequence = firstTask * group;
        results = generate(network, share, sampler);
    }
    double sampleSeconds = secondsSince(start);
    double answerTokensHere = 0, passesHere = 0;
    for (const auto& r : results) {
        answerTokensHere += static_cast<double>(r.tokens.size());
        passesHere += static_cast<double>(r.forwardPasses);
    }
    const auto answerTokens = static_cast<std::int64_t>(total(comm.get(), answerTokensHere));
    const auto passes = static_cast<std::int64_t>(total(comm.get(), passesHere));
    const std::int64_t samplePeak = static_cast<std::int64_t>(
        largest(comm.get(), {cuda ? static_cast<double>(peakDeviceMemory(gpu)) : 0.0})[0]);
    sampleSeconds = largest(comm.get(), {sampleSeconds})[0];
    say("sampled " + std::to_string(answerTokens) + " tokens in " + std::to_string(sampleSeconds) +
        " s");

    nlohmann::json reward;
    if (o.reward) {
        // As the trainer: the sampler's cached blocks go back to the driver for the workers.
        releaseCachedDeviceMemory();
        RewardBenchOptions judging;
        judging.candidates = static_cast<int>(share.size());
        judging.checkAlone = false;
        judging.seed = o.seed + static_cast<std::uint64_t>(rank);
        judging.service.evaluator.devices.assign(static_cast<std::size_t>(o.rewardWorkers), gpu);
        judging.service.evaluator.compileTimeoutMs = 30000;
        say("judging " + std::to_string(judging.candidates) + " candidates");
        const nlohmann::json r = runRewardBenchmark(judging, progress);
        reward = {{"candidates", total(comm.get(), r.value("candidates", 0))},
                  {"wall_seconds", largest(comm.get(), {r.value("wall_seconds", 0.0)})[0]},
                  {"workers", o.rewardWorkers},
                  {"verdicts_by_kind", r.value("verdicts_by_kind", nlohmann::json::object())}};
        if (ranks > 1)
            reward["verdicts_by_kind_of"] = "rank 0";
    }

    // Every rank updates over every rollout: the shares are put together.
    if (comm) {
        nlohmann::json mine = nlohmann::json::array();
        for (const auto& r : results)
            mine.push_back({r.tokens, r.commitStep, r.tailTokens, r.tailCommitStep});
        results.clear();
        for (const std::string& text : comm->allGatherText(mine.dump()))
            for (const auto& r : nlohmann::json::parse(text)) {
                GenerationResult g;
                g.tokens = r[0].get<std::vector<std::int64_t>>();
                g.commitStep = r[1].get<std::vector<std::int64_t>>();
                g.tailTokens = r[2].get<std::vector<std::int64_t>>();
                g.tailCommitStep = r[3].get<std::vector<std::int64_t>>();
                results.push_back(std::move(g));
            }
    }

    // TraceRL over every rollout: advantages of alternating sign keep every group.
    std::vector<TraceRollout> traces;
    for (std::size_t i = 0; i < results.size(); ++i)
        traces.push_back({prompts[i], results[i].tokens, results[i].commitStep,
                          i % 2 == 0 ? 1.0 : -1.0, results[i].tailTokens,
                          results[i].tailCommitStep});
    results.clear();
    samplingCopy.reset();
    if (cuda)
        resetPeakDeviceMemory(gpu);
    for (auto& p : model->parameters())
        p.requires_grad_(true);
    ShardedAdamW optimizer(model->parameters(), AdamWSettings{}, comm.get());
    std::unique_ptr<GradientBuckets> buckets;
    if (comm)
        buckets =
            std::make_unique<GradientBuckets>(model->parameters(), *comm, std::int64_t(25) << 20);
    TraceUpdateOptions update;
    update.microBatch = o.microBatch;
    update.accumulation = o.accumulation;
    update.blockLength = sampler.blockLength;
    update.maskId = maskId;
    update.padId = 0;
    update.vocabLimit = maskId;
    update.autocast = cuda;
    update.communicator = comm.get();
    update.buckets = buckets.get();
    model->setGradientCheckpointing(o.gradientCheckpointing);
    model->setMaskedAttentionChunk(o.attentionChunk);
    say("updating over " + std::to_string(traces.size()) + " rollouts, " +
        std::to_string(o.microBatch) + " a pass");
    if (comm)
        comm->barrier();
    TraceUpdateStats u = traceRlUpdate(*model, optimizer, traces, update);
    const auto slowest =
        largest(comm.get(), {u.oldPolicySeconds, u.updateSeconds,
                             cuda ? static_cast<double>(peakDeviceMemory(gpu)) : 0.0});
    u.oldPolicySeconds = slowest[0];
    u.updateSeconds = slowest[1];
    const auto updatePeak = static_cast<std::int64_t>(slowest[2]);

    // Every micro-batch's rows share one padded length.
    const std::int64_t length = u.rows > 0 ? u.inputTokens / u.rows : 0;
    const double fwd = forwardFlops(config, u.rows, length, u.targets);
    const double oldTflops = fwd / std::max(u.oldPolicySeconds, 1e-9) / 1e12;
    const double updateTflops = 3.0 * fwd / std::max(u.updateSeconds, 1e-9) / 1e12;
    const double allTflops =
        4.0 * fwd / std::max(u.oldPolicySeconds + u.updateSeconds, 1e-9) / 1e12;
    // Utilisation per GPU: the ranks share the work, each at most at the peak.
    const double mfu = allTflops / (o.peakTflops * ranks);
    const double rewardSeconds = reward.is_null() ? 0.0 : reward.value("wall_seconds", 0.0);
    const double stepSeconds = sampleSeconds + rewardSeconds + u.oldPolicySeconds + u.updateSeconds;
    return {{"shape", o.shape},
            {"parameters", config.parameterCount()},
            {"device", cuda ? "cuda" : "cpu"},
            {"ranks", ranks},
            {"collective", comm ? comm->backend() : std::string()},
            {"tasks", o.tasks},
            {"rollouts_per_task", o.rolloutsPerTask},
            {"rollouts", o.tasks * o.rolloutsPerTask},
            {"prompt_tokens", o.promptTokens},
            {"max_tokens", o.maxTokens},
            {"sampling",
             {{"seconds", sampleSeconds},
              {"answer_tokens", answerTokens},
              {"tokens_per_second", answerTokens / std::max(sampleSeconds, 1e-9)},
              {"forward_passes", passes},
              {"batch", o.rolloutBatch},
              {"peak_memory_bytes", samplePeak}}},
            {"reward", reward},
            {"update",
             {{"old_policy_seconds", u.oldPolicySeconds},
              {"update_seconds", u.updateSeconds},
              {"micro_batch", o.microBatch},
              {"accumulation", o.accumulation},
              {"gradient_checkpointing", o.gradientCheckpointing},
              {"attention_chunk", o.attentionChunk},
              {"micro_batches", u.microBatches},
              {"optimizer_steps", u.optimizerSteps},
              {"rows", u.rows},
              {"row_length", length},
              {"targets", u.targets},
              {"forward_tflop", fwd / 1e12},
              {"old_policy_tflops", oldTflops},
              {"update_tflops", updateTflops},
              {"tflops", allTflops},
              {"peak_tflops", o.peakTflops},
              {"mfu", mfu},
              {"buckets_overlapped_rank0", u.bucketsOverlapped},
              {"peak_memory_bytes", updatePeak}}},
            {"step_seconds", stepSeconds}};
}

} // namespace dice
