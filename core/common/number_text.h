// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace dice {

// A number in fixed-point notation with exactly `decimals` digits after the point ("0.125000"),
// as messages and reports print measured values.
std::string fixedDecimals(double value, int decimals);

} // namespace dice
