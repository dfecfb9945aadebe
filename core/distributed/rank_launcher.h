// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <atomic>
#include <string>
#include <vector>

// `--nproc N` on one host: starts N copies of a command, each with its rank's torchrun variables
// (rank_environment.h) and a free port for their rendezvous, lets them write to this process's
// streams, and waits. When one rank fails the others are stopped, since they would wait for it
// at their next collective until their timeout.
namespace dice {

struct RankLaunch {
    std::vector<std::string> argv; // the command every rank runs
    int ranks = 1;
    std::string masterAddress = "127.0.0.1";
    int masterPort = 0; // 0: a free port of this host
    // Raised (by a signal handler): every rank is asked to stop with SIGTERM, as a lone trainer
    // would be.
    const std::atomic<bool>* stop = nullptr;
    // A rank that fails leaves the others blocked in their next collective: they get SIGTERM, and
    // SIGKILL this long after.
    int graceMs = 10000;
};

struct RankLaunchResult {
    int exitCode = 0;    // the first failing rank's code (1 for a signal), else 0
    std::string failure; // which rank failed first and how; empty when all succeeded
};

RankLaunchResult launchRanks(const RankLaunch& launch);

// A TCP port of this host that nothing listens on now.
int freeTcpPort();

} // namespace dice
