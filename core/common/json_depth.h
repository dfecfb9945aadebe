// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <string>

namespace dice {

// The deepest nesting of arrays and objects in JSON text, counted on the text without parsing it
// (brackets inside strings do not count); counting stops past `limit`. Readers of outside JSON
// check it first: a parsed value hundreds of thousands of levels deep exhausts the stack when it
// is destroyed.
std::size_t jsonNestingDepth(const std::string& text, std::size_t limit);

// The same of a parsed value, without recursion: a caller given a value it did not parse checks
// it before copying it (a copy recurses once per level).
std::size_t jsonNestingDepth(const nlohmann::json& value, std::size_t limit);

// Outside JSON text (a file a user gives or a folder copied from elsewhere) parsed once its
// nesting is known to be at most `maxDepth`: a dice::Error beginning with `origin` when it is
// nested deeper or is not JSON.
nlohmann::json parseJsonWithin(const std::string& text, std::size_t maxDepth,
                               const std::string& origin);

} // namespace dice
