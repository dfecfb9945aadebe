// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tokenizer/pre_tokenizer.h"

#include "core/common/error.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace dice {

const char* const kQwenPretokenizerPattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

const char* const kGpt2PretokenizerPattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

namespace {

// Bounds a pattern's backtracking so that a pathological pattern from a tokenizer.json fails
// with an error instead of hanging; the real pre-tokenizer patterns stay far below it.
constexpr std::uint32_t kMatchLimit = 50'000'000;
constexpr std::uint32_t kDepthLimit = 100'000;

std::string pcre2Message(int code) {
    PCRE2_UCHAR buffer[256];
    if (pcre2_get_error_message(code, buffer, sizeof(buffer)) < 0)
        return "PCRE2 error " + std::to_string(code);
    return reinterpret_cast<const char*>(buffer);
}

std::size_t nextCodePoint(std::string_view text, std::size_t pos) {
    ++pos;
    while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80)
        ++pos;
    return pos;
}

struct MatchData {
    pcre2_match_data* data;
    explicit MatchData(const pcre2_code* code)
        : data(pcre2_match_data_create_from_pattern(code, nullptr)) {
        if (!data)
            throw Error("pre-tokenizer: out of memory");
    }
    ~MatchData() { pcre2_match_data_free(data); }
    MatchData(const MatchData&) = delete;
    MatchData& operator=(const MatchData&) = delete;
};

} // namespace

struct RegexSplitter::Impl {
    std::string pattern;
    pcre2_code* code = nullptr;
    pcre2_match_context* context = nullptr;
    bool jit = false;

    ~Impl() {
        pcre2_match_context_free(context);
        pcre2_code_free(code);
    }
};

RegexSplitter::RegexSplitter(const std::string& pattern, bool literal, const std::string& where)
    : m_impl(std::make_unique<Impl>()) {
    m_impl->pattern = pattern;
    int error = 0;
    PCRE2_SIZE offset = 0;
    std::uint32_t options = PCRE2_UTF | PCRE2_UCP;
    if (literal)
        options = PCRE2_UTF | PCRE2_LITERAL;
    m_impl->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                 options, &error, &offset, nullptr);
    if (!m_impl->code)
        throw Error(where + ": the pattern does not compile at offset " + std::to_string(offset) +
                    ": " + pcre2Message(error));
    m_impl->jit = pcre2_jit_compile(m_impl->code, PCRE2_JIT_COMPLETE) == 0;
    m_impl->context = pcre2_match_context_create(nullptr);
    if (!m_impl->context)
        throw Error(where + ": out of memory");
    pcre2_set_match_limit(m_impl->context, kMatchLimit);
    pcre2_set_depth_limit(m_impl->context, kDepthLimit);
}

RegexSplitter::~RegexSplitter() = default;
RegexSplitter::RegexSplitter(RegexSplitter&&) noexcept = default;
RegexSplitter& RegexSplitter::operator=(RegexSplitter&&) noexcept = default;

bool RegexSplitter::jit() const {
    return m_impl->jit;
}

const std::string& RegexSplitter::pattern() const {
    return m_impl->pattern;
}

void RegexSplitter::split(std::string_view text, std::vector<std::string_view>& out) const {
    if (text.empty())
        return;
    const MatchData md(m_impl->code);
    const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    std::size_t last = 0;
    std::size_t pos = 0;
    std::uint32_t mode = 0;
    while (pos <= text.size()) {
        int rc = pcre2_match(m_impl->code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK | mode,
                             md.data, m_impl->context);
        if (rc == PCRE2_ERROR_JIT_STACKLIMIT) {
            // The JIT's small machine stack ran out on a long match; the interpreter keeps its
            // backtracking state on the heap.
            mode = PCRE2_NO_JIT;
            continue;
        }
        if (rc == PCRE2_ERROR_NOMATCH)
            break;
        if (rc < 0)
            throw Error("pre-tokenizer pattern failed at byte " + std::to_string(pos) + ": " +
                        pcre2Message(rc));
        const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(md.data);
        const std::size_t begin = ovector[0];
        const std::size_t end = ovector[1];
        if (end <= begin) {
            if (begin >= text.size())
                break;
            pos = nextCodePoint(text, begin);
            continue;
        }
        if (begin > last)
            out.push_back(text.substr(last, begin - last));
        out.push_back(text.substr(begin, end - begin));
        last = end;
        pos = end;
    }
    if (last < text.size())
        out.push_back(text.substr(last));
}

bool RegexSplitter::fullMatch(std::string_view text) const {
    const MatchData md(m_impl->code);
    const int rc = pcre2_match(m_impl->code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(),
                               0, PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_NO_UTF_CHECK, md.data,
                               m_impl->context);
    return rc > 0;
}

void AddedTokenMatcher::add(std::string_view content, std::size_t token) {
    if (content.empty())
        return;
    std::size_t node = 0;
    for (char ch : content) {
        const auto byte = static_cast<unsigned char>(ch);
        const std::uint64_t key = static_cast<std::uint64_t>(node) * 256 + byte;
        auto it = m_edges.find(key);
        if (it == m_edges.end()) {
            m_terminal.push_back(0);
            it = m_edges.emplace(key, m_terminal.size() - 1).first;
        }
        node = it->second;
    }
    m_terminal[node] = token + 1;
    m_firstByte[static_cast<unsigned char>(content.front())] = true;
}

std::size_t AddedTokenMatcher::child(std::size_t node, unsigned char byte) const {
    const auto it = m_edges.find(static_cast<std::uint64_t>(node) * 256 + byte);
    return it == m_edges.end() ? 0 : it->second;
}

bool AddedTokenMatcher::find(std::string_view text, std::size_t from, Match& match) const {
    if (empty())
        return false;
    for (std::size_t i = from; i < text.size(); ++i) {
        if (!m_firstByte[static_cast<unsigned char>(text[i])])
            continue;
        std::size_t node = 0;
        std::size_t bestEnd = 0;
        std::size_t bestToken = 0;
        for (std::size_t j = i; j < text.size(); ++j) {
            node = child(node, static_cast<unsigned char>(text[j]));
            if (node == 0)
                break;
            if (m_terminal[node]) {
                bestEnd = j + 1;
                bestToken = m_terminal[node] - 1;
            }
        }
        if (bestEnd) {
            match = {i, bestEnd, bestToken};
            return true;
        }
    }
    return false;
}

} // namespace dice
