// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/qwen3_model.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>

// dice bench rl: the time and memory of one BiC-RL step at a model shape with random weights
// (docs/rl.md): sampling the step's rollouts with the RL sampler, judging as many candidates with
// the reward service, and TraceRL's update over every rollout, with the update's model FLOPs
// utilisation and the peak memory of each phase.
namespace dice {

struct RlBenchOptions {
    std::string shape = "1.7b"; // a shape of dice bench model: 1.7b, 4b, 8b, 20m
    ModelDevice device = ModelDevice::Cuda;
    int cpuThreads = 0;
    int tasks = 64;
    int rolloutsPerTask = 16;
    std::int64_t promptTokens = 512;
    std::int64_t maxTokens = 1024;
    int rolloutBatch = 128;            // sequences sampled at once
    int microBatch = 1;                // rollouts per forward pass of the update
    int accumulation = 32;             // micro-batches per optimizer step
    bool gradientCheckpointing = true; // as the trainer's default
    std::int64_t attentionChunk = 0;   // as the trainer's default
    // Judge tasks × rollouts candidates of dice bench reward's mix with the reward service (needs
    // a GPU); without it the step's reward time is left out.
    bool reward = true;
    int rewardWorkers = 4;
    // The bfloat16 dense peak the utilisation is taken against (the H200's datasheet figure).
    double peakTflops = 989.0;
    std::uint64_t seed = 1;
};

using RlBenchProgress = std::function<void(const std::string& line)>;

nlohmann::json runRlBenchmark(const RlBenchOptions& options, const RlBenchProgress& progress = {});

// Model FLOPs of one forward pass over `rows` sequences of `length` tokens each, every token
// attending to all `length` (a dense mask, as the doubled layout's attention is computed): the
// layers' weight matrices for every token, the output head for the `scored` cells only (the
// update computes logits nowhere else; the embedding lookup is free) and the two attention
// products.
double forwardFlops(const ModelConfig& config, std::int64_t rows, std::int64_t length,
                    std::int64_t scored);

} // namespace dice
