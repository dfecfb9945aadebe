// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/prompts/decoding_presets.h"

#include <nlohmann/json.hpp>

namespace dice {

namespace {

DecodingPreset paperPreset(const std::string& name) {
    DecodingPreset preset;
    preset.name = name;
    preset.sampler.blockLength = 4;
    preset.sampler.steps = 4;
    preset.sampler.temperature = 1.0;
    preset.sampler.topP = 1.0;
    preset.sampler.maxTokens = 4096;
    return preset;
}

} // namespace

DecodingPreset evaluationPreset() {
    DecodingPreset preset = paperPreset("eval");
    preset.sampler.strategy = RemaskStrategy::LowConfidenceStatic;
    preset.sampler.topK = 1;
    preset.stopAtEndToken = false;
    return preset;
}

DecodingPreset rolloutPreset() {
    DecodingPreset preset = paperPreset("rollout");
    preset.sampler.strategy = RemaskStrategy::LowConfidenceDynamic;
    preset.sampler.threshold = 0.9;
    preset.sampler.topK = 0;
    preset.stopAtEndToken = true;
    return preset;
}

std::optional<DecodingPreset> presetByName(const std::string& name) {
    if (name == "eval" || name == "evaluation")
        return evaluationPreset();
    if (name == "rollout")
        return rolloutPreset();
    return std::nullopt;
}

std::vector<std::string> presetNames() {
    return {"eval", "rollout"};
}

nlohmann::json toJson(const DecodingPreset& preset) {
    const SamplerOptions& s = preset.sampler;
    return {{"name", preset.name},
            {"block_length", s.blockLength},
            {"denoising_steps", s.steps},
            {"remasking", toString(s.strategy)},
            {"confidence_threshold", s.threshold},
            {"temperature", s.temperature},
            {"top_k", s.topK},
            {"top_p", s.topP},
            {"max_new_tokens", s.maxTokens},
            {"stop_at_end_token", preset.stopAtEndToken}};
}

} // namespace dice
