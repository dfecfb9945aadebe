// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The JSON-lines files a run folder holds (metrics.jsonl, rollouts/N.jsonl), as the tests read
// them: one value per non-empty line.

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace dice::test {

inline std::vector<nlohmann::json> readLines(const std::string& path) {
    std::vector<nlohmann::json> lines;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty())
            lines.push_back(nlohmann::json::parse(line));
    return lines;
}

} // namespace dice::test
