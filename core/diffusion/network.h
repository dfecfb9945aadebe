// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <vector>

namespace at {
class Tensor;
}

namespace dice {

// What the block-diffusion sampler needs from a network: a key/value cache with one row per
// sequence and the passes of SDAR decoding. Qwen3Network adapts the real model; tests implement
// it with hand-built deterministic models.
class DiffusionNetwork {
public:
    virtual ~DiffusionNetwork() = default;

    // Width of the logits rows.
    virtual std::int64_t logitsWidth() const = 0;
    // A cache for `rows` sequences of up to `capacity` tokens, every length 0.
    virtual void allocate(std::int64_t rows, std::int64_t capacity) = 0;
    // tokens [n, T] int64 (CPU) for rows firstRow..firstRow+n-1, each from position 0: row
    // firstRow + i holds lengths[i] tokens (and nothing of what it held before), which attend
    // block-causally in blocks of blockLength.
    virtual void prefill(const at::Tensor& tokens, const std::vector<std::int64_t>& lengths,
                         std::int64_t blockLength, std::int64_t firstRow) = 0;
    // tokens [n, B] int64 (CPU): one block per row 0..n-1 at the positions following the row's
    // cache; the block attends to the cache and to all of itself. Rows with commit[i] set append
    // the block to their cache; the others leave it as it was. Returns float32 logits [n, B, V]
    // (any device) when wantLogits, logits at position i predicting the token at position i.
    virtual at::Tensor blockPass(const at::Tensor& tokens, const std::vector<std::uint8_t>& commit,
                                 bool wantLogits) = 0;
    // Moves a row's cache to another row.
    virtual void moveRow(std::int64_t from, std::int64_t to) = 0;

    // A cache that holds less than rows times the capacity (a paged one) is asked before each
    // sequence joins: whether one of `tokens` positions fits beside those it holds now, and then
    // to set them aside for `row` (emptied first), so that a sequence that joined never runs out.
    // A row whose sequence has left is released. A cache of rows of the capacity admits every
    // sequence.
    virtual bool admits(std::int64_t /*tokens*/) const { return true; }
    virtual void reserve(std::int64_t /*row*/, std::int64_t /*tokens*/) {}
    virtual void release(std::int64_t /*row*/) {}
};

} // namespace dice
