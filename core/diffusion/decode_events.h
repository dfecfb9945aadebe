// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <vector>

namespace dice {

// One step of block-diffusion decoding, as the sampler reports it to the live view, the trace
// file and the RL trace. Positions count from the start of the answer (the first generated token
// is position 0); blocks are aligned to absolute position 0 of the whole sequence, so the first
// block of an answer can start before the answer does.
struct DecodeStep {
    enum class Kind {
        Prefill, // the prompt's full blocks were written to the cache
        Denoise, // a denoising pass committed `positions`
        Commit,  // the finished block's keys and values were appended to the cache
        Finished // the sequence is done (stop token, budget, or cancelled)
    };
    Kind kind = Kind::Denoise;
    int sequence = 0;            // index in the batch
    int block = 0;               // block index counted from the start of the answer
    int step = 0;                // denoising step within the block (0-based)
    int globalStep = 0;          // denoising steps of this sequence so far, over all blocks
    std::int64_t blockStart = 0; // answer position of the block's first cell (may be negative)
    int blockLength = 0;
    std::vector<std::int64_t> positions; // answer positions committed in this step
    std::vector<std::int64_t> tokens;    // the token ids committed there
    std::vector<float> confidences;      // their confidences
    std::int64_t forwardPasses = 0;      // model forward passes of this sequence so far
    double elapsedMs = 0;                // since the start of the generation
};

} // namespace dice
