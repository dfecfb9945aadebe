// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace dice::kernelbench {

// The decoding settings DICE used, as a small value type the sampler's settings are made from.
// Independent of the sampler on purpose: the paper's numbers belong to the benchmark bridge, and
// the sampler only has to accept them.
struct GenerationPreset {
    std::string name;
    int blockLength = 4;
    int denoisingSteps = 4;
    // "low_confidence_static", "low_confidence_dynamic", "sequential" or "entropy_bounded"
    std::string remasking = "low_confidence_static";
    double confidenceThreshold = 0.9; // used by low_confidence_dynamic only
    double temperature = 1.0;
    int topK = 0; // 0: off
    double topP = 1.0;
    int maxNewTokens = 4096;
    // DICE's evaluation decodes the whole budget; its rollout engine stops at an end token.
    bool stopAtEndToken = false;
};

// The paper's KernelBench evaluation: block 4, 4 steps, low_confidence_static, temperature 1,
// top-k 1 (greedy), top-p 1, 4096 new tokens, no early stop.
GenerationPreset evaluationPreset();
// The RL rollouts of both BiC-RL stages: block 4, 4 steps, low_confidence_dynamic with threshold
// 0.9, temperature 1, top-k off, top-p 1, 4096 new tokens, stop at the end token.
GenerationPreset rolloutPreset();

// "eval" (or "evaluation") and "rollout"; nullopt for anything else.
std::optional<GenerationPreset> presetByName(const std::string& name);
std::vector<std::string> presetNames();

nlohmann::json toJson(const GenerationPreset& preset);

} // namespace dice::kernelbench
