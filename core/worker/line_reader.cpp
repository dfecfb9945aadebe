// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/worker/line_reader.h"

#include <algorithm>
#include <cstring>

namespace dice {

LineReader::LineReader(std::size_t maxLineBytes)
    : m_max(maxLineBytes) {}

void LineReader::feed(const char* data, std::size_t size) {
    std::size_t at = 0;
    while (at < size) {
        const void* found = std::memchr(data + at, '\n', size - at);
        const std::size_t end =
            found ? static_cast<std::size_t>(static_cast<const char*>(found) - data) : size;
        const std::size_t piece = end - at;
        if (m_skipping) {
            m_skipping = found == nullptr;
        } else if (m_partial.size() + piece > m_max) {
            Line line;
            line.tooLong = true;
            m_ready.push_back(std::move(line));
            // Give the memory back: the next line starts small again.
            std::string().swap(m_partial);
            m_skipping = found == nullptr;
        } else {
            const std::size_t needed = m_partial.size() + piece;
            if (needed > m_partial.capacity())
                m_partial.reserve(std::min(m_max, std::max(needed, 2 * m_partial.capacity())));
            m_partial.append(data + at, piece);
            if (found) {
                Line line;
                line.text = std::move(m_partial);
                m_partial = std::string();
                m_ready.push_back(std::move(line));
            }
        }
        at = found ? end + 1 : size;
    }
}

bool LineReader::next(Line& line) {
    if (m_ready.empty())
        return false;
    line = std::move(m_ready.front());
    m_ready.pop_front();
    return true;
}

} // namespace dice
