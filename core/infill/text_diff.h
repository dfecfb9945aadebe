// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace dice {

struct DiffLine {
    enum class Kind { Same, Removed, Added };
    Kind kind = Kind::Same;
    std::string text; // without the line break
    int oldLine = 0;  // 1-based, 0 for added lines
    int newLine = 0;  // 1-based, 0 for removed lines
};

// A shortest line diff (Myers' algorithm) from `before` to `after`, while the texts differ in at
// most `maxEdits` lines; past that (two unrelated PTX listings) the lines they do not share at
// both ends are shown as removed and then added, so that the search's memory stays bounded.
// 0 picks the bound from the texts' sizes: the search keeps about 64 MiB.
std::vector<DiffLine> diffLines(const std::string& before, const std::string& after,
                                int maxEdits = 0);

// The same as a unified diff with `context` lines around each change ("" when equal).
std::string unifiedDiff(const std::string& before, const std::string& after,
                        const std::string& beforeName, const std::string& afterName,
                        int context = 3);

} // namespace dice
