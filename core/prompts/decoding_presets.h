// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/diffusion/sdar_sampler.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace dice {

// A decoding setting DICE used, as the sampler's own options. The model fills in what belongs to
// it (mask and stop ids, the vocabulary limit); the caller sets the seed.
struct DecodingPreset {
    std::string name;
    SamplerOptions sampler;
    // DICE's evaluation decodes the whole budget; its rollout engine stops at an end token.
    bool stopAtEndToken = false;
};

// The paper's KernelBench evaluation: block 4, 4 steps, low_confidence_static, temperature 1,
// top-k 1 (greedy), top-p 1, 4096 new tokens, no early stop.
DecodingPreset evaluationPreset();
// The RL rollouts of both BiC-RL stages: block 4, 4 steps, low_confidence_dynamic with threshold
// 0.9, temperature 1, top-k off, top-p 1, 4096 new tokens, stop at the end token.
DecodingPreset rolloutPreset();

// "eval" (or "evaluation") and "rollout"; nullopt for anything else.
std::optional<DecodingPreset> presetByName(const std::string& name);
std::vector<std::string> presetNames();

nlohmann::json toJson(const DecodingPreset& preset);

} // namespace dice
