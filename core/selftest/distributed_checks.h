// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/selftest/selftest.h"

#include <vector>

namespace dice {

// The process groups of data-parallel training (docs/distributed.md): two Gloo ranks on the CPU,
// and one NCCL rank per GPU. "cpu.gloo" and "gpu.nccl".
void addDistributedChecks(std::vector<SelfTestCheck>& checks);

} // namespace dice
