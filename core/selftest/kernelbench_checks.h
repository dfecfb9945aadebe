// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/selftest/selftest.h"

#include <vector>

namespace dice {

// The KernelBench bridge's check for `dice selftest` ("gpu.kernelbench"): the prompts render from
// the installed example files, the static checks catch known hacks, and an interpreter with CUDA
// PyTorch, nvcc and ninja is there for KernelBench candidates.
void addKernelBenchChecks(std::vector<SelfTestCheck>& checks);

} // namespace dice
