// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/reward/reward_service.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

// dice bench reward: the reward service on an RL step's worth of native candidates
// (docs/reward.md).
namespace dice {

// One candidate of the benchmark and what it was made to be.
struct RewardBenchCandidate {
    // "correct", "wrong_values", "compile_error", "fallback", "out_of_bounds", "fault", "hang"
    std::string kind;
    RewardItem item;
};

// `count` candidates made from the built-in tasks and their solutions, each source made unique
// (a comment with its number, so that no compile is cached): about 60% honest solutions, 15% a
// neighbouring task's solution (wrong values), 9% with a syntax error in the device code, 8% whose
// host code copies the result with a PyTorch operator (a fallback), 5% writing before their
// output, 2% faulting and 1% hanging. Shuffled with `seed`.
std::vector<RewardBenchCandidate> makeRewardBenchCandidates(const TaskSuite& suite,
                                                            const std::string& solutionDirectory,
                                                            int count, std::uint64_t seed);

struct RewardBenchOptions {
    int candidates = 1024;
    std::uint64_t seed = 1;
    RewardServiceOptions service;
    // Evaluate every candidate again alone afterwards and count verdicts that differ.
    bool checkAlone = true;
    // Workers of that check, on the first device: each judges one candidate per request, with
    // no compile ahead; more than one shares the GPU, as the batch's workers do, to make the
    // check shorter.
    int aloneWorkers = 1;
    // Where to write the candidates as a `dice eval --batch` file, so that any one of them can be
    // judged again by itself; empty for none.
    std::string candidatesFile;
};

using RewardBenchProgress = std::function<void(const std::string& line)>;

// Judges the candidates in one call of the reward service and reports: wall time, candidates
// per second, the time of compiles and of GPU runs against the wall, worker restarts, verdicts by
// kind, and the agreement of each verdict with the same candidate judged alone.
nlohmann::json runRewardBenchmark(const RewardBenchOptions& options,
                                  const RewardBenchProgress& progress = {});

// `count` KernelBench answers made from the solutions in `solutions`/levelN/NAME.py (each with its
// problem in `problems`/levelN/NAME.py), each source made unique by a comment in its CUDA code so
// that no build is shared: ten in sixteen honest, the rest a ModelNew whose output is scaled
// (wrong values), a syntax error in the CUDA code, or a forward that raises. Shuffled with `seed`.
std::vector<RewardBenchCandidate> makeKernelBenchRewardCandidates(const std::string& solutions,
                                                                  const std::string& problems,
                                                                  int count, std::uint64_t seed);

struct KernelBenchRewardBenchOptions {
    std::string solutions;
    std::string problems;
    int candidates = 64;
    std::uint64_t seed = 1;
    // Builds of answers at once, and how many other answers are built one at a time, alone on the
    // machine, for the comparison with DICE's one load_inline after another.
    int buildThreads = 16;
    int sequentialBuilds = 1;
    RewardServiceOptions service;
};

// Judges the answers in one call of the reward service (their builds in parallel, then each
// evaluation in the sandboxed worker) and reports the wall time split into builds and
// evaluations, verdicts by kind, and the time the same answers would take built one at a time.
nlohmann::json runKernelBenchRewardBenchmark(const KernelBenchRewardBenchOptions& options,
                                             const RewardBenchProgress& progress = {});

} // namespace dice
