// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/store/run_store.h"

#include <string>
#include <vector>

namespace dice {

// Runs recorded elsewhere, made into run store records: a self-test result file (`dice selftest
// --output`, for example the GPU machine's under bench/results/) holds one evaluation per
// evaluator check; an evaluation file (`dice eval --json`) holds one evaluation or a list of
// them. The candidate's source is taken from the data folder where the file names it by check
// (solutions/TASK.dice for eval.TASK, hacks/NAME.dice for hack.NAME); the run keeps the file's
// date, device and driver, and is tagged "imported" and with the file's kind.
struct ImportedRuns {
    std::vector<RunRecord> runs;
    std::vector<std::string> skipped; // entries without an evaluation, with the reason
};

// Throws dice::Error naming `origin` and what is wrong when the JSON is not one of those files.
ImportedRuns importRuns(const std::string& json, const std::string& origin,
                        const std::string& dataDirectory);

} // namespace dice
