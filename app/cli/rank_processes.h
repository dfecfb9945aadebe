// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/cli/arguments.h"

#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace dice::cli {

// --nproc N of a command that runs as ranks (docs/distributed.md). With N above 1 this process
// starts N copies of `dice COMMAND WORDS` without --nproc, waits for them and returns their exit
// status (a failing rank is named on stderr); otherwise it returns nothing and does the work
// itself. Throws UsageError for N outside 1-1024, and for N above 1 in a process that already is
// a rank. `stop` raised asks every rank to stop, as a signal asks a lone process.
std::optional<int> runAsRanks(const Arguments& args, const std::vector<std::string>& command,
                              const std::vector<std::string>& words,
                              const std::atomic<bool>* stop = nullptr);

} // namespace dice::cli
