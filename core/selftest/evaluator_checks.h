// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/selftest/selftest.h"

#include <vector>

namespace dice {

// GPU checks of the kernel evaluator: the honest solutions evaluate as correct, and every hack
// of the hack suite is caught while the worker survives it ("eval.*" and "hack.*", group gpu).
void addEvaluatorChecks(std::vector<SelfTestCheck>& checks);

} // namespace dice
