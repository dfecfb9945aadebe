// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/autocast_scope.h"
#include "core/model/qwen3_model.h"
#include "core/train/run_folder.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

// What the trainers share: model folders (the checkpoints of a run
// folder are in run_folder.h) and the clock their figures are timed with.
namespace dice {

using TrainClock = std::chrono::steady_clock;
inline double secondsSince(TrainClock::time_point start) {
    return std::chrono::duration<double>(TrainClock::now() - start).count();
}

// Writes a Hugging Face folder (config.json, generation_config.json, model.safetensors,
// tokenizer.json) through a temporary folder and a rename.
void saveModelFolder(const Qwen3Model& model, const std::string& folder,
                     const std::string& tokenizerPath, ModelDType dtype);

} // namespace dice
