// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dice::bytelevel {

// GPT-2's byte-to-character map: the 188 printable bytes ('!'..'~', U+00A1..U+00AC,
// U+00AE..U+00FF) stand for themselves, the other 68 bytes map in order to U+0100..U+0143. Every
// byte-level token is a string of these characters in UTF-8.
char32_t charOfByte(unsigned char byte);
// The UTF-8 form of charOfByte(byte) (one or two bytes).
const std::string& utf8OfByte(unsigned char byte);
// The byte a byte-level character stands for, or -1 when the character is not one of the 256.
int byteOfChar(char32_t c);

// Maps raw bytes to their byte-level string (what a BPE vocabulary holds).
std::string encodeBytes(std::string_view bytes);
// Maps a byte-level string back to raw bytes; false when a character is not one of the 256 or
// the string is not valid UTF-8.
bool decodeBytes(std::string_view byteLevel, std::string& out);

// The 256 byte-level characters ordered by code point, which is the order of ids 0..255 in GPT-2
// and Qwen vocabularies.
const std::array<unsigned char, 256>& bytesInIdOrder();

} // namespace dice::bytelevel
