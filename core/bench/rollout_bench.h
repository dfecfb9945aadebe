// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/qwen3_model.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>

// dice bench rollout: RL's sampling workload at a model shape with random weights (docs/rl.md):
// many rollouts with prompts and answers of uneven lengths, decoded at temperature 1 with dynamic
// remasking, once in fixed batches (each waits for its longest answer) and once through the
// sampler's continuous batching (a pool whose rows are refilled as sequences finish), the same
// prompts and budgets both times. Random weights never write a stop token, so each answer's length
// is its budget, drawn by a seeded schedule.
namespace dice {

struct RolloutBenchOptions {
    std::string shape = "4b"; // a shape of dice bench model
    ModelDevice device = ModelDevice::Cuda;
    ModelDType dtype = ModelDType::BFloat16;
    int cpuThreads = 0;
    int rollouts = 1024;
    int batch = 128; // rows decoded at once: the fixed batch and the pool alike
    std::int64_t minPromptTokens = 200;
    std::int64_t maxPromptTokens = 2000;
    std::int64_t minAnswerTokens = 256;
    std::int64_t maxAnswerTokens = 4096;
    bool fixed = true;      // run the fixed batches
    bool continuous = true; // run the pool
    // GPU memory the largest pool is worked out for (the H200's 141 GB by default).
    double memoryGb = 141.0;
    std::uint64_t seed = 1;
    bool fusedSampling = false; // SamplerOptions::fusedSampling
    // A paged cache (CachePaging): positions a page, 0 for rows of the longest sequence; and the
    // positions of all pages together, 0 for every row's capacity.
    std::int64_t pageTokens = 0;
    std::int64_t cacheTokens = 0;
};

using RolloutBenchProgress = std::function<void(const std::string& line)>;

nlohmann::json runRolloutBenchmark(const RolloutBenchOptions& options,
                                   const RolloutBenchProgress& progress = {});

// Bytes of key/value cache one sequence of `tokens` positions takes in `dtype`.
std::int64_t cacheBytesPerSequence(const ModelConfig& config, std::int64_t tokens,
                                   ModelDType dtype);

} // namespace dice
