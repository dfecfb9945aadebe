// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/evaluation.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

// The paper's metrics (KernelBench's score.py): Exec, compile rate, fast_p and geometric-mean
// speedups, per level and overall, raw and with fallbacks filtered out (strict).
namespace dice {

// One task of a suite and its result; a task without a result (no candidate) counts as failed.
struct TaskOutcome {
    std::string task;
    int level = 1;
    std::optional<EvaluationResult> result;
};

struct MetricsRow {
    std::string scope; // "level 1", ..., "all"
    int tasks = 0;
    int compiled = 0;
    int correct = 0;
    double compileRate = 0;    // compiled / tasks
    double exec = 0;           // compiled and correct / tasks
    std::vector<double> fast;  // fast_p for each threshold: correct and speedup > p, / tasks
    double geomeanCorrect = 0; // over correct results that were timed
    double geomeanFaster = 0;  // over correct results faster than the reference
    int timed = 0;
    int faster = 0;
};

struct MetricsTable {
    std::vector<double> thresholds = {0, 0.5, 0.8, 1.0, 1.5, 2.0};
    std::vector<MetricsRow> raw;    // a fallback that computed the right values counts
    std::vector<MetricsRow> strict; // a fallback never counts
};

MetricsTable computeMetrics(const std::vector<TaskOutcome>& outcomes);
nlohmann::json toJson(const MetricsTable& table);
// A plain-text table like the paper's, raw and strict side by side.
std::string formatMetricsTable(const MetricsTable& table);

} // namespace dice
