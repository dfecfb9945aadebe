// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tokenizer/byte_level.h"

#include <algorithm>

namespace dice::bytelevel {

namespace {

bool printable(unsigned b) {
    return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

struct Tables {
    std::array<char32_t, 256> charOf{};
    std::array<std::string, 256> utf8Of;
    // Indexed by code point; the byte-level alphabet ends at U+0143.
    std::array<int, 0x144> byteOf{};
    std::array<unsigned char, 256> idOrder{};

    Tables() {
        byteOf.fill(-1);
        char32_t next = 0x100;
        for (unsigned b = 0; b < 256; ++b) {
            charOf[b] = printable(b) ? static_cast<char32_t>(b) : next++;
            appendUtf8(utf8Of[b], charOf[b]);
            byteOf[charOf[b]] = static_cast<int>(b);
        }
        for (unsigned b = 0; b < 256; ++b)
            idOrder[b] = static_cast<unsigned char>(b);
        std::sort(idOrder.begin(), idOrder.end(),
                  [this](unsigned char x, unsigned char y) { return charOf[x] < charOf[y]; });
    }
};

const Tables& tables() {
    static const Tables instance;
    return instance;
}

} // namespace

char32_t charOfByte(unsigned char byte) {
    return tables().charOf[byte];
}

const std::string& utf8OfByte(unsigned char byte) {
    return tables().utf8Of[byte];
}

int byteOfChar(char32_t c) {
    return c < 0x144 ? tables().byteOf[c] : -1;
}

const std::array<unsigned char, 256>& bytesInIdOrder() {
    return tables().idOrder;
}

std::string encodeBytes(std::string_view bytes) {
    const auto& t = tables();
    std::string out;
    out.reserve(bytes.size() + bytes.size() / 2);
    for (char b : bytes)
        out += t.utf8Of[static_cast<unsigned char>(b)];
    return out;
}

bool decodeBytes(std::string_view byteLevel, std::string& out) {
    std::size_t pos = 0;
    while (pos < byteLevel.size()) {
        const auto lead = static_cast<unsigned char>(byteLevel[pos]);
        if (lead < 0x80) {
            const int b = tables().byteOf[lead];
            if (b < 0)
                return false;
            out += static_cast<char>(b);
            ++pos;
            continue;
        }
        char32_t c = 0;
        if (!decodeUtf8(byteLevel, pos, c))
            return false;
        const int b = byteOfChar(c);
        if (b < 0)
            return false;
        out += static_cast<char>(b);
    }
    return true;
}

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

} // namespace dice::bytelevel
