// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// LibTorch types: include only from files that include LibTorch first.
#include "core/train/trace_rl.h"

#include <cstdint>
#include <functional>
#include <vector>

// One epoch of TraceRL's clipped update over a step's kept rollouts (docs/rl.md, step 5): the old
// policy's log-probabilities of every micro-batch first, then the update with gradient
// accumulation and clipping. The trainer and the RL benchmark run this one function.
//
// With several ranks (docs/distributed.md) every rank holds the same rollouts; the micro-batches
// of each accumulation window are dealt out to the ranks in turn, each rank's gradients are summed
// over the ranks by the buckets while its last backward pass of the window runs, and every rank
// then takes the same optimiser step. An optimiser step thus sees the gradient one process would
// have summed over the window, whatever the number of ranks.
namespace dice {

class Communicator;
class GradientBuckets;
class Qwen3Model;
class ShardedAdamW;

struct TraceUpdateOptions {
    int microBatch = 1;   // rollouts per forward pass
    int accumulation = 1; // micro-batches per optimizer step
    double clipNorm = 1.0;
    TraceLossOptions loss;
    std::int64_t blockLength = 4;
    std::int64_t maskId = 0;
    std::int64_t padId = 0;
    std::int64_t vocabLimit = 0;
    bool autocast = false; // bfloat16 autocast (CUDA)
    // Called after each micro-batch of the update: (done, of), this rank's.
    std::function<void(std::size_t, std::size_t)> progress;
    // Several ranks: both or neither.
    Communicator* communicator = nullptr;
    GradientBuckets* buckets = nullptr;
};

struct TraceUpdateStats {
    // Over every rank's micro-batches.
    double policy = 0; // sums over micro-batches; divide by microBatches
    double kl = 0;
    double clipped = 0;
    double ratio = 0;
    double entropy = 0;  // summed over targets; divide by targets
    double gradNorm = 0; // of the last optimizer step
    int microBatches = 0;
    int optimizerSteps = 0;
    std::int64_t targets = 0;
    std::int64_t rows = 0;        // rounds (rows of the doubled layout) over all micro-batches
    std::int64_t inputTokens = 0; // cells of the doubled layout over all micro-batches
    double oldPolicySeconds = 0;  // this rank's
    double updateSeconds = 0;
    int bucketsOverlapped = 0; // buckets whose sum started during a backward pass, this rank
};

TraceUpdateStats traceRlUpdate(Qwen3Model& model, ShardedAdamW& optimizer,
                               const std::vector<TraceRollout>& rollouts,
                               const TraceUpdateOptions& options);

} // namespace dice
