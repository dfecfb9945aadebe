// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/selftest/selftest.h"

#include <vector>

namespace dice {

// The machine and the build: LibTorch on the CPU, NVRTC (compile and diagnostics), then the GPU
// checks (driver, a launch on LibTorch tensors, CUDA events, CUPTI). "cpu.*" and "gpu.*".
void addMachineChecks(std::vector<SelfTestCheck>& checks);

} // namespace dice
