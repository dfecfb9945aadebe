// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <deque>
#include <string>

namespace dice {

// Splits a byte stream into lines without ever holding more than one line of the limit: a line
// that grows past it is reported the moment it does, and the rest of it is skipped as it arrives,
// so an endless line costs the limit and nothing more.
class LineReader {
public:
    explicit LineReader(std::size_t maxLineBytes);

    struct Line {
        std::string text;     // without its newline; empty for a line that was too long
        bool tooLong = false; // the line passed the limit; what follows it up to its newline is
                              // skipped
    };

    void feed(const char* data, std::size_t size);
    // The next complete line (or too-long report) in the order they arrived.
    bool next(Line& line);
    // Whether next() has a line to give.
    bool ready() const { return !m_ready.empty(); }

private:
    std::size_t m_max;
    std::string m_partial;
    bool m_skipping = false;
    std::deque<Line> m_ready;
};

} // namespace dice
