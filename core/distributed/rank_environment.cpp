// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/distributed/rank_environment.h"

#include "core/common/error.h"

#include <cerrno>
#include <cstdlib>
#include <map>

namespace dice {

namespace {

int number(const std::map<std::string, std::string>& vars, const std::string& name, int low,
           int high, int fallback) {
    const auto it = vars.find(name);
    if (it == vars.end() || it->second.empty())
        return fallback;
    const std::string& text = it->second;
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (errno != 0 || end == text.c_str() || *end != '\0' || value < low || value > high)
        throw Error(name + "=" + text + " is not a whole number from " + std::to_string(low) +
                    " to " + std::to_string(high));
    return static_cast<int>(value);
}

} // namespace

RankEnvironment rankEnvironmentFrom(const std::vector<std::pair<std::string, std::string>>& list) {
    const std::map<std::string, std::string> vars(list.begin(), list.end());
    RankEnvironment env;
    const auto worldSize = vars.find("WORLD_SIZE");
    if (worldSize == vars.end() || worldSize->second.empty())
        return env;
    env.present = true;
    // A thousand ranks is far past any host or cluster this runs on; the bound catches typos.
    env.size = number(vars, "WORLD_SIZE", 1, 1024, 1);
    if (vars.find("RANK") == vars.end())
        throw Error("WORLD_SIZE is set but RANK is not: each process needs its rank");
    env.rank = number(vars, "RANK", 0, env.size - 1, 0);
    env.localRank = number(vars, "LOCAL_RANK", 0, env.size - 1, env.rank);
    env.masterPort = number(vars, "MASTER_PORT", 1, 65535, env.masterPort);
    if (const auto it = vars.find("MASTER_ADDR"); it != vars.end() && !it->second.empty())
        env.masterAddress = it->second;
    return env;
}

RankEnvironment rankEnvironment() {
    std::vector<std::pair<std::string, std::string>> vars;
    for (const char* name : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"})
        if (const char* value = std::getenv(name))
            vars.emplace_back(name, value);
    return rankEnvironmentFrom(vars);
}

RankEnvironment rankOnThisHost(int rank, int size, int masterPort) {
    RankEnvironment env;
    env.present = true;
    env.rank = rank;
    env.size = size;
    env.localRank = rank;
    env.masterPort = masterPort;
    return env;
}

std::vector<std::pair<std::string, std::string>>
rankVariables(int rank, int size, const std::string& masterAddress, int masterPort) {
    return {{"RANK", std::to_string(rank)},       {"WORLD_SIZE", std::to_string(size)},
            {"LOCAL_RANK", std::to_string(rank)}, {"LOCAL_WORLD_SIZE", std::to_string(size)},
            {"MASTER_ADDR", masterAddress},       {"MASTER_PORT", std::to_string(masterPort)}};
}

std::vector<std::pair<std::string, std::string>> multicastSwitches() {
    return {{"NCCL_NVLS_ENABLE", "0"},
            {"TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"},
            {"NVSHMEM_DISABLE_NVLS", "1"}};
}

} // namespace dice
