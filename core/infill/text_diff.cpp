// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/infill/text_diff.h"

#include <algorithm>
#include <sstream>

namespace dice {

namespace {

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        if (end == std::string::npos) {
            lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

// Every line of `a` removed and then every line of `b` added, keeping the lines the two share at
// both ends.
std::vector<DiffLine> replaceMiddle(const std::vector<std::string>& a,
                                    const std::vector<std::string>& b) {
    const std::size_t n = a.size();
    const std::size_t m = b.size();
    std::size_t head = 0;
    while (head < n && head < m && a[head] == b[head])
        ++head;
    std::size_t tail = 0;
    while (tail < n - head && tail < m - head && a[n - 1 - tail] == b[m - 1 - tail])
        ++tail;
    std::vector<DiffLine> out;
    for (std::size_t i = 0; i < head; ++i)
        out.push_back(
            {DiffLine::Kind::Same, a[i], static_cast<int>(i + 1), static_cast<int>(i + 1)});
    for (std::size_t i = head; i < n - tail; ++i)
        out.push_back({DiffLine::Kind::Removed, a[i], static_cast<int>(i + 1), 0});
    for (std::size_t j = head; j < m - tail; ++j)
        out.push_back({DiffLine::Kind::Added, b[j], 0, static_cast<int>(j + 1)});
    for (std::size_t i = tail; i > 0; --i)
        out.push_back({DiffLine::Kind::Same, a[n - i], static_cast<int>(n - i + 1),
                       static_cast<int>(m - i + 1)});
    return out;
}

} // namespace

std::vector<DiffLine> diffLines(const std::string& before, const std::string& after, int maxEdits) {
    const auto a = splitLines(before);
    const auto b = splitLines(after);
    const int n = static_cast<int>(a.size());
    const int m = static_cast<int>(b.size());
    const int max = n + m;
    const int offset = max + 1;
    // Each round of the search keeps a copy of v for the walk back.
    const long long perRound = 2LL * max + 3;
    const int bound =
        maxEdits > 0 ? maxEdits : static_cast<int>(std::max(64LL, (16LL << 20) / perRound));
    std::vector<int> v(2 * static_cast<std::size_t>(max) + 3, 0);
    std::vector<std::vector<int>> trace;
    int found = -1;
    for (int d = 0; d <= std::min(max, bound) && found < 0; ++d) {
        trace.push_back(v);
        for (int k = -d; k <= d; k += 2) {
            int x;
            if (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
                x = v[offset + k + 1];
            else
                x = v[offset + k - 1] + 1;
            int y = x - k;
            while (x < n && y < m && a[x] == b[y]) {
                ++x;
                ++y;
            }
            v[offset + k] = x;
            if (x >= n && y >= m) {
                found = d;
                break;
            }
        }
    }
    if (found < 0)
        return replaceMiddle(a, b);
    // Walk the trace backwards to recover the edit script.
    std::vector<DiffLine> out;
    int x = n;
    int y = m;
    for (int d = found; d > 0; --d) {
        const auto& vd = trace[static_cast<std::size_t>(d)];
        const int k = x - y;
        int prevK;
        if (k == -d || (k != d && vd[offset + k - 1] < vd[offset + k + 1]))
            prevK = k + 1;
        else
            prevK = k - 1;
        const int prevX = vd[offset + prevK];
        const int prevY = prevX - prevK;
        while (x > prevX && y > prevY) {
            --x;
            --y;
            out.push_back({DiffLine::Kind::Same, a[x], x + 1, y + 1});
        }
        if (x == prevX) {
            --y;
            out.push_back({DiffLine::Kind::Added, b[y], 0, y + 1});
        } else {
            --x;
            out.push_back({DiffLine::Kind::Removed, a[x], x + 1, 0});
        }
    }
    while (x > 0 && y > 0) {
        --x;
        --y;
        out.push_back({DiffLine::Kind::Same, a[x], x + 1, y + 1});
    }
    std::reverse(out.begin(), out.end());
    return out;
}

std::string unifiedDiff(const std::string& before, const std::string& after,
                        const std::string& beforeName, const std::string& afterName, int context) {
    const auto lines = diffLines(before, after);
    const int count = static_cast<int>(lines.size());
    std::vector<int> changes;
    for (int i = 0; i < count; ++i)
        if (lines[i].kind != DiffLine::Kind::Same)
            changes.push_back(i);
    if (changes.empty())
        return {};
    std::ostringstream out;
    out << "--- " << beforeName << "\n+++ " << afterName << "\n";
    std::size_t c = 0;
    while (c < changes.size()) {
        const int start = std::max(0, changes[c] - context);
        int end = std::min(count, changes[c] + context + 1);
        while (c + 1 < changes.size() && changes[c + 1] - context <= end) {
            ++c;
            end = std::min(count, changes[c] + context + 1);
        }
        ++c;
        int oldStart = 0, newStart = 0, oldCount = 0, newCount = 0;
        for (int i = start; i < end; ++i) {
            const auto& l = lines[i];
            if (l.kind != DiffLine::Kind::Added) {
                oldStart = oldStart ? oldStart : l.oldLine;
                ++oldCount;
            }
            if (l.kind != DiffLine::Kind::Removed) {
                newStart = newStart ? newStart : l.newLine;
                ++newCount;
            }
        }
        out << "@@ -" << oldStart << "," << oldCount << " +" << newStart << "," << newCount
            << " @@\n";
        for (int i = start; i < end; ++i) {
            const auto& l = lines[i];
            out << (l.kind == DiffLine::Kind::Same    ? ' '
                    : l.kind == DiffLine::Kind::Added ? '+'
                                                      : '-')
                << l.text << "\n";
        }
    }
    return out.str();
}

} // namespace dice
