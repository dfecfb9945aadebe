// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/eval/eval_options.h"

#include "core/common/error.h"
#include "core/cuda/compiler_options.h"

#include <nlohmann/json.hpp>

namespace dice {

nlohmann::json toJson(const EvalOptions& o) {
    nlohmann::json j = {{"preset", o.preset},
                        {"correctness_trials", o.correctnessTrials},
                        {"warmups", o.warmups},
                        {"timing_trials", o.timingTrials},
                        {"strict", o.strict},
                        {"check_small_preset", o.checkSmallPreset},
                        {"small_preset_trials", o.smallPresetTrials},
                        {"checked_timed_calls", o.checkedTimedCalls},
                        {"excessive_speedup", o.excessiveSpeedup},
                        {"timing", o.timing},
                        {"compile_only", o.compileOnly},
                        {"architecture", o.architecture},
                        {"compiler_options", o.compilerOptions},
                        {"fast_compile", o.fastCompile},
                        {"seed", o.seed}};
    if (o.tolerance)
        j["tolerance"] = *o.tolerance;
    return j;
}

namespace {

int readInt(const nlohmann::json& j, const char* key, int fallback, int low, int high) {
    if (!j.contains(key))
        return fallback;
    const nlohmann::json& value = j[key];
    if (!value.is_number_integer())
        throw Error(std::string("evaluation options: \"") + key + "\" must be an integer");
    // get<long long> casts: 2^64 - 1 would read as -1. The range is checked on the number as
    // it was written (low and high are never negative).
    const bool inRange = value.is_number_unsigned()
                             ? value.get<std::uint64_t>() >= static_cast<std::uint64_t>(low) &&
                                   value.get<std::uint64_t>() <= static_cast<std::uint64_t>(high)
                             : value.get<long long>() >= low && value.get<long long>() <= high;
    if (!inRange)
        throw Error(std::string("evaluation options: \"") + key + "\" must be between " +
                    std::to_string(low) + " and " + std::to_string(high));
    return static_cast<int>(value.get<long long>());
}

bool readBool(const nlohmann::json& j, const char* key, bool fallback) {
    if (!j.contains(key))
        return fallback;
    if (!j[key].is_boolean())
        throw Error(std::string("evaluation options: \"") + key + "\" must be true or false");
    return j[key].get<bool>();
}

std::string readString(const nlohmann::json& j, const char* key, const std::string& fallback) {
    if (!j.contains(key))
        return fallback;
    if (!j[key].is_string())
        throw Error(std::string("evaluation options: \"") + key + "\" must be a string");
    return j[key].get<std::string>();
}

} // namespace

EvalOptions evalOptionsFromJson(const nlohmann::json& j) {
    if (!j.is_object())
        throw Error("evaluation options must be a JSON object");
    EvalOptions o;
    o.preset = readString(j, "preset", o.preset);
    if (o.preset.empty())
        throw Error("evaluation options: \"preset\" is empty");
    o.correctnessTrials = readInt(j, "correctness_trials", o.correctnessTrials, 1, 1000);
    o.warmups = readInt(j, "warmups", o.warmups, 0, 1000);
    o.timingTrials = readInt(j, "timing_trials", o.timingTrials, 1, 100000);
    o.strict = readBool(j, "strict", o.strict);
    o.checkSmallPreset = readBool(j, "check_small_preset", o.checkSmallPreset);
    o.smallPresetTrials = readInt(j, "small_preset_trials", o.smallPresetTrials, 1, 1000);
    o.checkedTimedCalls = readInt(j, "checked_timed_calls", o.checkedTimedCalls, 0, 100000);
    o.timing = readBool(j, "timing", o.timing);
    o.compileOnly = readBool(j, "compile_only", o.compileOnly);
    o.architecture = readString(j, "architecture", o.architecture);
    if (!o.architecture.empty() && o.architecture.rfind("sm_", 0) != 0 &&
        o.architecture.rfind("compute_", 0) != 0)
        throw Error("evaluation options: \"architecture\" must look like sm_90");
    o.compilerOptions = readString(j, "compiler_options", o.compilerOptions);
    o.fastCompile = readString(j, "fast_compile", o.fastCompile);
    if (!isFastCompileLevel(o.fastCompile))
        throw Error("evaluation options: \"fast_compile\" must be \"\", \"min\", \"mid\" or "
                    "\"max\"");
    try {
        parseCompilerOptions(o.compilerOptions);
    } catch (const Error& e) {
        throw Error(std::string("evaluation options: ") + e.what());
    }
    if (j.contains("excessive_speedup")) {
        if (!j["excessive_speedup"].is_number() || j["excessive_speedup"].get<double>() <= 1)
            throw Error("evaluation options: \"excessive_speedup\" must be a number above 1");
        o.excessiveSpeedup = j["excessive_speedup"].get<double>();
    }
    if (j.contains("tolerance") && !j["tolerance"].is_null()) {
        if (!j["tolerance"].is_number() || j["tolerance"].get<double>() < 0 ||
            j["tolerance"].get<double>() > 1)
            throw Error("evaluation options: \"tolerance\" must be a number between 0 and 1");
        o.tolerance = j["tolerance"].get<double>();
    }
    if (j.contains("seed")) {
        if (!j["seed"].is_number_unsigned())
            throw Error("evaluation options: \"seed\" must be a non-negative integer");
        o.seed = j["seed"].get<std::uint64_t>();
    }
    return o;
}

} // namespace dice
