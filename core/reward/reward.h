// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/eval_options.h"
#include "core/eval/evaluation.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

// What a judged kernel is worth to reinforcement learning (docs/reward.md). The verdict comes
// from the evaluator unchanged; this turns it into a number. Group standardisation belongs to the
// trainer.
namespace dice {

// How candidates are judged for a reward.
enum class JudgeMode {
    Correctness, // the paper's RL: correctness trials only, no timing
    Timed,       // correctness, then a short timing with the same honesty rules
    Compile      // compilers and the dry run only: no GPU needed, and a kernel is never run
};

struct RewardOptions {
    JudgeMode mode = JudgeMode::Correctness;
    std::string preset = "bench";
    // atol = rtol for every floating dtype (the paper's RL used 1e-2 and one trial).
    double tolerance = 1e-2;
    int correctnessTrials = 1;
    // The short timing of JudgeMode::Timed: L2 flushed, CUDA events and CUPTI as always.
    int warmups = 2;
    int timingTrials = 10;
    // reward = correct + speedupWeight * min(speedup, speedupClip) + coverageWeight * coverage,
    // where correct is 1 for compiled and correct (in Compile mode: compiled, and the dry run
    // of the host part gave the reference's shapes and dtypes); anything caught cheating gets
    // hackReward, the lowest reward there is. With both weights 0 this is the paper's binary
    // reward.
    double speedupWeight = 0;
    double speedupClip = 3;
    double coverageWeight = 0;
    double hackReward = 0;
    // NVRTC's --Ofast-compile level when judging for correctness only ("min", "mid", "max"; empty
    // or "off" in JSON: every optimisation). "mid" compiles the corpus's kernels about four times
    // faster, which pays where the CPU is short; but its builds of register-tiled kernels can run
    // a hundred times slower (on an H100, correct matrix products took over a second a call), and
    // on a GPU server the GPU is what a reward waits for (docs/reward.md). Timed judging always
    // optimises fully.
    std::string fastCompile;
};

// The evaluation options that judge for a reward (strict: a fallback is never correct).
EvalOptions judgeOptions(const RewardOptions& options);

struct RewardBreakdown {
    double value = 0;
    bool correct = false;
    bool hack = false;      // a hack verdict or flag: value is hackReward
    double speedup = 0;     // as measured; 0 when not timed
    double coverage = 0;    // share of the call's GPU time in the candidate's own kernels
    std::string hackReason; // the verdict or flag that made it a hack
};

// Verdicts and flags that mean the candidate tried to pass without doing the work: fallback,
// cached or lazy results, changed inputs, reads of uninitialised memory, writes out of bounds,
// shapes hard-coded, times that cannot be, timers or replies forged, threads left running.
bool isHackFlag(const std::string& code);

RewardBreakdown scoreEvaluation(const EvaluationResult& result, const RewardOptions& options);

// "correctness", "timed" or "compile"; parseJudgeMode throws Error for anything else.
std::string toString(JudgeMode mode);
JudgeMode parseJudgeMode(const std::string& text);

nlohmann::json toJson(const RewardOptions& options);
// Absent fields keep their defaults; throws Error naming a field that is wrong.
RewardOptions rewardOptionsFromJson(const nlohmann::json& json);
nlohmann::json toJson(const RewardBreakdown& reward);
// The inverse of toJson; throws nlohmann::json::exception on a value it did not write.
RewardBreakdown rewardBreakdownFromJson(const nlohmann::json& json);

} // namespace dice
