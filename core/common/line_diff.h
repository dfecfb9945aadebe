// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

// A line diff of two texts, for comparing two candidates' sources and PTX side by side: the
// shortest edit script (Myers' algorithm), lines in the order a unified diff shows them.
namespace dice {

struct DiffLine {
    enum class Kind { Same, Removed, Added };
    Kind kind = Kind::Same;
    int before = 0; // 1-based line in the first text; 0 for an added line
    int after = 0;  // 1-based line in the second text; 0 for a removed line
    std::string text;
};

// The lines of a text without their line ends ("\n" or "\r\n"); a final line end starts no line.
std::vector<std::string> splitLines(const std::string& text);

// Every line of both texts once: unchanged lines, and where they differ the removed lines before
// the added ones. The script is a shortest one while the texts differ in at most `maxEdits` lines
// (beyond the lines they share at both ends); past that the differing middle is shown as removed
// and then added, so that two unrelated long files still compare in bounded time and memory.
std::vector<DiffLine> diffLines(const std::vector<std::string>& before,
                                const std::vector<std::string>& after, int maxEdits = 4000);

} // namespace dice
