// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/selftest/selftest.h"

#include "core/selftest/distributed_checks.h"
#include "core/selftest/evaluator_checks.h"
#include "core/selftest/kernelbench_checks.h"
#include "core/selftest/machine_checks.h"
#include "core/selftest/model_checks.h"
#include "core/selftest/tokenizer_checks.h"

#include <chrono>
#include <exception>

namespace dice {

std::string toString(CheckStatus status) {
    switch (status) {
    case CheckStatus::Passed:
        return "passed";
    case CheckStatus::Failed:
        return "failed";
    case CheckStatus::Skipped:
        return "skipped";
    }
    return "failed";
}

std::vector<SelfTestCheck> selfTestChecks() {
    std::vector<SelfTestCheck> checks;
    addMachineChecks(checks);
    addModelChecks(checks);
    addTokenizerChecks(checks);
    addEvaluatorChecks(checks);
    addKernelBenchChecks(checks);
    addDistributedChecks(checks);
    return checks;
}

std::vector<CheckResult> runSelfTest(const SelfTestOptions& options,
                                     const std::function<void(const CheckResult&)>& onResult) {
    std::vector<CheckResult> results;
    for (const auto& check : selfTestChecks()) {
        if ((!options.filter.empty() && check.name.find(options.filter) == std::string::npos) ||
            (!options.skip.empty() && check.name.find(options.skip) != std::string::npos))
            continue;
        CheckResult result;
        result.name = check.name;
        result.group = check.group;
        const auto start = std::chrono::steady_clock::now();
        if (check.group == "gpu" && !options.includeGpu) {
            result.status = CheckStatus::Skipped;
            result.message = "GPU checks were not asked for";
        } else {
            try {
                check.run(result);
                result.status = CheckStatus::Passed;
            } catch (const SkipCheck& skip) {
                result.status = CheckStatus::Skipped;
                result.message = skip.reason;
            } catch (const std::exception& e) {
                result.status = CheckStatus::Failed;
                result.message = e.what();
            }
        }
        result.milliseconds =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        if (onResult)
            onResult(result);
        results.push_back(std::move(result));
    }
    return results;
}

nlohmann::json toJson(const CheckResult& r) {
    return nlohmann::json{{"name", r.name},
                          {"group", r.group},
                          {"status", toString(r.status)},
                          {"message", r.message},
                          {"milliseconds", r.milliseconds},
                          {"data", r.data}};
}

bool selfTestPassed(const std::vector<CheckResult>& results) {
    for (const auto& r : results)
        if (r.status == CheckStatus::Failed)
            return false;
    return true;
}

} // namespace dice
