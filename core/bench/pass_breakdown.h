// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/cupti_tracer.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

// What the GPU spends a denoising pass on, for the model benchmark's "what bounds the pass"
// report: time in kernels against the pass's wall time tells launch gaps from GPU work, and the
// kernels that take the most time tell which part of the network to make faster.
namespace dice {

struct KernelShare {
    std::string name; // demangled, without its parameter list
    double msPerPass = 0;
    double launchesPerPass = 0;
};

struct PassBreakdown {
    int passes = 0;
    double kernelMsPerPass = 0; // every kernel's duration added up
    // Time at least one kernel ran: less than kernelMsPerPass where streams overlap.
    double busyMsPerPass = 0;
    std::vector<KernelShare> kernels; // most time first
};

// The kernels CUPTI recorded over `passes` passes, grouped by name. Throws Error when passes < 1.
PassBreakdown passBreakdown(const std::vector<KernelRecord>& records, int passes);

// passMs is the pass's measured time: the part of it no kernel covers is idle. The first `top`
// kernels are listed; the rest are added up in "other_ms_per_pass".
nlohmann::json toJson(const PassBreakdown& b, double passMs, int top = 12);

} // namespace dice
