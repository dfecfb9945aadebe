// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/cupti_tracer.h"
#include "core/cuda/device_info.h"
#include "core/eval/eval_options.h"
#include "core/eval/evaluation.h"

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

// The figures of the native evaluator's timing, apart from the GPU that measures them (the timed
// loop itself is GpuRun's, in native_timing.cpp): statistics of the samples, the split of CUPTI's
// records into calls, and the physical bound.
namespace dice::native {

// The kernels that open and close each timed call's window in CUPTI's record, and how long the
// opening one keeps the GPU busy while the host enqueues the call (so that the host's time to
// interpret the call is not counted).
inline constexpr const char kTimingSpinKernel[] = "dice_timing_spin";
inline constexpr const char kTimingMarkKernel[] = "dice_timing_mark";
inline constexpr unsigned long long kSpinNanoseconds = 100000;

// The indices (warm-ups counted) of the timed calls whose outputs are compared with the
// reference: options.checkedTimedCalls distinct ones, drawn from `entropy`.
std::set<int> checkedTimedCalls(const EvalOptions& options, std::uint64_t entropy);

// Median, mean, sample standard deviation, minimum and maximum of the samples.
TimingStats statsOf(const std::vector<double>& samples, const std::string& method, int warmups);

// CUPTI's records of a run of timed calls, one list per call after the first `warmups`: a call's
// kernels are those between a spin and the next mark, by start time. A caller that timed N calls
// and gets other than N lists back cannot attribute the records.
std::vector<std::vector<KernelRecord>> splitTimedCalls(std::vector<KernelRecord> records,
                                                       int warmups);

// Per call: from the first kernel's start to the last kernel's end, on any stream; 0 for a call
// that ran no kernel.
std::vector<double> kernelSpansMs(const std::vector<std::vector<KernelRecord>>& calls);

// The kernels of the timed calls that are not the candidate's, by name (at most 120 characters
// each). A kernel is the candidate's when CUPTI names it as one of `own`, or when it names it as a
// kernel that `loadedEarlier` says an earlier module of this process had and its grid and block
// are those of one of the candidate's launches (CUPTI's stale name for the candidate's kernel).
// PyTorch's fill kernels (the outputs' allocations) are not counted.
std::set<std::string> foreignKernels(const std::vector<std::vector<KernelRecord>>& calls,
                                     const std::set<std::string>& own,
                                     const std::set<LaunchShape>& ownShapes,
                                     const std::function<bool(const std::string&)>& loadedEarlier);

// The least time a call can take on the device: its bytes at the peak bandwidth or its FLOPs at
// the most generous rate the dtype allows (16-bit tensor cores, or TF32 for float32), whichever
// is longer. 0 when the device reports neither.
double physicalBoundMs(double bytes, double flops, bool halfPrecision, const DeviceInfo& device);

} // namespace dice::native
