// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/eval_options.h"
#include "core/eval/evaluation.h"
#include "core/eval/metrics.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

// A suite of tasks evaluated with a folder of candidates, the way the paper scores a model: the
// candidate of task T is <folder>/T.dice, a task without one counts as a failure, and the
// metrics (Exec, fast_p, geometric-mean speedups, per level, raw and strict) are taken over the
// first round of evaluations.
namespace dice {

class Evaluator;
struct TaskSuite;

struct SuiteEvaluationOptions {
    std::string candidateDirectory;
    EvalOptions eval;
    // Every candidate is evaluated this many times, with the same warm workers.
    int repeats = 1;
};

// One evaluation of one candidate.
struct SuiteRun {
    std::size_t task = 0; // index in the suite's tasks
    int round = 0;        // 0 for the first evaluation of the candidate
    std::string source;   // the candidate as evaluated
    EvaluationResult result;
};

struct SuiteEvaluation {
    // Round after round; within a round, the candidates in the suite's order of tasks.
    std::vector<SuiteRun> runs;
    // One per task of the suite, in its order, with the first round's result (none: no
    // candidate).
    std::vector<TaskOutcome> outcomes;
    MetricsTable metrics;
    // The tasks that have no candidate, in the suite's order.
    std::vector<std::string> missing() const;
};

// Called as each evaluation finishes, from the evaluator's threads, one call at a time:
// `finished` of `total` evaluations are done.
using SuiteProgressFn =
    std::function<void(const EvaluationResult& result, std::size_t finished, std::size_t total)>;

// Evaluates every task's candidate with the evaluator's pool. Throws Error for a number of
// repeats below 1 and FileError for a candidate that cannot be read; a candidate that fails
// becomes its verdict. Once `cancel` is raised, the evaluations not yet started are NotRun
// (Evaluator::evaluateAll) and the metrics count them as failures.
SuiteEvaluation evaluateSuite(Evaluator& evaluator, const TaskSuite& suite,
                              const SuiteEvaluationOptions& options,
                              const SuiteProgressFn& progress = {},
                              const std::atomic<bool>* cancel = nullptr);

// The table of `dice eval --suite`: one line per task (level, verdict, speedup, flags), then the
// metrics table.
std::string formatSuiteEvaluation(const SuiteEvaluation& evaluation);

} // namespace dice
