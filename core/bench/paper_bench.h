// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/engine/model_session.h"
#include "core/eval/evaluation.h"
#include "core/eval/metrics.h"
#include "core/kernelbench/python_evaluator.h"
#include "core/prompts/decoding_presets.h"

#include <nlohmann/json_fwd.hpp>

#include <atomic>
#include <functional>
#include <string>
#include <vector>

// The paper's KernelBench table, reproduced by the workbench: one answer per problem from the
// model with a decoding preset, the code cut out of it, its dialect recognised and evaluated
// (KernelBench answers by the Python evaluator, native answers by the native one against the
// imported task), everything kept in the run store so that a stopped run resumes where it was,
// and Exec, fast_p and the geometric-mean speedup per level, raw and with fallbacks filtered.
namespace dice::kernelbench {

struct PaperBenchOptions {
    std::string model;      // checkpoint folder
    SessionOptions session; // where and how to load it
    std::string problems;   // KernelBench's folder with level1/, level2/, ...
    std::vector<int> levels = {1};
    int limit = 0; // the first N problems of each level; 0: all
    DecodingPreset preset = evaluationPreset();
    std::uint64_t seed = 0;
    KernelBenchOptions evaluation = paperOptions();
    std::string tasks; // imported native tasks, for answers in the native dialect
    std::string store; // the run store file
    const std::atomic<bool>* cancel = nullptr;
};

struct PaperBenchProblem {
    int level = 1;
    std::string file;     // the problem file
    std::string task;     // its task name, as `dice import kernelbench` names it
    bool resumed = false; // found in the run store, not generated again
    std::string dialect;  // of the answer: "kernelbench", "native" or "none"
    std::int64_t answerTokens = 0;
    double generationMs = 0;
    std::int64_t runId = 0;
    EvaluationResult result;
};

struct PaperBenchReport {
    std::string model;
    std::string preset;
    std::vector<PaperBenchProblem> problems;
    MetricsTable metrics;
    bool cancelled = false;
    double generationMs = 0; // generated in this run
    double evaluationMs = 0;
};

// "kb_l1_019_relu" for level 1's 19_ReLU.py: the importer's task name.
std::string kernelBenchTaskName(int level, const std::string& file);

// Throws dice::Error when the model or the problems cannot be read; a bad answer is a verdict.
PaperBenchReport runPaperBench(const PaperBenchOptions& options,
                               const std::function<void(const PaperBenchProblem&)>& onProblem = {});

nlohmann::json toJson(const PaperBenchReport& report);

} // namespace dice::kernelbench
