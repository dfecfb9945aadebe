// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/json_depth.h"

#include "core/common/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <utility>
#include <vector>

namespace dice {

std::size_t jsonNestingDepth(const std::string& text, std::size_t limit) {
    std::size_t depth = 0;
    std::size_t deepest = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
            if (deepest > limit)
                return deepest;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

std::size_t jsonNestingDepth(const nlohmann::json& value, std::size_t limit) {
    std::size_t deepest = 0;
    // Each structured value still to look into, with its own depth.
    std::vector<std::pair<const nlohmann::json*, std::size_t>> pending = {{&value, 1}};
    while (!pending.empty()) {
        const auto [node, depth] = pending.back();
        pending.pop_back();
        if (!node->is_structured())
            continue;
        deepest = std::max(deepest, depth);
        if (deepest > limit)
            return deepest;
        for (const auto& child : *node)
            pending.emplace_back(&child, depth + 1);
    }
    return deepest;
}

nlohmann::json parseJsonWithin(const std::string& text, std::size_t maxDepth,
                               const std::string& origin) {
    if (jsonNestingDepth(text, maxDepth) > maxDepth)
        throw Error(origin + ": nests arrays and objects deeper than " + std::to_string(maxDepth) +
                    " levels");
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw Error(origin + ": not valid JSON: " + e.what());
    }
}

} // namespace dice
