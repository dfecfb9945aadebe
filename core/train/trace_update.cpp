// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/train/trace_update.h"

#include "core/common/error.h"
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

TraceUpdateStats traceRlUpdate(Qwen3Model& model, torch::optim::Optimizer& optimizer,
                               const std::vector<TraceRollout>& rollouts,
                               const TraceUpdateOptions& options) {
    TraceUpdateStats stats;
    if (rollouts.empty())
        return stats;
    const torch::Device device = model.parameters().front().device();
    const auto micro = static_cast<std::size_t>(std::max(1, options.microBatch));

    auto start = TrainClock::now();
    std::vector<TraceBatch> batches;
    std::vector<at::Tensor> oldLogProbs;
    {
        at::NoGradGuard noGrad;
        for (std::size_t at = 0; at < rollouts.size(); at += micro) {
            std::vector<const TraceRollout*> part;
            for (std::size_t k = at; k < std::min(rollouts.size(), at + micro); ++k)
                part.push_back(&rollouts[k]);
            batches.push_back(makeTraceBatch(part, options.blockLength, options.maskId,
                                             options.padId, options.vocabLimit));
            AutocastScope scope(options.autocast);
            const auto& b = batches.back();
            const auto logits = model.forward(b.tokens.to(device), b.positions.to(device),
                                              b.mask.to(device), b.scored.to(device));
            oldLogProbs.push_back(targetLogProbs(logits, b, &stats.entropy).detach());
            stats.rows += b.rows;
            stats.inputTokens += b.tokens.numel();
        }
    }
    synchronise(device);
    stats.oldPolicySeconds = secondsSince(start);

    start = TrainClock::now();
    const auto accumulation = static_cast<std::size_t>(std::max(1, options.accumulation));
    optimizer.zero_grad();
    for (std::size_t m = 0; m < batches.size(); ++m) {
        // Each micro-batch's loss is a mean over its rollouts; an optimizer step averages the
        // micro-batches it gathers.
        const std::size_t windowStart = m / accumulation * accumulation;
        const std::size_t window = std::min(accumulation, batches.size() - windowStart);
        TraceLoss loss;
        {
            AutocastScope scope(options.autocast);
            const auto& b = batches[m];
            const auto logits = model.forward(b.tokens.to(device), b.positions.to(device),
                                              b.mask.to(device), b.scored.to(device));
            loss = traceLoss(targetLogProbs(logits, b), oldLogProbs[m], b, options.loss);
        }
        (loss.loss / static_cast<double>(window)).backward();
        stats.policy += loss.policy;
        stats.kl += loss.kl;
        stats.clipped += loss.clipped;
        stats.ratio += loss.ratioMean;
        stats.targets += batches[m].targetCount;
        ++stats.microBatches;
        if (m + 1 == windowStart + window) {
            stats.gradNorm =
                torch::nn::utils::clip_grad_norm_(model.parameters(), options.clipNorm);
            optimizer.step();
            optimizer.zero_grad();
            ++stats.optimizerSteps;
        }
        if (options.progress)
            options.progress(m + 1, batches.size());
    }
    synchronise(device);
    stats.updateSeconds = secondsSince(start);
    if (!std::isfinite(stats.policy) || !std::isfinite(stats.kl))
        throw Error("the TraceRL loss became non-finite; lower the learning rate");
    return stats;
}

} // namespace dice
