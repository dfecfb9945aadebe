// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// LibTorch types: include only from files that include LibTorch first.
#include <ATen/ATen.h>

#include "core/train/sft_data.h"

#include <random>

namespace dice {

// A batch for the block-diffusion (SDAR/BD3) training objective. Each sequence x0 of length n
// becomes the doubled input [x_t | x_0] of length 2n with the same positions in both halves, where
// x_t has each answer token replaced by the mask with a per-sequence probability
// p = (1 - eps) t + eps, t ~ U(0, 1), at least one answer token masked. Blocks of blockLength count
// from the sequence's first token, as at inference. Attention (true: may attend):
//   noisy -> noisy of the same block (bidirectional within a block)
//   noisy -> clean of strictly earlier blocks
//   clean -> clean of the same or earlier blocks (block-causal)
//   clean -> noisy never; padding attends only to itself and is never scored.
// The loss is the cross-entropy at the masked noisy positions, each weighted 1/p, summed and
// divided by the sequence's number of answer tokens, then averaged over the batch.
struct Bd3Batch {
    at::Tensor tokens;    // [B, 2L] int64
    at::Tensor positions; // [B, 2L] int64
    at::Tensor mask;      // [B, 1, 2L, 2L] bool
    at::Tensor targets;   // [B, 2L] int64: x_0 at every position
    at::Tensor weights;   // [B, 2L] float: 1/(p * answer tokens) at masked noisy cells, else 0
    std::int64_t maskedTokens = 0;
    std::int64_t answerTokens = 0;
    std::int64_t length = 0; // L, the longest sequence of the batch
};

constexpr double kBd3MinMaskRate = 1e-3;

Bd3Batch makeBd3Batch(const std::vector<const SftSequence*>& sequences, std::int64_t blockLength,
                      std::int64_t maskId, std::int64_t padId, std::mt19937_64& rng);

// The attention mask of one doubled sequence of real length n padded to L (for tests).
at::Tensor bd3AttentionMask(std::int64_t n, std::int64_t L, std::int64_t blockLength);

// The objective from logits [B, 2L, V] (any dtype; computed in float32).
at::Tensor bd3Loss(const at::Tensor& logits, const Bd3Batch& batch);

} // namespace dice
