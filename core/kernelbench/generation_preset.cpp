// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/kernelbench/generation_preset.h"

#include <nlohmann/json.hpp>

namespace dice::kernelbench {

GenerationPreset evaluationPreset() {
    GenerationPreset preset;
    preset.name = "eval";
    preset.remasking = "low_confidence_static";
    preset.topK = 1;
    preset.stopAtEndToken = false;
    return preset;
}

GenerationPreset rolloutPreset() {
    GenerationPreset preset;
    preset.name = "rollout";
    preset.remasking = "low_confidence_dynamic";
    preset.confidenceThreshold = 0.9;
    preset.topK = 0;
    preset.stopAtEndToken = true;
    return preset;
}

std::optional<GenerationPreset> presetByName(const std::string& name) {
    if (name == "eval" || name == "evaluation")
        return evaluationPreset();
    if (name == "rollout")
        return rolloutPreset();
    return std::nullopt;
}

std::vector<std::string> presetNames() {
    return {"eval", "rollout"};
}

nlohmann::json toJson(const GenerationPreset& preset) {
    return {{"name", preset.name},
            {"block_length", preset.blockLength},
            {"denoising_steps", preset.denoisingSteps},
            {"remasking", preset.remasking},
            {"confidence_threshold", preset.confidenceThreshold},
            {"temperature", preset.temperature},
            {"top_k", preset.topK},
            {"top_p", preset.topP},
            {"max_new_tokens", preset.maxNewTokens},
            {"stop_at_end_token", preset.stopAtEndToken}};
}

} // namespace dice::kernelbench
