// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/compile_types.h"
#include "core/cuda/cuda_driver.h"

#include <cstdint>
#include <memory>
#include <string>

namespace dice {

class CudaContext;
class CudaModule;

// Sampling of a denoising step's cells in one kernel launch on the GPU: temperature, top-k,
// top-p, the token by inverse CDF from a given uniform, and the token's confidence and the
// distribution's entropy, one thread block per cell. Done with LibTorch operators the same step
// is a sort of the whole vocabulary per cell for top-p, a cumulative sum and a dozen more
// kernels; here top-k and top-p thresholds are found by radix selection over the logits' bits,
// four passes over a row each, with masses summed in 2^-40 fixed point so that a cell's token
// does not depend on the order the GPU adds in.
//
// The kept set is the reference sampler's: the logits at or above the k-th largest, then those
// whose mass before them in descending order is at most top-p of the kept mass (ties at either
// bound all kept). Tokens can differ from the LibTorch path where a uniform falls within rounding
// of a boundary of the cumulative distribution.
class FusedCellSampler {
public:
    struct Cells {
        const float* logits = nullptr; // [rows, stride], the first `width` of each row read
        std::int64_t rows = 0;
        std::int64_t width = 0;
        std::int64_t stride = 0;
        const float* uniforms = nullptr; // [rows], each in (0, 1)
        float temperature = 1.0f;        // above 0
        std::int64_t topK = 0;           // 0: off
        float topP = 1.0f;               // 1: off
        std::int64_t maskId = -1;        // never drawn (-1: none)
        bool rawConfidence = false;      // confidence and entropy of the unfiltered softmax
        bool entropy = false;            // write the entropy
        std::int64_t* tokens = nullptr;  // out: [rows]
        float* confidence = nullptr;     // out: [rows]
        float* entropies = nullptr;      // out: [rows] when entropy
    };

    // The kernel's source, and its compilation for an architecture (no GPU needed).
    static std::string source();
    static CompileResult compile(const std::string& architecture);

    // Compiles for the device and loads the module into its primary context. Throws Error when
    // the driver or NVRTC is missing.
    explicit FusedCellSampler(int deviceIndex);
    ~FusedCellSampler();
    FusedCellSampler(const FusedCellSampler&) = delete;
    FusedCellSampler& operator=(const FusedCellSampler&) = delete;

    // Every pointer is device memory; the launch is queued on `stream`.
    void sample(cu::Stream stream, const Cells& cells) const;

private:
    std::unique_ptr<CudaContext> m_context;
    std::unique_ptr<CudaModule> m_module;
    cu::Function m_sample = nullptr;
};

} // namespace dice
