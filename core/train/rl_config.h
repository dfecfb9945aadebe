// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/diffusion/sdar_sampler.h"
#include "core/model/qwen3_model.h"
#include "core/reward/reward.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

// The configuration of a BiC-RL run (docs/rl.md): the paper's two phases, their data and
// schedule, rollouts, the reward, TraceRL's update, evaluation and checkpoints. A run folder
// keeps the resolved configuration as config.json.
namespace dice {

// Where a phase's tasks come from: a folder with tasks/ (and solutions/, needed for infilling)
// such as a corpus of dice data synth, or "builtin" for the workbench's own suite.
struct RlData {
    std::string tasks = "builtin";
    // Corpus splits to keep when the folder is a corpus with a manifest (empty: every task).
    std::vector<std::string> splits;
    // Only these tasks, by name (empty: every task).
    std::vector<std::string> names;
    // At most this many tasks, the easiest first (0: all).
    int limit = 0;
};

enum class RlPhaseKind { Infill, EndToEnd };
std::string toString(RlPhaseKind kind);

struct RlPhase {
    RlPhaseKind kind = RlPhaseKind::EndToEnd;
    std::int64_t steps = 0;
    RlData data;
};

enum class RlSchedule {
    Sequential, // the paper's: tasks in order, easy to hard, so many per step, wrapping around
    Adaptive    // tasks whose answers still disagree first, easier levels until they are learnt
};
std::string toString(RlSchedule schedule);

struct RlConfig {
    std::string model;          // a Hugging Face folder, or "embedded" for DICE-nano
    std::string output;         // the run folder
    std::string device = "cpu"; // "cpu", "cuda" or "cuda:N"
    int threads = 0;            // CPU threads for LibTorch (0: leave as is)
    std::uint64_t seed = 10086;

    std::vector<RlPhase> phases;
    RlSchedule schedule = RlSchedule::Sequential;
    int tasksPerStep = 64;
    int rolloutsPerTask = 16;
    std::int64_t maxPromptTokens = 2000;

    // Rollouts: temperature 1, dynamic remasking at 0.9, block 4, 4 steps (paper §4.6).
    SamplerOptions sampler;
    int rolloutBatch = 64; // sequences decoded together
    // The sampler's key/value cache paged (CachePaging): positions a page (0: rows of the longest
    // sequence) and positions in all (0: every row's longest).
    std::int64_t rolloutPageTokens = 0;
    std::int64_t rolloutCacheTokens = 0;

    RewardOptions reward;
    std::vector<int> judgeDevices = {0}; // evaluation workers (an index repeated: more of them)
    int compileThreads = 4;
    int judgeIdleTimeoutS = 10;
    bool spareWorkers = true;  // EvaluatorOptions::spareWorkers
    bool guidedChunks = false; // Evaluator::BatchOptions::guidedChunks
    int compileLookahead = 0;  // Evaluator::BatchOptions::compileLookahead (0: the worker's)

    // AdamW, constant learning rate, gradient clipping (paper §4.6).
    double learningRate = 1e-6;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double weightDecay = 0.0;
    double epsilon = 1e-8;
    double clipNorm = 1.0;
    int microBatch = 1;    // rollouts per forward and backward pass
    int accumulation = 32; // micro-batches per optimizer step
    double clipEpsilon = 0.2;
    double klBeta = 0.01;
    bool mixedPrecision = true; // bfloat16 autocast on CUDA
    // Layers run again in the backward pass instead of keeping their activations (paper §4.6).
    bool gradientCheckpointing = true;
    // Queries per chunk of the masked attention, each chunk over only the keys it may see
    // (Qwen3Model::setMaskedAttentionChunk); 0 attends over every key at once.
    std::int64_t attentionChunk = 0;

    std::int64_t evalEvery = 10; // greedy evaluation on held-out tasks (0: never)
    RlData evalData;             // empty tasks: no evaluation
    std::int64_t evalMaxTokens = 4096;
    std::int64_t saveEvery = 10;
    int keepCheckpoints = 2;
    // The final model's precision. Checkpoints keep the fp32 master weights so that a run resumes
    // exactly; a model to ship or to load in the workbench is smaller in bf16.
    ModelDType saveDType = ModelDType::Float32;

    // Several ranks (docs/distributed.md): gradients are summed in buckets of about this many
    // megabytes while the backward pass runs; a rank waits this long for the others at a
    // collective before the run fails.
    int bucketMegabytes = 25;
    int collectiveTimeoutS = 1800;

    std::int64_t totalSteps() const;
};

nlohmann::json toJson(const RlConfig& config);
// Absent fields keep their defaults (the paper's). Throws Error naming the field that is wrong.
RlConfig rlConfigFromJson(const nlohmann::json& json);
// A named preset: "paper" (the paper's recipe) or "cpu-demo" (the embedded model on a laptop's
// CPU, a visible change in minutes, judged by compiling since there is no GPU).
nlohmann::json rlPreset(const std::string& name);

} // namespace dice
