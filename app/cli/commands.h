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
int commandBench(const Invocation& in);
// Needs the tokenizer implementation (core/tokenizer/tokenizer.h); see command_generate.cpp.
int commandGenerate(const Invocation& in);

} // namespace dice::cli
