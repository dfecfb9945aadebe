// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/selftest/selftest.h"

#include <vector>

namespace dice::kernelbench {

// The KernelBench bridge's check for `dice selftest` (GPU group): the prompts render from the
// installed example files, the static checks catch known hacks, and an interpreter with CUDA
// PyTorch, nvcc and ninja is there for KernelBench candidates.
std::vector<SelfTestCheck> selfTestChecks();

} // namespace dice::kernelbench
