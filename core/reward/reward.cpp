// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/reward/reward.h"

#include "core/common/error.h"
#include "core/cuda/compiler_options.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>

namespace dice {

namespace {

const std::set<std::string> kHackFlags = {"fallback",
                                          "foreign_kernels",
                                          "cached_results",
                                          "lazy_output",
                                          "inputs_mutated",
                                          "uninitialised_output",
                                          "out_of_bounds_write",
                                          "shape_specialised",
                                          "below_physical_bound",
                                          "excessive_speedup",
                                          "timing_misreported",
                                          "reply_ahead",
                                          "threads_started",
                                          "no_launch"};

double number(const nlohmann::json& json, const char* key, double fallback, double least,
              double most) {
    if (!json.contains(key))
        return fallback;
    const auto& v = json.at(key);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < least ||
        v.get<double>() > most)
        throw Error(std::string("reward option \"") + key + "\" must be a number from " +
                    std::to_string(least) + " to " + std::to_string(most));
    return v.get<double>();
}

int whole(const nlohmann::json& json, const char* key, int fallback, int least, int most) {
    if (!json.contains(key))
        return fallback;
    const auto& v = json.at(key);
    if (!v.is_number_integer() || v.get<long long>() < least || v.get<long long>() > most)
        throw Error(std::string("reward option \"") + key + "\" must be a whole number from " +
                    std::to_string(least) + " to " + std::to_string(most));
    return static_cast<int>(v.get<long long>());
}

} // namespace

EvalOptions judgeOptions(const RewardOptions& options) {
    EvalOptions e;
    e.preset = options.preset;
    e.tolerance = options.tolerance;
    e.correctnessTrials = options.correctnessTrials;
    e.strict = true;
    e.timing = options.mode == JudgeMode::Timed;
    e.fastCompile = options.mode == JudgeMode::Timed ? std::string() : options.fastCompile;
    e.compileOnly = options.mode == JudgeMode::Compile;
    e.warmups = options.warmups;
    e.timingTrials = options.timingTrials;
    e.checkedTimedCalls = std::min(e.checkedTimedCalls, std::max(1, options.timingTrials / 2));
    return e;
}

bool isHackFlag(const std::string& code) {
    return kHackFlags.count(code) != 0;
}

RewardBreakdown scoreEvaluation(const EvaluationResult& r, const RewardOptions& options) {
    RewardBreakdown b;
    b.speedup = r.speedup;
    if (r.verdict == Verdict::Fallback)
        b.hackReason = "verdict fallback";
    for (const auto& flag : r.flags)
        if (b.hackReason.empty() && isHackFlag(flag.code))
            b.hackReason = "flag " + flag.code;
    if (!b.hackReason.empty()) {
        b.hack = true;
        b.value = options.hackReward;
        return b;
    }
    b.correct = options.mode == JudgeMode::Compile ? r.compiled && r.verdict == Verdict::NotRun
                                                   : r.verdict == Verdict::Correct;
    if (r.candidateTime && r.candidateKernelTime && r.candidateTime->medianMs > 0)
        b.coverage =
            std::clamp(r.candidateKernelTime->medianMs / r.candidateTime->medianMs, 0.0, 1.0);
    if (!b.correct)
        return b;
    b.value = 1.0 + options.speedupWeight * std::clamp(r.speedup, 0.0, options.speedupClip) +
              options.coverageWeight * b.coverage;
    return b;
}

std::string toString(JudgeMode mode) {
    switch (mode) {
    case JudgeMode::Timed:
        return "timed";
    case JudgeMode::Compile:
        return "compile";
    case JudgeMode::Correctness:
        break;
    }
    return "correctness";
}

JudgeMode parseJudgeMode(const std::string& text) {
    if (text == "correctness")
        return JudgeMode::Correctness;
    if (text == "timed")
        return JudgeMode::Timed;
    if (text == "compile")
        return JudgeMode::Compile;
    throw Error("judge mode \"" + text + "\" is not \"correctness\", \"timed\" or \"compile\"");
}

nlohmann::json toJson(const RewardOptions& o) {
    return {{"mode", toString(o.mode)},
            {"preset", o.preset},
            {"tolerance", o.tolerance},
            {"correctness_trials", o.correctnessTrials},
            {"warmups", o.warmups},
            {"timing_trials", o.timingTrials},
            {"speedup_weight", o.speedupWeight},
            {"speedup_clip", o.speedupClip},
            {"coverage_weight", o.coverageWeight},
            {"hack_reward", o.hackReward},
            {"fast_compile", o.fastCompile.empty() ? std::string("off") : o.fastCompile}};
}

RewardOptions rewardOptionsFromJson(const nlohmann::json& json) {
    if (!json.is_object())
        throw Error("reward options must be a JSON object");
    RewardOptions o;
    if (json.contains("mode")) {
        if (!json["mode"].is_string())
            throw Error("reward option \"mode\" must be \"correctness\" or \"timed\"");
        o.mode = parseJudgeMode(json["mode"].get<std::string>());
    }
    if (json.contains("preset")) {
        if (!json["preset"].is_string())
            throw Error("reward option \"preset\" must be a preset's name");
        o.preset = json["preset"].get<std::string>();
    }
    o.tolerance = number(json, "tolerance", o.tolerance, 1e-8, 1.0);
    o.correctnessTrials = whole(json, "correctness_trials", o.correctnessTrials, 1, 100);
    o.warmups = whole(json, "warmups", o.warmups, 0, 100);
    o.timingTrials = whole(json, "timing_trials", o.timingTrials, 1, 1000);
    o.speedupWeight = number(json, "speedup_weight", o.speedupWeight, 0, 100);
    o.speedupClip = number(json, "speedup_clip", o.speedupClip, 0, 1000);
    o.coverageWeight = number(json, "coverage_weight", o.coverageWeight, 0, 100);
    o.hackReward = number(json, "hack_reward", o.hackReward, -100, 0);
    if (json.contains("fast_compile")) {
        // "off" is every optimisation; an empty level, which means the same inside, is not taken.
        const std::string level =
            json["fast_compile"].is_string() ? json["fast_compile"].get<std::string>() : "";
        if (level != "off" && (level.empty() || !isFastCompileLevel(level)))
            throw Error("reward option \"fast_compile\" must be \"off\", \"min\", \"mid\" or "
                        "\"max\"");
        o.fastCompile = level == "off" ? std::string() : level;
    }
    return o;
}

nlohmann::json toJson(const RewardBreakdown& b) {
    nlohmann::json j = {{"value", b.value},
                        {"correct", b.correct},
                        {"hack", b.hack},
                        {"speedup", b.speedup},
                        {"coverage", b.coverage}};
    if (b.hack)
        j["hack_reason"] = b.hackReason;
    return j;
}

RewardBreakdown rewardBreakdownFromJson(const nlohmann::json& j) {
    RewardBreakdown b;
    b.value = j.at("value").get<double>();
    b.correct = j.at("correct").get<bool>();
    b.hack = j.at("hack").get<bool>();
    b.speedup = j.value("speedup", 0.0);
    b.coverage = j.value("coverage", 0.0);
    b.hackReason = j.value("hack_reason", std::string());
    return b;
}

} // namespace dice
