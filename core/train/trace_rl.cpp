// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/train/trace_rl.h"

#include "core/common/error.h"
#include "core/train/bd3_batch.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace dice {

std::vector<TraceRound> traceRounds(const TraceRollout& rollout, std::int64_t promptLength,
                                    std::int64_t blockLength) {
    if (blockLength < 1)
        throw Error("traceRounds: the block length must be positive");
    if (rollout.commitStep.size() != rollout.answer.size() ||
        rollout.tailStep.size() != rollout.tail.size())
        throw Error("a rollout's trace has " + std::to_string(rollout.commitStep.size()) +
                    " steps for " + std::to_string(rollout.answer.size()) + " answer tokens");
    const auto blockOf = [&](std::size_t cell) {
        return (promptLength + static_cast<std::int64_t>(cell)) / blockLength;
    };
    // The distinct steps that committed answer tokens in every block, in order.
    std::map<std::int64_t, std::vector<std::int64_t>> blockSteps;
    for (std::size_t j = 0; j < rollout.answer.size(); ++j) {
        auto& steps = blockSteps[blockOf(j)];
        if (std::find(steps.begin(), steps.end(), rollout.commitStep[j]) == steps.end())
            steps.push_back(rollout.commitStep[j]);
    }
    std::size_t rounds = 0;
    for (auto& [block, steps] : blockSteps) {
        std::sort(steps.begin(), steps.end());
        rounds = std::max(rounds, steps.size());
    }
    const std::size_t cells = rollout.answer.size() + rollout.tail.size();
    std::vector<TraceRound> out(rounds);
    for (std::size_t r = 0; r < rounds; ++r) {
        for (std::size_t j = 0; j < cells; ++j) {
            const auto found = blockSteps.find(blockOf(j));
            if (found == blockSteps.end() || r >= found->second.size())
                continue; // the block was complete before this round
            const std::int64_t now = found->second[r];
            const bool answer = j < rollout.answer.size();
            const std::int64_t step =
                answer ? rollout.commitStep[j] : rollout.tailStep[j - rollout.answer.size()];
            // A tail cell that stayed masked is masked in every round.
            if (step >= now || step < 0)
                out[r].masked.push_back(static_cast<std::int64_t>(j));
            if (answer && step == now)
                out[r].targets.push_back(static_cast<std::int64_t>(j));
        }
    }
    return out;
}

TraceBatch makeTraceBatch(const std::vector<const TraceRollout*>& rollouts,
                          std::int64_t blockLength, std::int64_t maskId, std::int64_t padId,
                          std::int64_t vocabLimit) {
    if (rollouts.empty())
        throw Error("an empty TraceRL batch");
    struct Row {
        const TraceRollout* rollout;
        TraceRound round;
    };
    std::vector<Row> rows;
    std::int64_t L = 0;
    for (const TraceRollout* r : rollouts) {
        const auto promptLength = static_cast<std::int64_t>(r->prompt.size());
        for (auto& round : traceRounds(*r, promptLength, blockLength))
            rows.push_back({r, std::move(round)});
        L = std::max<std::int64_t>(
            L, promptLength + static_cast<std::int64_t>(r->answer.size() + r->tail.size()));
    }
    TraceBatch batch;
    batch.maskId = maskId;
    batch.vocabLimit = vocabLimit;
    batch.rollouts = static_cast<std::int64_t>(rollouts.size());
    batch.rows = static_cast<std::int64_t>(rows.size());
    if (rows.empty())
        throw Error("no rollout of the batch has an answer token to learn");
    const std::int64_t R = batch.rows;
    auto tokens = torch::full({R, 2 * L}, padId, torch::kInt64);
    auto targets = torch::full({R, 2 * L}, padId, torch::kInt64);
    auto positions = torch::zeros({R, 2 * L}, torch::kInt64);
    auto mask = torch::zeros({R, 1, 2 * L, 2 * L}, torch::kBool);
    auto tok = tokens.accessor<std::int64_t, 2>();
    auto tgt = targets.accessor<std::int64_t, 2>();
    auto pos = positions.accessor<std::int64_t, 2>();
    std::vector<std::int64_t> scored;
    std::vector<float> advantage;
    std::vector<float> normaliser;
    for (std::int64_t row = 0; row < R; ++row) {
        const Row& r = rows[static_cast<std::size_t>(row)];
        const auto& prompt = r.rollout->prompt;
        const auto& answer = r.rollout->answer;
        const auto& tail = r.rollout->tail;
        const auto p = static_cast<std::int64_t>(prompt.size());
        const auto a = static_cast<std::int64_t>(answer.size());
        const auto n = p + a + static_cast<std::int64_t>(tail.size());
        for (std::int64_t i = 0; i < L; ++i) {
            pos[row][i] = i;
            pos[row][L + i] = i;
        }
        for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t id = i < p       ? prompt[static_cast<std::size_t>(i)]
                                    : i < p + a ? answer[static_cast<std::size_t>(i - p)]
                                                : tail[static_cast<std::size_t>(i - p - a)];
            tok[row][i] = id;
            tok[row][L + i] = id;
            tgt[row][i] = id;
            tgt[row][L + i] = id;
        }
        for (std::int64_t j : r.round.masked)
            tok[row][p + j] = maskId;
        const float norm = static_cast<float>(
            1.0 / (static_cast<double>(answer.size()) * static_cast<double>(rollouts.size())));
        for (std::int64_t j : r.round.targets) {
            scored.push_back(row * 2 * L + p + j);
            advantage.push_back(static_cast<float>(r.rollout->advantage));
            normaliser.push_back(norm);
        }
        mask[row][0] = bd3AttentionMask(n, L, blockLength);
    }
    batch.tokens = tokens;
    batch.targets = targets;
    batch.positions = positions;
    batch.mask = mask;
    batch.targetCount = static_cast<std::int64_t>(scored.size());
    batch.scored = torch::tensor(scored, torch::kInt64);
    batch.advantage = torch::tensor(advantage, torch::kFloat32);
    batch.normaliser = torch::tensor(normaliser, torch::kFloat32);
    return batch;
}

