// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/ncu_report.h"

#include <string>
#include <vector>

// Hardware counters of a candidate's kernels and of the reference's, read by Nsight Compute (ncu)
// where it is installed (docs/counters.md).
namespace dice {

// The NVTX push/pop ranges the native evaluator opens around each call of the reference and of
// the candidate, so that ncu profiles only the kernels launched inside one of them.
inline constexpr const char* kCandidateRange = "DiceCandidate";
inline constexpr const char* kReferenceRange = "DiceReference";

// ncu named by $DICE_NCU, else on the PATH, else in the CUDA toolkit's bin folder or the
// default install folder of Nsight Compute (/opt/nvidia/nsight-compute/VERSION); empty when none.
std::string findNcu();

// What to tell a user who has no ncu.
std::string ncuMissingAdvice();

// The command that profiles `program` (its arguments included) with ncu, writing the raw page to
// `logFile`: the metrics above, only launches inside the NVTX push/pop range `range`, at most
// `launches` of them, clocks left as they are (the evaluator's timings run at the same clocks).
std::vector<std::string> ncuCommand(const std::string& ncu, const std::string& range,
                                    const std::string& logFile,
                                    const std::vector<std::string>& program, int launches = 64);

// The program a profile runs: `dice` (by its resolved path) evaluating `candidate` against `task`
// in its own process, with one correctness trial and no timing, at `preset`; `more` are further
// `dice eval` options (tolerance, compiler options).
std::vector<std::string> profiledEvaluation(const std::string& dice, const std::string& task,
                                            const std::string& candidate, const std::string& preset,
                                            const std::vector<std::string>& more = {});

// Runs `program` (a `dice eval ... --in-process` that evaluates one candidate) under ncu twice,
// once per range, and reads both raw pages; keeps them in `keepPages` (RANGE.csv) when named.
CounterReport collectCounters(const std::vector<std::string>& program,
                              const std::string& keepPages = {}, int timeoutMs = 300000);

} // namespace dice
