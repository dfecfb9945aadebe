// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/rank_processes.h"

#include "core/distributed/rank_environment.h"
#include "core/distributed/rank_launcher.h"

#include <iostream>

namespace dice::cli {

std::optional<int> runAsRanks(const Arguments& args, const std::vector<std::string>& command,
                              const std::vector<std::string>& words,
                              const std::atomic<bool>* stop) {
    const int processes = args.integer("nproc", 1);
    if (processes < 1 || processes > 1024)
        throw UsageError("--nproc must be from 1 to 1024");
    if (processes == 1)
        return std::nullopt;
    if (rankEnvironment().present)
        throw UsageError("--nproc starts ranks, and this process already is one (WORLD_SIZE is "
                         "set)");
    RankLaunch launch;
    launch.argv = {"/proc/self/exe"};
    launch.argv.insert(launch.argv.end(), command.begin(), command.end());
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (words[i] == "--nproc") {
            ++i;
            continue;
        }
        if (words[i].rfind("--nproc=", 0) != 0)
            launch.argv.push_back(words[i]);
    }
    launch.ranks = processes;
    launch.stop = stop;
    const RankLaunchResult result = launchRanks(launch);
    if (!result.failure.empty()) {
        std::string name = "dice";
        for (const auto& word : command)
            name += " " + word;
        std::cerr << name << ": " << result.failure << "\n";
    }
    return result.exitCode;
}

} // namespace dice::cli
