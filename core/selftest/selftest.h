// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace dice {

enum class CheckStatus { Passed, Failed, Skipped };
std::string toString(CheckStatus status);

struct CheckResult {
    std::string name;
    std::string group; // "cpu" or "gpu"
    CheckStatus status = CheckStatus::Skipped;
    std::string message; // what was found, or why it was skipped or failed
    double milliseconds = 0;
    nlohmann::json data = nlohmann::json::object(); // measurements
};

// A check throws SkipCheck when what it needs is absent (no driver, no GPU).
struct SkipCheck {
    std::string reason;
};

struct SelfTestCheck {
    std::string name;
    std::string group;
    std::string description;
    // Fills data and message; returns normally to pass, throws SkipCheck to skip, throws anything
    // else to fail.
    std::function<void(CheckResult&)> run;
};

struct SelfTestOptions {
    bool includeGpu = true;
    std::string filter; // run only checks whose name contains this
    std::string skip;   // and none whose name contains this
};

// The checks of `dice selftest`, in order: LibTorch on the CPU, NVRTC, then the GPU checks (driver,
// launch on LibTorch tensors, CUDA events, CUPTI), then what later parts of the product register.
std::vector<SelfTestCheck> selfTestChecks();

std::vector<CheckResult> runSelfTest(const SelfTestOptions& options,
                                     const std::function<void(const CheckResult&)>& onResult = {});

nlohmann::json toJson(const CheckResult& result);
// True when no check failed.
bool selfTestPassed(const std::vector<CheckResult>& results);

} // namespace dice
