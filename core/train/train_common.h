// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/qwen3_model.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

// What the trainers share: mixed precision on CUDA, model folders and the checkpoints of a run
// folder.
namespace dice {

// bfloat16 autocast for forward passes on CUDA while it lives; the weights and the optimizer stay
// float32. Does nothing when not enabled (or in a build without CUDA).
class AutocastScope {
public:
    explicit AutocastScope(bool enabled);
    ~AutocastScope();
    AutocastScope(const AutocastScope&) = delete;
    AutocastScope& operator=(const AutocastScope&) = delete;

private:
    bool m_enabled;
};

struct Checkpoint {
    std::filesystem::path folder;
    std::int64_t step = 0;
};

// The complete checkpoints of a run folder (output/checkpoints/step-NNNNNNNN, each with its
// trainer_state.json, which is written last), oldest first.
std::vector<Checkpoint> listCheckpoints(const std::filesystem::path& output);
// output/checkpoints/step-NNNNNNNN.
std::filesystem::path checkpointFolder(const std::filesystem::path& output, std::int64_t step);
// Removes all but the `keep` newest checkpoints.
void pruneCheckpoints(const std::filesystem::path& output, int keep);

// Writes a Hugging Face folder (config.json, generation_config.json, model.safetensors,
// tokenizer.json) through a temporary folder and a rename.
void saveModelFolder(const Qwen3Model& model, const std::string& folder,
                     const std::string& tokenizerPath, ModelDType dtype);

} // namespace dice
