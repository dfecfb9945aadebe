// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace dice {

// Qwen2/Qwen3's pre-tokenizer pattern (a Split with behaviour Isolated). \p{N} takes one digit at
// a time, so numbers are split digit by digit.
extern const char* const kQwenPretokenizerPattern;
// GPT-2's pattern, used by ByteLevel when its use_regex is true.
extern const char* const kGpt2PretokenizerPattern;

// A compiled PCRE2 pattern (UTF, UCP, JIT when available) that splits text the way Hugging Face's
// Split with behaviour "Isolated" does: every match is a piece and so is every stretch between
// matches; empty matches produce nothing. Thread-safe.
class RegexSplitter {
public:
    // literal: the pattern is a plain string (Split's {"String": ...}). Throws dice::Error
    // starting with `where` when the pattern does not compile.
    RegexSplitter(const std::string& pattern, bool literal, const std::string& where);
    ~RegexSplitter();
    RegexSplitter(RegexSplitter&&) noexcept;
    RegexSplitter& operator=(RegexSplitter&&) noexcept;

    // Appends the pieces of `text` (valid UTF-8) to `out`; they are views into `text`. Throws
    // dice::Error when the pattern exceeds its match limit on this text.
    void split(std::string_view text, std::vector<std::string_view>& out) const;

    // True when the pattern matches the whole of `text`.
    bool fullMatch(std::string_view text) const;

    bool jit() const;
    const std::string& pattern() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Finds added tokens in text: leftmost match first, the longest token at that position. Matching
// is on bytes, so it never splits a UTF-8 character of valid text.
class AddedTokenMatcher {
public:
    struct Match {
        std::size_t begin = 0;
        std::size_t end = 0;
        std::size_t token = 0; // index given to add()
    };

    void add(std::string_view content, std::size_t token);
    bool empty() const { return m_terminal.size() <= 1; }
    // The first match starting at or after `from`; false when there is none.
    bool find(std::string_view text, std::size_t from, Match& match) const;

private:
    std::size_t child(std::size_t node, unsigned char byte) const;

    std::array<bool, 256> m_firstByte{};
    // Byte trie: edges keyed by node * 256 + byte; m_terminal[node] is the token index + 1.
    std::unordered_map<std::uint64_t, std::size_t> m_edges;
    std::vector<std::size_t> m_terminal = {0};
};

} // namespace dice
