// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/bench/rollout_bench.h"

#include "core/bench/model_bench.h"
#include "core/common/error.h"
#include "core/diffusion/qwen3_network.h"
#include "core/diffusion/sdar_sampler.h"
#include "core/model/cpu_threads.h"
#include "core/model/device_memory.h"
#include "core/train/train_common.h"

#include <algorithm>
#include <random>

namespace dice {

namespace {

// The model's network, counting its passes and the rows they carried: how full the batch was.
class CountingNetwork : public DiffusionNetwork {
public:
    CountingNetwork(Qwen3Model& model, const CachePaging& paging)
        : m_inner(model, paging) {}
    std::int64_t logitsWidth() const override { return m_inner.logitsWidth(); }
    void allocate(std::int64_t rows, std::int64_t capacity) override {
        m_inner.allocate(rows, capacity);
    }
    void prefill(const at::Tensor& tokens, const std::vector<std::int64_t>& lengths,
                 std::int64_t blockLength, std::int64_t firstRow) override {
        ++prefills;
        m_inner.prefill(tokens, lengths, blockLength, firstRow);
    }
    at::Tensor blockPass(const at::Tensor& tokens, const std::vector<std::uint8_t>& commit,
                         bool wantLogits) override {
        ++passes;
        rows += tokens.size(0);
        return m_inner.blockPass(tokens, commit, wantLogits);
    }
    void moveRow(std::int64_t from, std::int64_t to) override { m_inner.moveRow(from, to); }
    bool admits(std::int64_t tokens) const override { return m_inner.admits(tokens); }
    void reserve(std::int64_t row, std::int64_t tokens) override { m_inner.reserve(row, tokens); }
    void release(std::int64_t row) override { m_inner.release(row); }

