// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/model_config.h"
#include "core/model/qwen3_model.h"
#include "core/train/train_common.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace dice {

// Supervised fine-tuning with the block-diffusion objective (bd3_batch.h), as SDAR and DICE are
// trained: AdamW with linear warm-up and cosine decay, gradient clipping, bfloat16 autocast on
// CUDA, checkpoints in the Hugging Face format with everything needed to resume after a kill,
// metrics as JSON lines. docs/training.md describes the files.
struct SftOptions {
    std::string corpus;    // corpus.jsonl
    std::string tokenizer; // tokenizer.json (copied into every checkpoint)
    std::string output;    // the run folder
    // Start from this Hugging Face folder; when empty, a new model of `config` with random
    // weights (seeded) is trained.
    std::string initFrom;
    ModelConfig config;

    std::int64_t steps = 1000;
    std::int64_t batchSize = 8;    // sequences per step
    std::int64_t maxLength = 1024; // longer sequences are left out
    std::int64_t blockLength = 4;
    double learningRate = 1e-3;
    double minLearningRate = 1e-4;
    std::int64_t warmupSteps = 100;
    double weightDecay = 0.01;
    double beta1 = 0.9;
    double beta2 = 0.95;
    double clipNorm = 1.0;
    std::int64_t evalEvery = 100; // held-out loss every so many steps (0: never)
    std::int64_t evalSequences = 64;
    std::int64_t saveEvery = 200; // checkpoint every so many steps (and at the end)
    std::uint64_t seed = 1;
    ModelPlacement placement;                    // the device; weights train in float32
    bool mixedPrecision = true;                  // bfloat16 autocast where the device is CUDA
    ModelDType saveDType = ModelDType::BFloat16; // of the final model
    int threads = 0;                             // CPU threads for LibTorch (0: leave as is)
    bool resume = true;                          // continue from the newest checkpoint in `output`
    std::function<void(const std::string&)> log;
    const std::atomic<bool>* cancel = nullptr;
};

struct SftReport {
    std::int64_t firstStep = 0; // 0, or where a resumed run started
    std::int64_t steps = 0;     // steps done when it stopped
    double firstLoss = 0;       // mean over the first logged window
    double lastLoss = 0;        // mean over the last logged window
    double evalLoss = -1;       // last held-out loss, -1 when none
    double seconds = 0;
    double tokensPerSecond = 0; // doubled-sequence tokens processed per second
    std::size_t trainSequences = 0;
    std::size_t evalSequences = 0;
    bool cancelled = false;
    std::string modelFolder; // the final model (output/model)
};

SftReport trainSft(const SftOptions& options);

// Learning rate at `step` (0-based): linear warm-up to `peak`, then cosine decay to `floor`.
double scheduledLearningRate(std::int64_t step, std::int64_t steps, std::int64_t warmup,
                             double peak, double floor);

} // namespace dice
