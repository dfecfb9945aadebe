// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace dice {

// `value` in fixed-point notation with `digits` digits after the point ("1.50"), the same
// whatever locale the program runs in.
std::string formatFixed(double value, int digits);
// `value` in scientific notation with `digits` digits after the point ("1.50e-04"), likewise.
std::string formatScientific(double value, int digits);

} // namespace dice