    std::int64_t prefills = 0;
    std::int64_t passes = 0;
    std::int64_t rows = 0;

private:
    Qwen3Network m_inner;
};

} // namespace

std::int64_t cacheBytesPerSequence(const ModelConfig& config, std::int64_t tokens,
                                   ModelDType dtype) {
    return 2 * config.numLayers * config.numKvHeads * config.headDim * tokens * elementBytes(dtype);
}

nlohmann::json runRolloutBenchmark(const RolloutBenchOptions& o,
                                   const RolloutBenchProgress& progress) {
    const auto say = [&](const std::string& line) {
        if (progress)
            progress(line);
    };
    if (o.rollouts < 1 || o.batch < 1 || o.minPromptTokens < 0 ||
        o.maxPromptTokens < o.minPromptTokens || o.minAnswerTokens < 1 ||
        o.maxAnswerTokens < o.minAnswerTokens || !(o.memoryGb > 0))
        throw Error("dice bench rollout: rollouts and batch must be positive, each range's "
                    "least no more than its most, and answers at least one token long");
    if (!o.fixed && !o.continuous)
        throw Error("dice bench rollout: nothing to run (fixed batches and the pool both off)");
    if (o.pageTokens < 0 || o.pageTokens % 32 != 0 || o.cacheTokens < 0 ||
        (o.cacheTokens > 0 && o.pageTokens == 0))
        throw Error("dice bench rollout: pages hold a multiple of 32 positions, and a cache's "
                    "positions are given for a paged cache only");
    setCpuThreads(o.cpuThreads);
    const bool cuda = o.device == ModelDevice::Cuda;
    const ModelConfig config = benchmarkShape(o.shape);
    ModelPlacement placement;
    placement.device = o.device;
    placement.dtype = o.dtype;
    say("building " + o.shape + " in " + toString(o.dtype));
    auto model = Qwen3Model::random(config, placement, o.seed);
    const std::int64_t maskId = config.maskTokenId.value_or(config.vocabSize - 1);

    // Lengths by a seeded schedule, uniform over each range; prompts of ordinary tokens.
    std::mt19937_64 random(o.seed);
    std::uniform_int_distribution<std::int64_t> token(0,
                                                      std::min<std::int64_t>(maskId, 151643) - 1);
    std::uniform_int_distribution<std::int64_t> promptLength(o.minPromptTokens, o.maxPromptTokens);
    std::uniform_int_distribution<std::int64_t> answerLength(o.minAnswerTokens, o.maxAnswerTokens);
    std::vector<std::vector<std::int64_t>> prompts;
    std::vector<std::int64_t> budgets;
    std::int64_t budgetTokens = 0;
    // Positions each sequence's cache needs: prompt and budget in whole blocks of 4.
    std::int64_t sequenceTokens = 0;
    for (int i = 0; i < o.rollouts; ++i) {
        std::vector<std::int64_t> ids(static_cast<std::size_t>(promptLength(random)));
        for (auto& id : ids)
            id = token(random);
        prompts.push_back(std::move(ids));
        budgets.push_back(answerLength(random));
        budgetTokens += budgets.back();
        sequenceTokens +=
            (static_cast<std::int64_t>(prompts.back().size()) + budgets.back() + 3) / 4 * 4;
    }

    SamplerOptions sampler;
    sampler.temperature = 1.0;
    sampler.strategy = RemaskStrategy::LowConfidenceDynamic;
    sampler.threshold = 0.9;
    sampler.blockLength = 4;
    sampler.steps = 4;
    sampler.maskId = maskId;
    sampler.vocabLimit = maskId;
    sampler.seed = o.seed;
    sampler.fusedSampling = o.fusedSampling;

    CachePaging paging;
    paging.pageTokens = o.pageTokens;
    paging.tokens = o.cacheTokens;
    const auto run = [&](bool pool) {
        say(std::string(pool ? "continuous batching" : "fixed batches") + ": " +
            std::to_string(o.rollouts) + " rollouts, " + std::to_string(o.batch) + " rows");
        if (cuda)
            resetPeakDeviceMemory(0);
        CountingNetwork network(*model, paging);
        std::int64_t answerTokens = 0, sequencePasses = 0;
        const auto start = TrainClock::now();
        const auto count = [&](const std::vector<GenerationResult>& results) {
            for (const auto& r : results) {
                answerTokens += static_cast<std::int64_t>(r.tokens.size());
                sequencePasses += r.forwardPasses;
            }
        };
        if (pool) {
            SamplerOptions s = sampler;
            s.budgets = budgets;
            s.maxActive = o.batch;
            count(generate(network, prompts, s));
        } else {
            const auto b = static_cast<std::size_t>(o.batch);
            for (std::size_t at = 0; at < prompts.size(); at += b) {
                const std::size_t end = std::min(prompts.size(), at + b);
                SamplerOptions s = sampler;
                s.budgets.assign(budgets.begin() + static_cast<std::ptrdiff_t>(at),
                                 budgets.begin() + static_cast<std::ptrdiff_t>(end));
                s.seed = sampler.seed + at;
                count(generate(network,
                               {prompts.begin() + static_cast<std::ptrdiff_t>(at),
                                prompts.begin() + static_cast<std::ptrdiff_t>(end)},
                               s));
            }
        }
        const double seconds = secondsSince(start);
        const double passes = static_cast<double>(std::max<std::int64_t>(1, network.passes));
        return nlohmann::json{
            {"seconds", seconds},
            {"answer_tokens", answerTokens},
            {"tokens_per_second", static_cast<double>(answerTokens) / std::max(seconds, 1e-9)},
            {"block_passes", network.passes},
            {"passes_per_second", static_cast<double>(network.passes) / std::max(seconds, 1e-9)},
            {"prefills", network.prefills},
            {"mean_rows_per_pass", static_cast<double>(network.rows) / passes},
            {"row_occupancy", static_cast<double>(network.rows) / passes / o.batch},
            {"peak_memory_bytes", cuda ? peakDeviceMemory(0) : 0},
            {"cache_pages", model->cachePages()},
            {"peak_cache_pages", model->cachePeakPages()}};
    };

    nlohmann::json results = {{"shape", o.shape},
                              {"parameters", config.parameterCount()},
                              {"device", cuda ? "cuda" : "cpu"},
                              {"dtype", toString(o.dtype)},
                              {"rollouts", o.rollouts},
                              {"batch", o.batch},
                              {"prompt_tokens", {o.minPromptTokens, o.maxPromptTokens}},
                              {"answer_tokens", {o.minAnswerTokens, o.maxAnswerTokens}},
                              {"budget_tokens", budgetTokens},
                              {"sampler",
                               {{"temperature", 1.0},
                                {"strategy", "low_confidence_dynamic"},
                                {"threshold", 0.9},
                                {"block_length", 4},
                                {"steps", 4},
                                {"fused_sampling", o.fusedSampling}}},
                              {"page_tokens", o.pageTokens},
                              {"cache_tokens", o.cacheTokens}};
    if (o.fixed)
        results["fixed"] = run(false);
    if (o.continuous)
        results["continuous"] = run(true);
    if (o.fixed && o.continuous)
        results["continuous_over_fixed"] =
            results["continuous"]["tokens_per_second"].get<double>() /
            std::max(results["fixed"]["tokens_per_second"].get<double>(), 1e-12);

    // The cache the pool needs. Contiguous, a row holds the longest prompt and answer, in whole
    // blocks; paged, a sequence holds its own, in whole pages, so that a pool of the same memory
    // holds as many rows as the mean sequence allows.
    const std::int64_t capacity = (o.maxPromptTokens + o.maxAnswerTokens + 3) / 4 * 4;
    const std::int64_t perRow = cacheBytesPerSequence(config, capacity, o.dtype);
    const double weights = static_cast<double>(model->weightBytes());
    const double budget = o.memoryGb * 1e9;
    const double free = std::max(0.0, budget - weights);
    const double meanTokens =
        static_cast<double>(sequenceTokens) / static_cast<double>(std::max(1, o.rollouts));
    // A sequence's last page is half empty on average.
    const double meanPagedTokens = meanTokens + (o.pageTokens > 0 ? o.pageTokens / 2.0 : 0.0);
    const double bytesPerToken = static_cast<double>(cacheBytesPerSequence(config, 1, o.dtype));
    results["cache"] = {
        {"capacity_tokens", capacity},
        {"bytes_per_row", perRow},
        {"pool_bytes", perRow * o.batch},
        {"weight_bytes", model->weightBytes()},
        {"memory_gb", o.memoryGb},
        {"mean_sequence_tokens", meanTokens},
        // Cache alone beside the weights; activations and logits of a pass need some of it.
        {"largest_pool", static_cast<std::int64_t>(free / static_cast<double>(perRow))},
        {"largest_paged_pool",
         static_cast<std::int64_t>(free / (meanPagedTokens * bytesPerToken))}};
    if (o.pageTokens > 0 && o.continuous)
        results["cache"]["peak_paged_bytes"] =
            static_cast<double>(results["continuous"]["peak_cache_pages"].get<std::int64_t>() *
                                o.pageTokens) *
            bytesPerToken;
    return results;
}

} // namespace dice
