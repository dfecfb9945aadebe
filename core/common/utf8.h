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

} // namespace dice
