// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

// UTF-8 as Unicode defines it: overlong forms, surrogates and code points above U+10FFFF are
// invalid. The tokenizer, the NFC normaliser and every reader of outside text share these.
namespace dice {

// Reads the code point at `pos` and advances `pos`; false on an invalid or truncated sequence.
bool decodeUtf8(std::string_view text, std::size_t& pos, char32_t& c);
void appendUtf8(std::string& out, char32_t c);
// Offset of the first byte that does not start a valid UTF-8 sequence, or npos when valid.
std::size_t firstInvalidUtf8(std::string_view text);

// Text that crosses a process or file boundary (a model's answer, a candidate file, a forged
// request) may hold bytes that are not UTF-8, and JSON cannot carry them: they are replaced before
// any JSON sees the text.
struct Utf8Repair {
    std::size_t replaced = 0;    // ill-formed sequences replaced by U+FFFD
    std::size_t firstOffset = 0; // byte offset of the first one in the original text
};
// Replaces every ill-formed sequence of `text` in place by U+FFFD, one per maximal subpart (the
// longest start of a well-formed sequence, or a single byte), as Unicode recommends. Well-formed
// text is left as it is and not copied.
Utf8Repair repairUtf8(std::string& text);

} // namespace dice
