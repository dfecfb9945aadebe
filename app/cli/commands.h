// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace dice::cli {

// Each command gets the full argv (for result files) and its own arguments; returns the exit code.
struct Invocation {
    std::vector<std::string> argv;
    std::vector<std::string> args;
};

int commandInfo(const Invocation& in);
int commandSelftest(const Invocation& in);
int commandTasks(const Invocation& in);
int commandData(const Invocation& in);
int commandTokenizer(const Invocation& in);
int commandBench(const Invocation& in);
// Benchmarks of `dice bench`; their Invocation's args start with the benchmark's name.
int benchTokenizer(const Invocation& in);
int benchModel(const Invocation& in);
int benchKernelBench(const Invocation& in);
int benchReward(const Invocation& in);
int benchCounters(const Invocation& in);
int benchRl(const Invocation& in);
int benchRollout(const Invocation& in);
int commandCompile(const Invocation& in);
int commandEval(const Invocation& in);
// dice eval --batch (command_eval_batch.cpp).
int evalBatch(const Invocation& in);
int commandRuns(const Invocation& in);
int commandKernelBench(const Invocation& in);
int commandImport(const Invocation& in);
int commandGenerate(const Invocation& in);
int commandTrain(const Invocation& in);
// dice train rl (command_train_rl.cpp); words are the arguments after "rl".
int trainRl(const Invocation& in, const std::vector<std::string>& words);

} // namespace dice::cli
