// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/train/trace_update.h"

#include "core/common/error.h"
#include "core/distributed/communicator.h"
#include "core/distributed/gradient_buckets.h"
#include "core/distributed/sharded_adamw.h"
#include "core/model/qwen3_model.h"
#include "core/train/train_common.h"

#include <algorithm>
#include <cmath>

namespace dice {

namespace {

// Waits for the GPU's queued work so that a phase's time is its own.
void synchronise(const torch::Device& device) {
    if (device.is_cuda())
        torch::cuda::synchronize(device.index());
}

} // namespace

TraceUpdateStats traceRlUpdate(Qwen3Model& model, ShardedAdamW& optimizer,
                               const std::vector<TraceRollout>& rollouts,
                               const TraceUpdateOptions& options) {
    TraceUpdateStats stats;
    if (rollouts.empty())
        return stats;
    if ((options.communicator == nullptr) != (options.buckets == nullptr))
        throw Error("the update needs both a communicator and gradient buckets, or neither");
    const int ranks = options.communicator ? options.communicator->size() : 1;
    const int rank = options.communicator ? options.communicator->rank() : 0;
    const torch::Device device = model.parameters().front().device();
    const auto micro = static_cast<std::size_t>(std::max(1, options.microBatch));
    const auto accumulation = static_cast<std::size_t>(std::max(1, options.accumulation));
    const std::size_t count = (rollouts.size() + micro - 1) / micro;
    // Within each window the micro-batches go to the ranks in turn.
    const auto isMine = [&](std::size_t m) {
        return static_cast<int>((m % accumulation) % static_cast<std::size_t>(ranks)) == rank;
    };
    std::size_t mine = 0;
    for (std::size_t m = 0; m < count; ++m)
        mine += isMine(m) ? 1 : 0;

    auto start = TrainClock::now();
    std::vector<TraceBatch> batches(count);
    std::vector<at::Tensor> oldLogProbs(count);
    double entropy = 0;
    std::int64_t targets = 0;
    std::int64_t rows = 0;
    std::int64_t inputTokens = 0;
    {
        at::NoGradGuard noGrad;
        for (std::size_t m = 0; m < count; ++m) {
            if (!isMine(m))
                continue;
            std::vector<const TraceRollout*> part;
            for (std::size_t k = m * micro; k < std::min(rollouts.size(), (m + 1) * micro); ++k)
                part.push_back(&rollouts[k]);
            batches[m] = makeTraceBatch(part, options.blockLength, options.maskId, options.padId,
                                        options.vocabLimit);
            AutocastScope scope(options.autocast);
            const auto& b = batches[m];
            const auto logits = model.forward(b.tokens.to(device), b.positions.to(device),
                                              b.mask.to(device), b.scored.to(device));
            oldLogProbs[m] = targetLogProbs(logits, b, &entropy).detach();
            rows += b.rows;
            inputTokens += b.tokens.numel();
        }
    }
    synchronise(device);
    stats.oldPolicySeconds = secondsSince(start);

    start = TrainClock::now();
    optimizer.zeroGrad();
    double sums[4] = {0, 0, 0, 0}; // policy, kl, clipped, ratio
    std::size_t done = 0;
    for (std::size_t windowStart = 0; windowStart < count; windowStart += accumulation) {
        const std::size_t window = std::min(accumulation, count - windowStart);
        std::size_t lastMine = windowStart + window;
        for (std::size_t m = windowStart; m < windowStart + window; ++m)
            if (isMine(m))
                lastMine = m;
        for (std::size_t m = windowStart; m < windowStart + window; ++m) {
            if (!isMine(m))
                continue;
            if (options.buckets && m == lastMine)
                options.buckets->arm();
            // Each micro-batch's loss is a mean over its rollouts; an optimizer step averages the
            // micro-batches of its window, wherever they ran.
            TraceLoss loss;
            {
                AutocastScope scope(options.autocast);
                const auto& b = batches[m];
                const auto logits = model.forward(b.tokens.to(device), b.positions.to(device),
                                                  b.mask.to(device), b.scored.to(device));
                loss = traceLoss(targetLogProbs(logits, b), oldLogProbs[m], b, options.loss);
            }
            (loss.loss / static_cast<double>(window)).backward();
            sums[0] += loss.policy;
            sums[1] += loss.kl;
            sums[2] += loss.clipped;
            sums[3] += loss.ratioMean;
            targets += batches[m].targetCount;
            batches[m] = TraceBatch();
            oldLogProbs[m] = at::Tensor();
            if (options.progress)
                options.progress(++done, mine);
        }
        if (options.buckets) {
            options.buckets->finish();
            stats.bucketsOverlapped += options.buckets->startedDuringBackward();
        }
        stats.gradNorm = torch::nn::utils::clip_grad_norm_(model.parameters(), options.clipNorm);
        optimizer.step();
        optimizer.zeroGrad();
        ++stats.optimizerSteps;
    }
    synchronise(device);
    stats.updateSeconds = secondsSince(start);

    // The step's figures over every rank, as one process would have counted them.
    double totals[9] = {sums[0],
                        sums[1],
                        sums[2],
                        sums[3],
                        entropy,
                        static_cast<double>(mine),
                        static_cast<double>(targets),
                        static_cast<double>(rows),
                        static_cast<double>(inputTokens)};
    if (options.communicator) {
        at::Tensor packed =
            at::from_blob(totals, {9}, at::kDouble).clone().to(options.communicator->device());
        options.communicator->allReduceSumNow(packed);
        const at::Tensor back = packed.cpu();
        for (int i = 0; i < 9; ++i)
            totals[i] = back[i].item<double>();
    }
    stats.policy = totals[0];
    stats.kl = totals[1];
    stats.clipped = totals[2];
    stats.ratio = totals[3];
    stats.entropy = totals[4];
    stats.microBatches = static_cast<int>(totals[5]);
    stats.targets = static_cast<std::int64_t>(totals[6]);
    stats.rows = static_cast<std::int64_t>(totals[7]);
    stats.inputTokens = static_cast<std::int64_t>(totals[8]);
    if (!std::isfinite(stats.policy) || !std::isfinite(stats.kl))
        throw Error("the TraceRL loss became non-finite; lower the learning rate");
    return stats;
}

} // namespace dice
