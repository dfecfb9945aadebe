// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace dice {

// How one evaluation is run (DESIGN.md, "Protocol of one evaluation"). The defaults are the
// workbench's protocol; every field can be changed per request.
struct EvalOptions {
    std::string preset = "bench";
    int correctnessTrials = 5;
    int warmups = 3;
    int timingTrials = 100;
    // atol = rtol for every floating dtype when set (the paper used 1e-2); else the task's table.
    std::optional<double> tolerance;
    // A fallback is never counted as correct when strict.
    bool strict = true;
    // Also check correctness on the task's `small` preset, so that a kernel hard-coded to the
    // benchmark's shapes fails.
    bool checkSmallPreset = true;
    int smallPresetTrials = 2;
    // Timed calls whose outputs are compared with the reference (spread over the timed trials).
    int checkedTimedCalls = 5;
    double excessiveSpeedup = 10.0;
    bool timing = true;
    // Stop after the compilers and the dry run, as without a GPU (the reward of a machine
    // without one, and a quick check).
    bool compileOnly = false;
    // NVRTC target; empty: the GPU's, else sm_90.
    std::string architecture;
    // The user's compiler options for the device part (compiler_options.h), one line; checked
    // against the allow-list wherever they are read.
    std::string compilerOptions;
    // NVRTC's --Ofast-compile level for the device part ("min", "mid" or "max"; empty: every
    // optimisation). A reward judged for correctness only compiles several times faster with it
    // (docs/reward.md); a timed evaluation keeps every optimisation. A kernel whose less
    // optimised build cannot launch for its registers is compiled again with every optimisation.
    std::string fastCompile;
    // Seeds of the correctness trials derive from this; 0: the task's seed.
    std::uint64_t seed = 0;
};

nlohmann::json toJson(const EvalOptions& options);
// Reads options; absent fields keep their defaults. Throws Error naming the field that is wrong.
EvalOptions evalOptionsFromJson(const nlohmann::json& json);

} // namespace dice
