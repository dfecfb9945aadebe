// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/diffusion/decode_events.h"
#include "core/diffusion/network.h"
#include "core/diffusion/remask_strategy.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dice {

struct SamplerOptions {
    std::int64_t blockLength = 4;
    std::int64_t steps = 4; // denoising steps per block
    RemaskStrategy strategy = RemaskStrategy::LowConfidenceDynamic;
    double threshold = 0.9;    // dynamic: confidence above which a cell is committed
    double ebThreshold = 0.35; // entropy-bounded: bound on the summed entropy of one step
    double temperature = 1.0;  // 0 or less: greedy
    std::int64_t topK = 0;     // 0: off
    double topP = 1.0;         // 1: off
    // Confidence from the raw softmax of the logits instead of the reference's temperature-scaled,
    // top-k/top-p-filtered distribution the token was drawn from.
    bool rawConfidence = false;
    // On a GPU, draw each step's cells with FusedCellSampler's one kernel instead of LibTorch's
    // operators (a sort of the vocabulary per cell for top-p): the same kept sets, tokens that can
    // differ where a uniform falls within rounding of a boundary of the distribution. Greedy
    // decoding is an argmax either way.
    bool fusedSampling = false;
    std::int64_t maxTokens = 512; // answer budget
    // One budget per prompt instead of maxTokens for all (empty: maxTokens).
    std::vector<std::int64_t> budgets;
    // Continuous batching: at most this many sequences decode at once (0: every prompt). Between
    // passes, a finished sequence's cache row is given to the next waiting prompt, so sequences
    // of uneven length keep the batch full. A sequence's result does not depend on it.
    std::int64_t maxActive = 0;
    std::uint64_t seed = 0;
    // The number of the first prompt in the seeding of each sequence's random stream: a share of
    // a larger list decoded elsewhere (another rank) gets the streams it would have had there.
    std::uint64_t firstSequence = 0;
    std::int64_t maskId = 151669;
    std::vector<std::int64_t> stopIds; // generation ends at the first of these in the answer
    // Ids at or above vocabLimit (the tokenizer's size; the embedding has padding rows) are never
    // sampled when maskBeyondVocab is set and vocabLimit > 0.
    std::int64_t vocabLimit = 0;
    bool maskBeyondVocab = true;
    // Checked before every forward pass; the sequences in flight end as Cancelled.
    const std::atomic<bool>* cancel = nullptr;
};

enum class FinishReason { Stop, Length, Cancelled };
std::string toString(FinishReason reason);

struct GenerationResult {
    std::vector<std::int64_t> tokens; // the answer, up to and including the first stop id
    FinishReason reason = FinishReason::Length;
    std::int64_t forwardPasses = 0; // prefill, denoising and commit passes of this sequence
    std::int64_t denoisingSteps = 0;
    std::int64_t blocks = 0; // blocks of the answer that were decoded
    // For every answer token, the sequence's denoising step (0-based, over all blocks) that
    // committed it: the trace TraceRL trains on.
    std::vector<std::int64_t> commitStep;
    // The cells of the last block after the answer, as decoding left them: the tokens committed
    // there (after a stop id, or past the budget) with their steps, or the mask with step -1.
    // Every cell of a block sees the others, so replaying the trace needs them.
    std::vector<std::int64_t> tailTokens;
    std::vector<std::int64_t> tailCommitStep;
    double milliseconds = 0;
};

// One denoising step's draw of m blocks of B cells: for each cell its token, its confidence and,
// when asked, the entropy of its distribution, in cell order.
struct CellDraw {
    std::vector<std::int64_t> tokens; // [m * B]
    std::vector<float> confidence;
    std::vector<float> entropy;
};

// The draw the sampler makes from float32 logits [m, B, V] (any device) with one uniform in
// (0, 1) per cell, as it decodes: for the tests and the self-test, which compare its two ways
// (LibTorch's operators and, with fusedSampling on a GPU, the fused kernel).
CellDraw drawCells(const at::Tensor& logits, const std::vector<double>& uniforms,
                   const SamplerOptions& options, bool entropy);

// Tokens committed per step: B div S, plus one for the first B mod S steps.
std::vector<std::int64_t> stepSchedule(std::int64_t blockLength, std::int64_t steps);

// SDAR block-diffusion decoding (anchors §A.2–A.3) of a batch of prompts of any lengths. Blocks
// are aligned to absolute position 0; the prompts' full blocks are prefilled; each next block
// starts as mask tokens (after the prompt's tail, if any) and is denoised in up to `steps` passes
// over cache + block, then appended to the cache by one commit pass. Sequences finish on their
// own (stop id, budget) and leave the batch; with maxActive, waiting prompts join as they do.
// Every step is reported through onStep. With a seed, the result is the same for a sequence
// (known by its index in `prompts`) whatever else is in the batch. Autoregressive decoding is
// blockLength 1, steps 1.
std::vector<GenerationResult> generate(DiffusionNetwork& network,
                                       const std::vector<std::vector<std::int64_t>>& prompts,
                                       const SamplerOptions& options,
                                       const std::function<void(const DecodeStep&)>& onStep = {});

} // namespace dice
