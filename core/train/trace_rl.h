// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// LibTorch types: include only from files that include LibTorch first.
#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

// TraceRL (docs/rl.md): the policy update of DICE's reinforcement learning over the trajectory
// the sampler took. Each rollout's answer is replayed in rounds, one per denoising step index:
// round r asks, in every block at once, for the tokens the sampler committed at the block's r-th
// step, from the state the sampler saw then (the tokens of that step and of later ones masked,
// earlier ones visible). The input is the block-diffusion training layout of bd3_batch.h, so a
// round costs one forward pass over the doubled sequence.
namespace dice {

// One sampled answer and what it earned.
struct TraceRollout {
    std::vector<std::int64_t> prompt;     // the chat-templated prompt's ids
    std::vector<std::int64_t> answer;     // the answer's ids
    std::vector<std::int64_t> commitStep; // for every answer token, the step that committed it
    double advantage = 0;
    // The last block's cells after the answer (GenerationResult::tailTokens): context the
    // answer's last tokens saw, never targets. A step of -1 is a cell that stayed masked.
    std::vector<std::int64_t> tail;
    std::vector<std::int64_t> tailStep;
};

// The rounds of one answer: for each, the answer tokens that are its targets and the cells still
// masked (targets included). Blocks count from position 0 of prompt + answer, as at sampling.
struct TraceRound {
    std::vector<std::int64_t> targets; // indices into the answer
    std::vector<std::int64_t> masked;  // indices into answer + tail
};
std::vector<TraceRound> traceRounds(const TraceRollout& rollout, std::int64_t promptLength,
                                    std::int64_t blockLength);

// A batch of rounds of several rollouts, in bd3's doubled layout ([noisy | clean], length 2L).
struct TraceBatch {
    at::Tensor tokens;     // [R, 2L] int64
    at::Tensor positions;  // [R, 2L] int64
    at::Tensor mask;       // [R, 1, 2L, 2L] bool
    at::Tensor targets;    // [R, 2L] int64
    at::Tensor scored;     // flat indices (into R * 2L) of the target cells
    at::Tensor advantage;  // [targets] float: the target's rollout's advantage
    at::Tensor normaliser; // [targets] float: 1 / (the rollout's answer length * rollouts)
    std::int64_t rollouts = 0;
    std::int64_t rows = 0;
    std::int64_t targetCount = 0;
    // The policy is the sampler's distribution: the mask token, and ids at or past vocabLimit
    // (when it is positive), are never drawn.
    std::int64_t maskId = 0;
    std::int64_t vocabLimit = 0;
};
TraceBatch makeTraceBatch(const std::vector<const TraceRollout*>& rollouts,
                          std::int64_t blockLength, std::int64_t maskId, std::int64_t padId,
                          std::int64_t vocabLimit = 0);

// Log-probabilities of the targets under the scored cells' logits ([targets, V] in the order of
// `scored`, as Qwen3Model::forward gives them for those rows), in float32, over the tokens the
// sampler may draw: [targets]. With entropySum, the entropies (nats) of the distributions at the
// targets are added to it: how sure the policy is where it committed, a curve RL users watch for
// collapse.
at::Tensor targetLogProbs(const at::Tensor& logits, const TraceBatch& batch,
                          double* entropySum = nullptr);

struct TraceLossOptions {
    double clipEpsilon = 0.2;
    double klBeta = 0.01;
};

struct TraceLoss {
    at::Tensor loss;    // scalar, to backpropagate
    double policy = 0;  // the clipped surrogate's part
    double kl = 0;      // the k3 estimate of KL(new || old), per target, mean
    double clipped = 0; // share of targets whose ratio was clipped
    double ratioMean = 0;
};

// The clipped surrogate over the targets, each normalised by its rollout's answer length and the
// number of rollouts, plus klBeta times the k3 estimator against the old log-probabilities.
TraceLoss traceLoss(const at::Tensor& newLogProbs, const at::Tensor& oldLogProbs,
                    const TraceBatch& batch, const TraceLossOptions& options);

} // namespace dice