at::Tensor targetLogProbs(const at::Tensor& logits, const TraceBatch& batch, double* entropySum) {
    const auto V = logits.size(-1);
    const auto device = logits.device();
    if (logits.dim() != 2 || logits.size(0) != batch.targetCount)
        throw Error("targetLogProbs: the logits must be one row for each of the batch's " +
                    std::to_string(batch.targetCount) + " scored cells");
    const auto scored = batch.scored.to(device);
    auto rows = logits.to(torch::kFloat32);
    if (batch.vocabLimit > 0 && batch.vocabLimit < V)
        rows = rows.narrow(1, 0, batch.vocabLimit);
    if (batch.maskId >= 0 && batch.maskId < rows.size(1))
        rows = rows.index_fill(1, torch::tensor({batch.maskId}, torch::kInt64).to(device),
                               -std::numeric_limits<float>::infinity());
    const auto targets = batch.targets.to(device).reshape({-1}).index_select(0, scored);
    const auto logProbs = torch::log_softmax(rows, 1);
    if (entropySum) {
        at::NoGradGuard noGrad;
        // Cells never drawn have probability 0 and log-probability -inf: their 0 * -inf terms are
        // NaN, and nansum leaves them out as the 0 they stand for.
        *entropySum -= torch::nansum(logProbs.exp() * logProbs).item<double>();
    }
    return logProbs.gather(1, targets.unsqueeze(1)).squeeze(1);
}

TraceLoss traceLoss(const at::Tensor& newLogProbs, const at::Tensor& oldLogProbs,
                    const TraceBatch& batch, const TraceLossOptions& options) {
    const auto device = newLogProbs.device();
    const auto advantage = batch.advantage.to(device);
    const auto normaliser = batch.normaliser.to(device);
    const auto delta = newLogProbs - oldLogProbs.to(device).detach();
    const auto ratio = torch::exp(torch::clamp(delta, -10.0, 10.0));
    const auto clippedRatio =
        torch::clamp(ratio, 1.0 - options.clipEpsilon, 1.0 + options.clipEpsilon);
    const auto surrogate = torch::min(ratio * advantage, clippedRatio * advantage);
    const auto k3 = torch::exp(-delta) - 1.0 + delta;
    const auto policy = -(surrogate * normaliser).sum();
    const auto kl = (k3 * normaliser).sum();
    TraceLoss out;
    out.loss = policy + options.klBeta * kl;
    {
        at::NoGradGuard noGrad;
        out.policy = policy.item<double>();
        out.kl = k3.mean().item<double>();
        out.clipped =
            ((ratio - clippedRatio).abs() > 1e-12).to(torch::kFloat32).mean().item<double>();
        out.ratioMean = ratio.mean().item<double>();
    }
    return out;
}

} // namespace dice
