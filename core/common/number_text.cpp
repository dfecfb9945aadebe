// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/number_text.h"

#include <sstream>

namespace dice {

std::string fixedDecimals(double value, int decimals) {
    std::ostringstream out;
    out.precision(decimals);
    out << std::fixed << value;
    return out.str();
}

} // namespace dice
