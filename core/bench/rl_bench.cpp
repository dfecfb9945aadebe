// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/bench/rl_bench.h"

#include "core/bench/model_bench.h"
#include "core/bench/reward_bench.h"
#include "core/common/error.h"
#include "core/diffusion/qwen3_network.h"
#include "core/diffusion/sdar_sampler.h"
#include "core/distributed/sharded_adamw.h"
#include "core/model/cpu_threads.h"
#include "core/model/device_memory.h"
#include "core/train/trace_update.h"
#include "core/train/train_common.h"

#include <random>

namespace dice {

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
        o.rolloutBatch < 1 || o.microBatch < 1 || o.accumulation < 1)
        throw Error("dice bench rl: tasks, prompt and answer lengths and batches must be positive, "
                    "and a group needs two rollouts at least");
    setCpuThreads(o.cpuThreads);
    const bool cuda = o.device == ModelDevice::Cuda;
    const ModelConfig config = benchmarkShape(o.shape);
    ModelPlacement placement;
    placement.device = o.device;
    // As the trainer: float32 master weights, bfloat16 autocast on the GPU.
    placement.dtype = ModelDType::Float32;
    say("building " + o.shape + " (" + std::to_string(config.parameterCount()) +
        " parameters) in float32");
    if (cuda)
        resetPeakDeviceMemory(0);
    auto model = Qwen3Model::random(config, placement, o.seed);
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
    std::vector<GenerationResult> results;
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
        results = generate(network, prompts, sampler);
    }
    const double sampleSeconds = secondsSince(start);
    std::int64_t answerTokens = 0, passes = 0;
    for (const auto& r : results) {
        answerTokens += static_cast<std::int64_t>(r.tokens.size());
        passes += r.forwardPasses;
    }
    const std::int64_t samplePeak = cuda ? peakDeviceMemory(0) : 0;
    say("sampled " + std::to_string(answerTokens) + " tokens in " + std::to_string(sampleSeconds) +
        " s");

    nlohmann::json reward;
    if (o.reward) {
        // As the trainer: the sampler's cached blocks go back to the driver for the workers.
        releaseCachedDeviceMemory();
        RewardBenchOptions judging;
        judging.candidates = o.tasks * o.rolloutsPerTask;
        judging.checkAlone = false;
        judging.service.evaluator.devices.assign(static_cast<std::size_t>(o.rewardWorkers), 0);
        judging.service.evaluator.compileTimeoutMs = 30000;
        say("judging " + std::to_string(judging.candidates) + " candidates");
        const nlohmann::json r = runRewardBenchmark(judging, progress);
        reward = {{"candidates", r.value("candidates", 0)},
                  {"wall_seconds", r.value("wall_seconds", 0.0)},
                  {"workers", o.rewardWorkers},
                  {"verdicts_by_kind", r.value("verdicts_by_kind", nlohmann::json::object())}};
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
        resetPeakDeviceMemory(0);
    for (auto& p : model->parameters())
        p.requires_grad_(true);
    ShardedAdamW optimizer(model->parameters(), AdamWSettings{}, nullptr);
    TraceUpdateOptions update;
    update.microBatch = o.microBatch;
    update.accumulation = o.accumulation;
    update.blockLength = sampler.blockLength;
    update.maskId = maskId;
    update.padId = 0;
    update.vocabLimit = maskId;
    update.autocast = cuda;
    model->setGradientCheckpointing(o.gradientCheckpointing);
    say("updating over " + std::to_string(traces.size()) + " rollouts, " +
        std::to_string(o.microBatch) + " a pass");
    const TraceUpdateStats u = traceRlUpdate(*model, optimizer, traces, update);
    const std::int64_t updatePeak = cuda ? peakDeviceMemory(0) : 0;

    // Every micro-batch's rows share one padded length.
    const std::int64_t length = u.rows > 0 ? u.inputTokens / u.rows : 0;
    const double fwd = forwardFlops(config, u.rows, length, u.targets);
    const double oldTflops = fwd / std::max(u.oldPolicySeconds, 1e-9) / 1e12;
    const double updateTflops = 3.0 * fwd / std::max(u.updateSeconds, 1e-9) / 1e12;
    const double allTflops =
        4.0 * fwd / std::max(u.oldPolicySeconds + u.updateSeconds, 1e-9) / 1e12;
    const double rewardSeconds = reward.is_null() ? 0.0 : reward.value("wall_seconds", 0.0);
    const double stepSeconds = sampleSeconds + rewardSeconds + u.oldPolicySeconds + u.updateSeconds;
    return {{"shape", o.shape},
            {"parameters", config.parameterCount()},
            {"device", cuda ? "cuda" : "cpu"},
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
              {"mfu", allTflops / o.peakTflops},
              {"peak_memory_bytes", updatePeak}}},
            {"step_seconds", stepSeconds}};
}

} // namespace dice
