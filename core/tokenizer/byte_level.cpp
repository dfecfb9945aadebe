// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tokenizer/byte_level.h"

#include "core/common/utf8.h"

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

} // namespace dice::bytelevel
