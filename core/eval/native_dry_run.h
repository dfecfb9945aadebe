// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to the native evaluator: included only by its LibTorch sources.
#include "core/eval/evaluation.h"
#include "core/eval/native_evaluator_impl.h"
#include "core/tasks/task.h"

#include <cstdint>
#include <string>

// The dry run: the reference and the host code run once on meta tensors of a preset (shapes and
// dtypes, no memory, no values), with every launch recorded and bound, every allocation counted,
// and the outputs' count, shape, dtype and layout checked against the reference's. It needs no
// GPU, so a wrong output is found on any machine before a trial runs. Host code can tell a meta
// tensor from a GPU one, so passing here proves nothing the GPU trials do not check again.
namespace dice::native {

// What host code may allocate in one call: 256 MiB of scratch plus four times the bytes its
// inputs, parameters and the reference's outputs take.
std::int64_t hostAllocationBudget(std::int64_t ioBytes);

struct DryRunOutcome {
    bool passed = false;
    Verdict verdict = Verdict::NotRun; // when not passed
    std::string message;
    std::string flag; // a flag code to add, or empty
    int launches = 0; // kernel launches of one call
    std::int64_t allocatedBytes = 0;
    // False when the reference could not run: an operator without a meta kernel on a preset
    // other than small (the GPU trials check those outputs).
    bool referenceRan = false;
};

DryRunOutcome dryRunOnMeta(const Task& task, const std::string& preset, const Prepared& p);

} // namespace dice::native
