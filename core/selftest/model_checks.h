// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/model_config.h"
#include "core/selftest/selftest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dice {

class Qwen3Model;

// A small Qwen3 shape (vocabulary 96, hidden 64, 2 layers, 4 heads over 2 key/value heads of 16)
// for checks that need a real network but no checkpoint.
ModelConfig tinyModelConfig();

// Runs two sequences of different lengths through prefill, denoising and commit passes and
// returns the largest difference of the denoising logits from forward() over the same tokens with
// the block-causal mask (blocks aligned to position 0).
double cachedDecodingDeviation(Qwen3Model& model, std::int64_t blockLength, std::uint64_t seed);

// Largest difference between the logits of decoding passes (prefill, denoise and commit of two rows
// at different positions) with the fused kernels and with LibTorch's operators alone, relative to
// the largest logit. Needs a model on CUDA.
double fusedAgainstUnfused(Qwen3Model& model, std::int64_t blockLength, std::uint64_t seed);

// Largest difference of the engine's float32 logits from those transformers recorded in the
// parity fixture (scripts/make_qwen3_fixture.py), over its causal, offset and block-causal cases.
double fixtureDeviation(Qwen3Model& model, const std::string& fixtureFolder);

// "cpu.model_cache" (cached decoding against the block-causal forward pass) and "gpu.model"
// (transformers parity, fused and cached passes, CUDA graphs).
void addModelChecks(std::vector<SelfTestCheck>& checks);

} // namespace dice
