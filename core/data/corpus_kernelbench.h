// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/data/corpus_synth.h"

#include <string>
#include <utility>
#include <vector>

namespace dice {

// The corpus's tasks asked as the workbench asks about an imported KernelBench problem: each
// task's module text is written as a problem file, converted with the KernelBench importer, and
// the converted task (its title, description and traced reference are the importer's) is paired
// with the task's own solution. The real KernelBench problems never enter training: these are the
// corpus's own operators in KernelBench's clothes.
struct KernelBenchStyleOptions {
    std::string directory; // problem files (problems/levelN/NAME.py) and converted tasks (tasks/)
    std::string python;    // empty: the first python3 with PyTorch
    // Give each problem a surface drawn from KernelBench's own (file names after the operator,
    // "Simple model that performs ..." docstrings, sizes named batch_size and dim) instead of the
    // corpus task's name, description and size names. The solution is unchanged.
    bool varySurface = false;
};

struct KernelBenchStyleReport {
    std::string python;
    std::string torchVersion;
    std::size_t problems = 0;  // problem files written
    std::size_t converted = 0; // converted by the importer
    // Converted tasks whose inputs or parameters are not the corpus task's (names, dtypes, order)
    // and problems the importer could not convert, with the reason.
    std::vector<std::pair<std::string, std::string>> skipped;
};

// One task per convertible corpus task, in the order of `tasks`, with the corpus task's solution,
// family and split, marked kernelbenchStyle. Throws Error when no python3 with PyTorch is found.
std::vector<SynthTask> kernelbenchStyleTasks(const std::vector<SynthTask>& tasks,
                                             const KernelBenchStyleOptions& options,
                                             KernelBenchStyleReport* report = nullptr);

} // namespace dice
