// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/utf8.h"

namespace dice {

bool decodeUtf8(std::string_view text, std::size_t& pos, char32_t& c) {
    const std::size_t n = text.size();
    if (pos >= n)
        return false;
    const auto b0 = static_cast<unsigned char>(text[pos]);
    if (b0 < 0x80) {
        c = b0;
        ++pos;
        return true;
    }
    int extra = 0;
    char32_t min = 0;
    if ((b0 & 0xE0) == 0xC0) {
        extra = 1;
        c = b0 & 0x1F;
        min = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
        extra = 2;
        c = b0 & 0x0F;
        min = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
        extra = 3;
        c = b0 & 0x07;
        min = 0x10000;
    } else {
        return false;
    }
    if (pos + static_cast<std::size_t>(extra) >= n)
        return false;
    for (int i = 1; i <= extra; ++i) {
        const auto b = static_cast<unsigned char>(text[pos + static_cast<std::size_t>(i)]);
        if ((b & 0xC0) != 0x80)
            return false;
        c = (c << 6) | (b & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return false;
    pos += static_cast<std::size_t>(extra) + 1;
    return true;
}

void appendUtf8(std::string& out, char32_t c) {
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
}

std::size_t firstInvalidUtf8(std::string_view text) {
    std::size_t pos = 0;
    while (pos < text.size()) {
        if (static_cast<unsigned char>(text[pos]) < 0x80) {
            ++pos;
            continue;
        }
        const std::size_t start = pos;
        char32_t c = 0;
        if (!decodeUtf8(text, pos, c))
            return start;
    }
    return std::string_view::npos;
}

namespace {

// How many bytes at `pos` form the longest start of a well-formed sequence (at least 1): the
// ranges of the second byte exclude overlong forms, surrogates and code points above U+10FFFF,
// as in the Unicode standard's table of well-formed byte sequences.
std::size_t maximalSubpart(std::string_view text, std::size_t pos) {
    const auto lead = static_cast<unsigned char>(text[pos]);
    std::size_t length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        low = lead == 0xE0 ? 0xA0 : 0x80;
        high = lead == 0xED ? 0x9F : 0xBF;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        low = lead == 0xF0 ? 0x90 : 0x80;
        high = lead == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 1;
    }
    std::size_t taken = 1;
    for (; taken < length && pos + taken < text.size(); ++taken) {
        const auto b = static_cast<unsigned char>(text[pos + taken]);
        if (b < (taken == 1 ? low : 0x80) || b > (taken == 1 ? high : 0xBF))
            break;
    }
    return taken;
}

} // namespace

Utf8Repair repairUtf8(std::string& text) {
    Utf8Repair repair;
    const std::size_t first = firstInvalidUtf8(text);
    if (first == std::string_view::npos)
        return repair;
    repair.firstOffset = first;
    std::string out = text.substr(0, first);
    std::size_t pos = first;
    while (pos < text.size()) {
        const std::size_t start = pos;
        char32_t c = 0;
        if (decodeUtf8(text, pos, c)) {
            out.append(text, start, pos - start);
            continue;
        }
        out += "\xEF\xBF\xBD";
        ++repair.replaced;
        pos = start + maximalSubpart(text, start);
    }
    text = std::move(out);
    return repair;
}

} // namespace dice
