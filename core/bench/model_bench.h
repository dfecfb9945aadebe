// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/model_config.h"
#include "core/model/qwen3_model.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dice {

// The network shapes of the SDAR/DICE checkpoints ("1.7b", "4b", "8b": head_dim 128, vocabulary
// 151,936, untied lm_head) and a ~20M-parameter one ("20m") for CPUs. Throws Error for other names.
ModelConfig benchmarkShape(const std::string& name);

struct ModelBenchOptions {
    ModelDevice device = ModelDevice::Cuda;
    ModelDType dtype = ModelDType::BFloat16;
    std::vector<std::string> shapes = {"1.7b", "4b", "8b"};
    std::vector<std::int64_t> batches = {1, 16};
    std::int64_t cached = 512;         // tokens in the cache for the denoising pass
    std::int64_t blockLength = 4;      // tokens of the block that is denoised
    std::int64_t passIterations = 50;  // timed denoising passes (after warm-ups)
    std::int64_t generateTokens = 512; // tokens per generation
    double bandwidth = 4.8e12;         // bytes/s for the weight-streaming bound (an H200's)
    bool cudaGraphs = true;
    int cpuThreads = 0; // 0: one per hardware thread
    // Runs transformers' Qwen3 on the same shapes (a Python script; empty: skipped).
    std::string transformersScript;
    std::string python = "python3";
    std::function<void(const std::string&)> log;
};

// Random weights in each shape, built on the device: milliseconds per denoising pass (median of
// passIterations, CUDA events on a GPU), tokens per second of a generation with static and with
// dynamic decoding, peak GPU memory; the same passes through transformers when a script is given;
// and the weight-streaming bound beside each. On a GPU with CUPTI, each pass entry also tells what
// the GPU spends a pass on: time in kernels, time idle, and the kernels that take the most.
// Returns the "results" part of the result file.
nlohmann::json runModelBenchmark(const ModelBenchOptions& options);

} // namespace dice
