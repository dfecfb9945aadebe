// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/eval_options.h"
#include "core/eval/evaluation.h"

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <string>
#include <vector>

// Curation of the synthetic corpus (docs/corpus-format.md): every task's solution is checked by
// the evaluator on the GPU; a representative subset (one variant in `timeEvery` of each family,
// and at least one per family) is timed; a task is kept when it is verified and its measured
// speedup, or for an untimed task its family's median measured speedup, reaches the threshold
// (the paper's CuKe keeps 2x and faster). Only the kept tasks' examples go to the curated corpus.
namespace dice {

struct CurationOptions {
    std::string corpus; // a folder written by `dice data synth`
    std::string output; // the curated corpus (same layout) and curation.json
    double threshold = 2.0;
    int timeEvery = 8;
    EvalOptions check;  // correctness only (defaults: small preset, 2 trials, no timing)
    EvalOptions timing; // the timed subset (defaults: bench preset, 20 timed calls)
    std::vector<int> devices = {0};
    // Workers per GPU for the correctness pass; the timed subset runs with one per GPU, since a
    // timing shares its GPU with nothing.
    int checkWorkersPerDevice = 1;
    // An earlier curation report of the same corpus: its verdicts and measured speedups are
    // taken instead of evaluating again (to apply another threshold without a GPU).
    std::string measurements;
    std::string workerExecutable; // dice-evald; empty: the one beside the running program
    std::function<void(std::size_t done, std::size_t total, const std::string& what)> progress;

    CurationOptions();
};

struct CuratedTask {
    std::string task;
    std::string family;
    int level = 1;
    Verdict verdict = Verdict::NotRun;
    std::string message;
    bool timed = false;
    double speedup = 0; // measured (timed) or the family's median (estimated)
    bool speedupEstimated = false;
    bool kept = false;
};

struct CurationReport {
    double threshold = 2.0;
    std::vector<CuratedTask> tasks;
    int verified = 0;
    int timed = 0;
    int kept = 0;
    std::size_t keptExamples = 0;
    double evaluationSeconds = 0; // wall time of the GPU work
    // Measured speedups of the timed tasks, in bins: < 0.5, 0.5-1, 1-1.5, 1.5-2, 2-3, >= 3.
    std::vector<int> histogram;
    std::string note; // why nothing could be verified, when that is so
};

// The keep rule on finished checks and timings (tasks in corpus order; `timed` marks those that
// were timed). Fills speedup, speedupEstimated and kept, and the report's counts and histogram.
void decideKept(std::vector<CuratedTask>& tasks, double threshold, CurationReport& report);

// Throws dice::Error naming the folder when the corpus cannot be read.
CurationReport curateCorpus(const CurationOptions& options);

nlohmann::json toJson(const CurationReport& report);

} // namespace dice
