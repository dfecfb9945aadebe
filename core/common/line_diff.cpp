// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/line_diff.h"

#include <algorithm>

namespace dice {

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        std::string line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        lines.push_back(std::move(line));
        start = end + 1;
    }
    return lines;
}

namespace {

// Appends the edit script of a[a0, a1) against b[b0, b1), whose first and last lines differ.
void middle(const std::vector<std::string>& a, const std::vector<std::string>& b, int a0, int a1,
            int b0, int b1, int maxEdits, std::vector<DiffLine>& out) {
    const int n = a1 - a0;
    const int m = b1 - b0;
    const auto removeAll = [&] {
        for (int i = a0; i < a1; ++i)
            out.push_back({DiffLine::Kind::Removed, i + 1, 0, a[static_cast<std::size_t>(i)]});
        for (int j = b0; j < b1; ++j)
            out.push_back({DiffLine::Kind::Added, 0, j + 1, b[static_cast<std::size_t>(j)]});
    };
    if (n == 0 || m == 0) {
        removeAll();
        return;
    }
    // Myers: v[k] is the furthest x on diagonal k = x - y after d edits; each round's v is kept
    // to walk the path back.
    const int limit = std::min(n + m, maxEdits);
    const int offset = limit + 1;
    std::vector<int> v(static_cast<std::size_t>(2 * limit + 3), 0);
    std::vector<std::vector<int>> rounds;
    int found = -1;
    for (int d = 0; d <= limit && found < 0; ++d) {
        for (int k = -d; k <= d; k += 2) {
            const auto at = [&](int diagonal) {
                return v[static_cast<std::size_t>(diagonal + offset)];
            };
            int x = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? at(k + 1) : at(k - 1) + 1;
            int y = x - k;
            while (x < n && y < m &&
                   a[static_cast<std::size_t>(a0 + x)] == b[static_cast<std::size_t>(b0 + y)]) {
                ++x;
                ++y;
            }
            v[static_cast<std::size_t>(k + offset)] = x;
            if (x >= n && y >= m) {
                found = d;
                break;
            }
        }
        rounds.push_back(v);
    }
    if (found < 0) {
        removeAll();
        return;
    }
    // Back from (n, m): each round adds one removal or addition and then a run of equal lines.
    std::vector<DiffLine> reversed;
    int x = n;
    int y = m;
    for (int d = found; d > 0; --d) {
        const std::vector<int>& previous = rounds[static_cast<std::size_t>(d - 1)];
        const int k = x - y;
        const auto at = [&](int diagonal) {
            return previous[static_cast<std::size_t>(diagonal + offset)];
        };
        const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
        const int previousK = down ? k + 1 : k - 1;
        const int previousX = at(previousK);
        const int previousY = previousX - previousK;
        const int startX = down ? previousX : previousX + 1;
        const int startY = startX - k;
        while (x > startX && y > startY) {
            --x;
            --y;
            reversed.push_back({DiffLine::Kind::Same, a0 + x + 1, b0 + y + 1,
                                a[static_cast<std::size_t>(a0 + x)]});
        }
        if (down)
            reversed.push_back({DiffLine::Kind::Added, 0, b0 + previousY + 1,
                                b[static_cast<std::size_t>(b0 + previousY)]});
        else
            reversed.push_back({DiffLine::Kind::Removed, a0 + previousX + 1, 0,
                                a[static_cast<std::size_t>(a0 + previousX)]});
        x = previousX;
        y = previousY;
    }
    while (x > 0 && y > 0) {
        --x;
        --y;
        reversed.push_back(
            {DiffLine::Kind::Same, a0 + x + 1, b0 + y + 1, a[static_cast<std::size_t>(a0 + x)]});
    }
    // Within a run of changes, removals come before additions, as a unified diff shows them.
    std::reverse(reversed.begin(), reversed.end());
    for (std::size_t i = 0; i < reversed.size();) {
        if (reversed[i].kind == DiffLine::Kind::Same) {
            out.push_back(std::move(reversed[i++]));
            continue;
        }
        std::size_t end = i;
        while (end < reversed.size() && reversed[end].kind != DiffLine::Kind::Same)
            ++end;
        for (std::size_t j = i; j < end; ++j)
            if (reversed[j].kind == DiffLine::Kind::Removed)
                out.push_back(std::move(reversed[j]));
        for (std::size_t j = i; j < end; ++j)
            if (reversed[j].kind == DiffLine::Kind::Added)
                out.push_back(std::move(reversed[j]));
        i = end;
    }
}

} // namespace

std::vector<DiffLine> diffLines(const std::vector<std::string>& before,
                                const std::vector<std::string>& after, int maxEdits) {
    std::vector<DiffLine> out;
    const int n = static_cast<int>(before.size());
    const int m = static_cast<int>(after.size());
    int head = 0;
    while (head < n && head < m &&
           before[static_cast<std::size_t>(head)] == after[static_cast<std::size_t>(head)])
        ++head;
    int tail = 0;
    while (tail < n - head && tail < m - head &&
           before[static_cast<std::size_t>(n - 1 - tail)] ==
               after[static_cast<std::size_t>(m - 1 - tail)])
        ++tail;
    for (int i = 0; i < head; ++i)
        out.push_back({DiffLine::Kind::Same, i + 1, i + 1, before[static_cast<std::size_t>(i)]});
    middle(before, after, head, n - tail, head, m - tail, std::max(1, maxEdits), out);
    for (int i = tail; i > 0; --i)
        out.push_back(
            {DiffLine::Kind::Same, n - i + 1, m - i + 1, before[static_cast<std::size_t>(n - i)]});
    return out;
}

} // namespace dice
