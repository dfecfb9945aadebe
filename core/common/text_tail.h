// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <string>

namespace dice {

// The end of what a program printed, for a message: trailing blanks and line breaks dropped, at
// most `max` characters kept, with "..." where the beginning was cut.
inline std::string textTail(const std::string& text, std::size_t max) {
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' '))
        t.pop_back();
    return t.size() <= max ? t : "..." + t.substr(t.size() - max);
}

} // namespace dice
