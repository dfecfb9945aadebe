// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/number_format.h"

#include <iomanip>
#include <locale>
#include <sstream>

namespace dice {

std::string formatFixed(double value, int digits) {
    std::ostringstream out;
    out.imbue(std::locale::classic());
    out << std::fixed << std::setprecision(digits) << value;
    return out.str();
}

std::string formatScientific(double value, int digits) {
    std::ostringstream out;
    out.imbue(std::locale::classic());
    out << std::scientific << std::setprecision(digits) << value;
    return out.str();
}

} // namespace dice
