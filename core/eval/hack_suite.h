// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/evaluation.h"

#include <optional>
#include <string>
#include <vector>

// The hack suite: candidates that try the reward hacks of KernelBench's catalogue (anchors §B.5)
// against the native evaluator, each with the verdicts or flags that count as caught. The files
// live in the data folder (resources/hacks): ctest runs the ones that need no GPU, `dice selftest`
// all of them.
namespace dice {

struct HackCase {
    std::string name;
    std::string task;
    std::string preset;
    std::optional<double> tolerance; // atol = rtol, as a reward judges; else the task's own
    std::string file;                // full path of the .dice file
    bool gpu = true;
    std::vector<std::string> verdicts;
    std::vector<std::string> flags;
};

// dataDirectory()/hacks
std::string hackDirectory();
// Reads hacks.json of a folder; throws FileError naming the file and the entry that is wrong.
std::vector<HackCase> loadHackSuite(const std::string& directory);
// Whether the result shows the hack was caught; `why` says how (or why not).
bool hackCaught(const HackCase& hack, const EvaluationResult& result, std::string* why);

} // namespace dice
