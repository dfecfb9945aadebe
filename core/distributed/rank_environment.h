// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <utility>
#include <vector>

// Where a process stands among the ranks of a data-parallel run, as torchrun tells it: RANK,
// WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT in the environment (docs/distributed.md).
namespace dice {

struct RankEnvironment {
    bool present = false; // WORLD_SIZE was set: this process is one rank of a run
    int rank = 0;
    int size = 1;
    int localRank = 0; // the rank on its host, which picks its GPU
    std::string masterAddress = "127.0.0.1";
    int masterPort = 29500;
};

// Reads the variables above. Without WORLD_SIZE a process is the only rank; with it, every
// variable must be a number in range (MASTER_ADDR and MASTER_PORT may be left to their defaults
// on one host). Throws dice::Error naming the variable that is wrong.
RankEnvironment rankEnvironment();
RankEnvironment rankEnvironmentFrom(const std::vector<std::pair<std::string, std::string>>& vars);

// Rank `rank` of `size` on this host, meeting at `masterPort` of the loopback: ranks that are
// threads of one process (the self-test, the tests).
RankEnvironment rankOnThisHost(int rank, int size, int masterPort);

// The variables a launcher gives rank `rank` of `size` on one host.
std::vector<std::pair<std::string, std::string>>
rankVariables(int rank, int size, const std::string& masterAddress, int masterPort);

// Switches that keep NCCL and PyTorch off NVLink multicast, which some hosts (virtual machines
// among them) do not grant, where NCCL fails while setting it up. A launcher sets those the user
// has not set.
std::vector<std::pair<std::string, std::string>> multicastSwitches();

} // namespace dice
