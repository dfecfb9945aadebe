// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <string>

namespace dice {

// The deepest nesting of arrays and objects in JSON text, counted on the text without parsing it
// (brackets inside strings do not count); counting stops past `limit`. Readers of outside JSON
// check it first: a parsed value hundreds of thousands of levels deep exhausts the stack when it
// is destroyed.
std::size_t jsonNestingDepth(const std::string& text, std::size_t limit);

} // namespace dice
