// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tokenizer/tokenizer.h"

#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/common/utf8.h"
#include "core/tokenizer/byte_level.h"
#include "core/tokenizer/pre_tokenizer.h"
#include "core/tokenizer/unicode_nfc.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <limits>
#include <mutex>
#include <queue>
#include <shared_mutex>
#include <unordered_map>

namespace dice {

namespace {

using nlohmann::json;

// Ids index flat tables; a bound keeps a small hostile file from asking for much memory. The
// largest real vocabularies have a few hundred thousand entries.
constexpr std::int64_t kMaxId = (std::int64_t{1} << 22) - 1;
// Words longer than this are encoded without the cache (long runs of spaces or symbols are rare
// and would crowd out the common words).
constexpr std::size_t kMaxCachedWord = 256;
constexpr std::size_t kCacheCapacity = 1 << 16;
// Words up to this many bytes are merged in fixed arrays on the stack.
constexpr std::size_t kShortWord = 64;

struct AddedToken {
    std::string content;
    std::int64_t id = 0;
    bool singleWord = false;
    bool lstrip = false;
    bool rstrip = false;
    bool normalized = false;
    bool special = false;
};

struct MergeRule {
    std::int32_t rank = 0;
    std::int32_t result = 0;
};

// Strings indexed by id, kept in one buffer: an unused id costs four bytes.
class StringTable {
public:
    std::size_t size() const { return m_end.size(); }
    std::string_view operator[](std::size_t id) const {
        const std::uint32_t begin = id ? m_end[id - 1] : 0;
        return std::string_view(m_data).substr(begin, m_end[id] - begin);
    }
    void push(std::string_view text) {
        if (m_data.size() + text.size() > std::numeric_limits<std::uint32_t>::max())
            throw Error("the vocabulary's tokens exceed 4 GB");
        m_data += text;
        m_end.push_back(static_cast<std::uint32_t>(m_data.size()));
    }

private:
    std::string m_data;
    std::vector<std::uint32_t> m_end;
};

std::uint64_t pairKey(std::int32_t left, std::int32_t right) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(left)) << 32) |
           static_cast<std::uint32_t>(right);
}

std::string jsonQuoted(std::string_view text) {
    return json(std::string(text)).dump();
}

// single_word's notion of a word character: Unicode \w.
bool isWordChar(char32_t c) {
    static const RegexSplitter word(R"(\w)", false, "word pattern");
    std::string utf8;
    appendUtf8(utf8, c);
    return word.fullMatch(utf8);
}

bool isSpace(char32_t c) {
    return c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
           c == 0x205F || c == 0x3000;
}

// The code point that ends just before `end` (valid UTF-8 assumed), and where it starts.
char32_t codePointBefore(std::string_view text, std::size_t end, std::size_t& start) {
    start = end;
    do {
        --start;
    } while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80);
    std::size_t pos = start;
    char32_t c = 0;
    decodeUtf8(text, pos, c);
    return c;
}

} // namespace

struct Tokenizer::Impl {
    std::string origin;

    // The BPE model.
    std::unordered_map<std::string, std::int32_t> vocab;
    StringTable tokenOfId; // byte-level strings; empty where an id is unused
    StringTable bytesOfId; // what each vocabulary id decodes to
    std::unordered_map<std::uint64_t, MergeRule> merges;
    std::array<std::int32_t, 256> byteId{};
    bool ignoreMerges = false;

    // Added tokens: matched in the raw text (normalized false) or after normalisation (true).
    std::vector<AddedToken> added;
    std::unordered_map<std::string, std::size_t> addedByContent;
    std::unordered_map<std::int64_t, std::size_t> addedById;
    AddedTokenMatcher rawMatcher;
    AddedTokenMatcher normalizedMatcher;

    bool nfc = false;
    std::vector<RegexSplitter> splits;             // Split steps, applied in order
    bool prefixSpace = false;                      // ByteLevel's add_prefix_space
    std::unique_ptr<RegexSplitter> byteLevelSplit; // ByteLevel with use_regex
    std::int64_t size = 0;

    // Word cache keyed by the word's hash, so that a lookup allocates nothing; the entry keeps
    // the word to tell collisions apart.
    struct CachedWord {
        std::string word;
        std::vector<std::int32_t> ids;
    };
    mutable std::shared_mutex cacheMutex;
    mutable std::unordered_map<std::size_t, CachedWord> cache;

    [[noreturn]] void fail(const std::string& problem) const { throw FileError(origin, problem); }

    void parse(const json& root);
    void parseModel(const json& model);
    void parseAddedTokens(const json& list);
    void parseNormalizer(const json& normalizer);
    void parsePreTokenizer(const json& preTokenizer);
    void parseByteLevel(const json& step, const std::string& where, bool last);
    void parseDecoder(const json& decoder);

    void encodeText(std::string_view text, std::vector<std::int64_t>& ids) const;
    void encodeNormalized(std::string_view text, std::vector<std::int64_t>& ids) const;
    void encodeSegment(std::string_view text, std::vector<std::int64_t>& ids) const;
    void encodeWord(std::string_view word, std::vector<std::int64_t>& ids) const;
    void mergeWord(std::string_view word, std::vector<std::int32_t>& symbols) const;
    void mergeShortWord(std::string_view word, std::vector<std::int32_t>& symbols) const;
    void splitOnAdded(std::string_view text, const AddedTokenMatcher& matcher,
                      const std::function<void(std::string_view)>& onText,
                      std::vector<std::int64_t>& ids) const;
};

namespace {

const json& member(const json& object, const char* key) {
    static const json null;
    const auto it = object.find(key);
    return it == object.end() ? null : *it;
}

bool optionalBool(const json& object, const char* key, bool fallback, const std::string& where,
                  const std::function<void(const std::string&)>& fail) {
    const json& value = member(object, key);
    if (value.is_null())
        return fallback;
    if (!value.is_boolean())
        fail(where + "." + key + " must be true or false");
    return value.get<bool>();
}

std::string typeOf(const json& object, const std::string& where,
                   const std::function<void(const std::string&)>& fail) {
    if (!object.is_object())
        fail(where + " must be an object");
    const json& type = member(object, "type");
    if (!type.is_string())
        fail(where + ".type is missing or not a string");
    return type.get<std::string>();
}

} // namespace

void Tokenizer::Impl::parse(const json& root) {
    if (!root.is_object())
        fail("the top level is not a JSON object");
    if (!root.contains("model"))
        fail("\"model\" is missing");
    parseModel(root["model"]);
    parseNormalizer(member(root, "normalizer"));
    parseAddedTokens(member(root, "added_tokens"));
    parsePreTokenizer(member(root, "pre_tokenizer"));
    parseDecoder(member(root, "decoder"));
    // post_processor is not read: encode() gives the ids of encode(add_special_tokens=False), to
    // which Qwen's ByteLevel post-processor adds nothing.
}

void Tokenizer::Impl::parseModel(const json& model) {
    const auto failWith = [this](const std::string& problem) { fail(problem); };
    const std::string type = typeOf(model, "model", failWith);
    if (type != "BPE")
        fail("model.type is " + jsonQuoted(type) + "; only byte-level \"BPE\" is supported");
    const json& dropout = member(model, "dropout");
    if (!dropout.is_null() && !(dropout.is_number() && dropout.get<double>() == 0.0))
        fail("model.dropout must be null: dropout makes encoding random");
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
        const json& value = member(model, key);
        if (!value.is_null() && !(value.is_string() && value.get<std::string>().empty()))
            fail(std::string("model.") + key + " must be empty for a byte-level BPE");
    }
    const json& unk = member(model, "unk_token");
    if (!unk.is_null() && !unk.is_string())
        fail("model.unk_token must be a string or null");
    optionalBool(model, "byte_fallback", false, "model", failWith);
    optionalBool(model, "fuse_unk", false, "model", failWith);
    ignoreMerges = optionalBool(model, "ignore_merges", false, "model", failWith);

    const json& vocabJson = member(model, "vocab");
    if (!vocabJson.is_object())
        fail("model.vocab is missing or not an object of token: id");
    vocab.reserve(vocabJson.size());
    std::int64_t maxId = -1;
    for (const auto& [token, idJson] : vocabJson.items()) {
        if (!idJson.is_number_integer())
            fail("model.vocab[" + jsonQuoted(token) + "] is not an integer id");
        const auto id = idJson.get<std::int64_t>();
        if (id < 0 || id > kMaxId)
            fail("model.vocab[" + jsonQuoted(token) + "]: id " + std::to_string(id) +
                 " is out of range (0.." + std::to_string(kMaxId) + ")");
        if (token.empty())
            fail("model.vocab has an empty token");
        vocab.emplace(token, static_cast<std::int32_t>(id));
        maxId = std::max(maxId, id);
    }
    std::vector<const std::string*> owner(static_cast<std::size_t>(maxId + 1), nullptr);
    for (const auto& [token, id] : vocab) {
        const std::string*& slot = owner[static_cast<std::size_t>(id)];
        if (slot)
            fail("model.vocab: id " + std::to_string(id) + " is given to both " +
                 jsonQuoted(std::min(*slot, token)) + " and " + jsonQuoted(std::max(*slot, token)));
        slot = &token;
    }
    std::string bytes;
    for (const std::string* token : owner) {
        tokenOfId.push(token ? *token : std::string());
        bytes.clear();
        if (token && !bytelevel::decodeBytes(*token, bytes))
            bytes = *token;
        bytesOfId.push(bytes);
    }
    for (unsigned b = 0; b < 256; ++b) {
        const std::string& token = bytelevel::utf8OfByte(static_cast<unsigned char>(b));
        const auto it = vocab.find(token);
        if (it == vocab.end()) {
            char hex[8];
            std::snprintf(hex, sizeof(hex), "0x%02X", b);
            fail("model.vocab lacks the byte-level token " + jsonQuoted(token) + " of byte " + hex +
                 ", so some text could not be encoded");
        }
        byteId[b] = it->second;
    }

    const json& mergesJson = member(model, "merges");
    if (!mergesJson.is_array())
        fail("model.merges is missing or not an array");
    merges.reserve(mergesJson.size());
    std::int32_t rank = 0;
    for (const auto& entry : mergesJson) {
        const std::string where = "model.merges[" + std::to_string(rank) + "]";
        std::string left;
        std::string right;
        if (entry.is_string()) {
            const auto& text = entry.get_ref<const std::string&>();
            const auto space = text.find(' ');
            if (space == std::string::npos || text.find(' ', space + 1) != std::string::npos)
                fail(where + ": " + jsonQuoted(text) + " is not two tokens separated by one space");
            left = text.substr(0, space);
            right = text.substr(space + 1);
        } else if (entry.is_array() && entry.size() == 2 && entry[0].is_string() &&
                   entry[1].is_string()) {
            left = entry[0].get<std::string>();
            right = entry[1].get<std::string>();
        } else {
            fail(where + " is neither \"a b\" nor [\"a\", \"b\"]");
        }
        const auto l = vocab.find(left);
        const auto r = vocab.find(right);
        const auto m = vocab.find(left + right);
        if (l == vocab.end() || r == vocab.end())
            fail(where + ": " + jsonQuoted(l == vocab.end() ? left : right) +
                 " is not in the vocabulary");
        if (m == vocab.end())
            fail(where + ": the merged token " + jsonQuoted(left + right) +
                 " is not in the vocabulary");
        // A repeated pair takes its last rank, as the reference implementations do.
        merges[pairKey(l->second, r->second)] = MergeRule{rank, m->second};
        ++rank;
    }
    size = static_cast<std::int64_t>(tokenOfId.size());
}

void Tokenizer::Impl::parseAddedTokens(const json& list) {
    if (list.is_null())
        return;
    if (!list.is_array())
        fail("added_tokens must be an array");
    const auto failWith = [this](const std::string& problem) { fail(problem); };
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string where = "added_tokens[" + std::to_string(i) + "]";
        const json& entry = list[i];
        if (!entry.is_object())
            fail(where + " must be an object");
        const json& id = member(entry, "id");
        const json& content = member(entry, "content");
        if (!id.is_number_integer())
            fail(where + ".id is missing or not an integer");
        if (!content.is_string() || content.get_ref<const std::string&>().empty())
            fail(where + ".content is missing or empty");
        AddedToken token;
        token.id = id.get<std::int64_t>();
        token.content = content.get<std::string>();
        if (token.id < 0 || token.id > kMaxId)
            fail(where + ".id " + std::to_string(token.id) + " is out of range (0.." +
                 std::to_string(kMaxId) + ")");
        token.special = optionalBool(entry, "special", false, where, failWith);
        token.singleWord = optionalBool(entry, "single_word", false, where, failWith);
        token.lstrip = optionalBool(entry, "lstrip", false, where, failWith);
        token.rstrip = optionalBool(entry, "rstrip", false, where, failWith);
        token.normalized = optionalBool(entry, "normalized", !token.special, where, failWith);
        if (addedByContent.count(token.content))
            fail(where + ": " + jsonQuoted(token.content) + " is listed twice");
        if (addedById.count(token.id))
            fail(where + ": id " + std::to_string(token.id) + " is listed twice");
        if (token.id < static_cast<std::int64_t>(tokenOfId.size())) {
            const std::string_view existing = tokenOfId[static_cast<std::size_t>(token.id)];
            if (!existing.empty() && existing != token.content)
                fail(where + ": id " + std::to_string(token.id) +
                     " already belongs to the vocabulary token " + jsonQuoted(existing));
        }
        const std::size_t index = added.size();
        addedByContent.emplace(token.content, index);
        addedById.emplace(token.id, index);
        size = std::max(size, token.id + 1);
        added.push_back(std::move(token));
    }
    for (std::size_t i = 0; i < added.size(); ++i) {
        if (added[i].normalized && nfc)
            normalizedMatcher.add(NfcNormalizer::instance().normalize(added[i].content), i);
        else if (added[i].normalized)
            normalizedMatcher.add(added[i].content, i);
        else
            rawMatcher.add(added[i].content, i);
    }
}

void Tokenizer::Impl::parseNormalizer(const json& normalizer) {
    if (normalizer.is_null())
        return;
    const auto failWith = [this](const std::string& problem) { fail(problem); };
    std::vector<const json*> steps;
    const std::string type = typeOf(normalizer, "normalizer", failWith);
    if (type == "Sequence") {
        const json& list = member(normalizer, "normalizers");
        if (!list.is_array())
            fail("normalizer.normalizers must be an array");
        for (const auto& step : list)
            steps.push_back(&step);
    } else {
        steps.push_back(&normalizer);
    }
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const std::string where =
            type == "Sequence" ? "normalizer.normalizers[" + std::to_string(i) + "]" : "normalizer";
        const std::string stepType = typeOf(*steps[i], where, failWith);
        if (stepType != "NFC")
            fail(where + ": " + jsonQuoted(stepType) +
                 " is not supported (only NFC, a Sequence of NFC, or none)");
        nfc = true;
    }
    if (nfc && !NfcNormalizer::instance().available())
        fail("the tokenizer asks for NFC normalisation, but " +
             NfcNormalizer::instance().loadError());
}

void Tokenizer::Impl::parseByteLevel(const json& step, const std::string& where, bool last) {
    const auto failWith = [this](const std::string& problem) { fail(problem); };
    if (!last)
        fail(where + ": ByteLevel must be the last pre-tokenizer step");
    prefixSpace = optionalBool(step, "add_prefix_space", false, where, failWith);
    optionalBool(step, "trim_offsets", true, where, failWith);
    if (optionalBool(step, "use_regex", true, where, failWith))
        byteLevelSplit =
            std::make_unique<RegexSplitter>(kGpt2PretokenizerPattern, false, where + " (GPT-2)");
}

void Tokenizer::Impl::parsePreTokenizer(const json& preTokenizer) {
    const auto failWith = [this](const std::string& problem) { fail(problem); };
    if (preTokenizer.is_null())
        fail("pre_tokenizer is missing: a byte-level BPE needs a ByteLevel pre-tokenizer");
    const std::string type = typeOf(preTokenizer, "pre_tokenizer", failWith);
    if (type == "ByteLevel") {
        parseByteLevel(preTokenizer, "pre_tokenizer", true);
        return;
    }
    if (type != "Sequence")
        fail("pre_tokenizer: " + jsonQuoted(type) +
             " is not supported (ByteLevel, or a Sequence of Split steps and a ByteLevel)");
    const json& list = member(preTokenizer, "pretokenizers");
    if (!list.is_array() || list.empty())
        fail("pre_tokenizer.pretokenizers must be a non-empty array");
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string where = "pre_tokenizer.pretokenizers[" + std::to_string(i) + "]";
        const json& step = list[i];
        const std::string stepType = typeOf(step, where, failWith);
        const bool last = i + 1 == list.size();
        if (stepType == "ByteLevel") {
            parseByteLevel(step, where, last);
            continue;
        }
        if (stepType != "Split")
            fail(where + ": " + jsonQuoted(stepType) +
                 " is not supported (only Split and ByteLevel)");
        if (last)
            fail(where + ": the last step must be ByteLevel");
        const json& behavior = member(step, "behavior");
        if (!behavior.is_string() || behavior.get<std::string>() != "Isolated")
            fail(where + ".behavior must be \"Isolated\"");
        if (optionalBool(step, "invert", false, where, failWith))
            fail(where + ".invert must be false");
        const json& pattern = member(step, "pattern");
        if (!pattern.is_object() || pattern.size() != 1)
            fail(where + ".pattern must be {\"Regex\": ...} or {\"String\": ...}");
        const json& regex = member(pattern, "Regex");
        const json& literal = member(pattern, "String");
        if (regex.is_string())
            splits.emplace_back(regex.get<std::string>(), false, origin + ": " + where);
        else if (literal.is_string() && !literal.get_ref<const std::string&>().empty())
            splits.emplace_back(literal.get<std::string>(), true, origin + ": " + where);
        else
            fail(where + ".pattern must be {\"Regex\": ...} or a non-empty {\"String\": ...}");
    }
}

void Tokenizer::Impl::parseDecoder(const json& decoder) {
    const auto failWith = [this](const std::string& problem) { fail(problem); };
    if (decoder.is_null())
        fail("decoder is missing: a byte-level BPE needs the ByteLevel decoder");
    const std::string type = typeOf(decoder, "decoder", failWith);
    if (type != "ByteLevel")
        fail("decoder: " + jsonQuoted(type) + " is not supported (only ByteLevel)");
}

void Tokenizer::Impl::splitOnAdded(std::string_view text, const AddedTokenMatcher& matcher,
                                   const std::function<void(std::string_view)>& onText,
                                   std::vector<std::int64_t>& ids) const {
    std::size_t done = 0;
    std::size_t from = 0;
    AddedTokenMatcher::Match m;
    while (matcher.find(text, from, m)) {
        const AddedToken& token = added[m.token];
        std::size_t begin = m.begin;
        std::size_t end = m.end;
        from = m.end;
        if (token.singleWord) {
            std::size_t unused = 0;
            char32_t after = 0;
            std::size_t pos = end;
            const bool wordBefore = begin > 0 && isWordChar(codePointBefore(text, begin, unused));
            const bool wordAfter =
                end < text.size() && decodeUtf8(text, pos, after) && isWordChar(after);
            if (wordBefore || wordAfter)
                continue;
        }
        if (token.lstrip) {
            while (begin > done) {
                std::size_t start = 0;
                if (!isSpace(codePointBefore(text, begin, start)))
                    break;
                begin = start;
            }
        }
        if (token.rstrip) {
            std::size_t pos = end;
            char32_t c = 0;
            while (pos < text.size() && decodeUtf8(text, pos, c) && isSpace(c))
                end = pos;
            from = end;
        }
        if (begin > done)
            onText(text.substr(done, begin - done));
        ids.push_back(token.id);
        done = end;
    }
    if (done < text.size())
        onText(text.substr(done));
}

void Tokenizer::Impl::encodeText(std::string_view text, std::vector<std::int64_t>& ids) const {
    splitOnAdded(
        text, rawMatcher, [&](std::string_view piece) { encodeNormalized(piece, ids); }, ids);
}

void Tokenizer::Impl::encodeNormalized(std::string_view text,
                                       std::vector<std::int64_t>& ids) const {
    std::string normalized;
    if (nfc && !NfcNormalizer::triviallyNfc(text)) {
        normalized = NfcNormalizer::instance().normalize(text);
        text = normalized;
    }
    if (normalizedMatcher.empty()) {
        encodeSegment(text, ids);
        return;
    }
    splitOnAdded(
        text, normalizedMatcher, [&](std::string_view piece) { encodeSegment(piece, ids); }, ids);
}

void Tokenizer::Impl::encodeSegment(std::string_view text, std::vector<std::int64_t>& ids) const {
    std::vector<std::string_view> pieces{text};
    std::vector<std::string_view> next;
    for (const auto& split : splits) {
        next.clear();
        for (const auto piece : pieces)
            split.split(piece, next);
        pieces.swap(next);
    }
    std::string prefixed;
    std::vector<std::string_view> words;
    for (auto piece : pieces) {
        if (prefixSpace && (piece.empty() || piece.front() != ' ')) {
            prefixed = " ";
            prefixed += piece;
            piece = prefixed;
        }
        if (!byteLevelSplit) {
            encodeWord(piece, ids);
            continue;
        }
        words.clear();
        byteLevelSplit->split(piece, words);
        for (const auto word : words)
            encodeWord(word, ids);
    }
}

void Tokenizer::Impl::encodeWord(std::string_view word, std::vector<std::int64_t>& ids) const {
    if (word.empty())
        return;
    if (word.size() == 1) {
        ids.push_back(byteId[static_cast<unsigned char>(word.front())]);
        return;
    }
    const bool cacheable = word.size() <= kMaxCachedWord;
    const std::size_t hash = std::hash<std::string_view>{}(word);
    if (cacheable) {
        std::shared_lock lock(cacheMutex);
        const auto it = cache.find(hash);
        if (it != cache.end() && it->second.word == word) {
            ids.insert(ids.end(), it->second.ids.begin(), it->second.ids.end());
            return;
        }
    }
    std::vector<std::int32_t> symbols;
    if (ignoreMerges) {
        const auto it = vocab.find(bytelevel::encodeBytes(word));
        if (it != vocab.end())
            symbols.push_back(it->second);
    }
    if (symbols.empty() && word.size() <= kShortWord)
        mergeShortWord(word, symbols);
    else if (symbols.empty())
        mergeWord(word, symbols);
    ids.insert(ids.end(), symbols.begin(), symbols.end());
    if (cacheable) {
        std::unique_lock lock(cacheMutex);
        if (cache.size() >= kCacheCapacity)
            cache.clear();
        cache[hash] = CachedWord{std::string(word), std::move(symbols)};
    }
}

void Tokenizer::Impl::mergeShortWord(std::string_view word,
                                     std::vector<std::int32_t>& symbols) const {
    // Most words are a few bytes long: scanning the pairs for the lowest rank each round beats the
    // heap, and the first lowest pair in the scan is the leftmost, as the heap would pick it.
    constexpr std::int32_t kNone = std::numeric_limits<std::int32_t>::max();
    std::array<std::int32_t, kShortWord> sym;
    std::array<std::int32_t, kShortWord> rank;
    std::array<std::int32_t, kShortWord> result;
    std::size_t n = word.size();
    for (std::size_t i = 0; i < n; ++i)
        sym[i] = byteId[static_cast<unsigned char>(word[i])];
    const auto lookUp = [&](std::size_t i) {
        const auto it = merges.find(pairKey(sym[i], sym[i + 1]));
        rank[i] = it == merges.end() ? kNone : it->second.rank;
        result[i] = it == merges.end() ? 0 : it->second.result;
    };
    for (std::size_t i = 0; i + 1 < n; ++i)
        lookUp(i);
    for (;;) {
        std::size_t best = n;
        std::int32_t bestRank = kNone;
        for (std::size_t i = 0; i + 1 < n; ++i) {
            if (rank[i] < bestRank) {
                bestRank = rank[i];
                best = i;
            }
        }
        if (best == n)
            break;
        sym[best] = result[best];
        for (std::size_t i = best + 1; i + 1 < n; ++i) {
            sym[i] = sym[i + 1];
            rank[i] = rank[i + 1];
            result[i] = result[i + 1];
        }
        --n;
        if (best > 0)
            lookUp(best - 1);
        if (best + 1 < n)
            lookUp(best);
    }
    symbols.assign(sym.begin(), sym.begin() + static_cast<std::ptrdiff_t>(n));
}

void Tokenizer::Impl::mergeWord(std::string_view word, std::vector<std::int32_t>& symbols) const {
    // Symbols form a linked list over the word's bytes; a heap holds candidate merges ordered by
    // rank, then by position, so the lowest-ranked pair merges first and equal pairs merge left
    // to right, as in the reference implementations.
    const std::size_t n = word.size();
    std::vector<std::int32_t> id(n);
    std::vector<std::int32_t> next(n);
    std::vector<std::int32_t> prev(n);
    for (std::size_t i = 0; i < n; ++i) {
        id[i] = byteId[static_cast<unsigned char>(word[i])];
        next[i] = i + 1 < n ? static_cast<std::int32_t>(i + 1) : -1;
        prev[i] = static_cast<std::int32_t>(i) - 1;
    }
    struct Candidate {
        std::int32_t rank;
        std::int32_t pos;
        std::int32_t left;
        std::int32_t right;
        std::int32_t result;
        bool operator>(const Candidate& o) const {
            return rank != o.rank ? rank > o.rank : pos > o.pos;
        }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> heap;
    const auto consider = [&](std::int32_t pos) {
        if (pos < 0 || next[pos] < 0)
            return;
        const auto it = merges.find(pairKey(id[pos], id[next[pos]]));
        if (it != merges.end())
            heap.push(Candidate{it->second.rank, pos, id[pos], id[next[pos]], it->second.result});
    };
    for (std::size_t i = 0; i + 1 < n; ++i)
        consider(static_cast<std::int32_t>(i));
    while (!heap.empty()) {
        const Candidate c = heap.top();
        heap.pop();
        const std::int32_t right = next[c.pos];
        if (id[c.pos] != c.left || right < 0 || id[right] != c.right)
            continue;
        id[c.pos] = c.result;
        next[c.pos] = next[right];
        if (next[right] >= 0)
            prev[next[right]] = c.pos;
        id[right] = -1;
        consider(prev[c.pos]);
        consider(c.pos);
    }
    for (std::int32_t pos = 0; pos >= 0; pos = next[pos])
        symbols.push_back(id[pos]);
}

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl)) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::load(const std::string& path) {
    return fromJson(readTextFile(path, limits::kTokenizerJson), path);
}

Tokenizer Tokenizer::fromJson(const std::string& text, const std::string& origin) {
    auto impl = std::make_unique<Impl>();
    impl->origin = origin;
    json root;
    try {
        root = json::parse(text);
    } catch (const json::exception& e) {
        throw FileError(origin, std::string("not valid JSON: ") + e.what());
    }
    try {
        impl->parse(root);
    } catch (const FileError&) {
        throw;
    } catch (const Error& e) {
        throw FileError(origin, e.what());
    } catch (const json::exception& e) {
        throw FileError(origin, std::string("unexpected JSON structure: ") + e.what());
    }
    return Tokenizer(std::move(impl));
}

std::vector<std::int64_t> Tokenizer::encode(std::string_view text) const {
    const std::size_t bad = firstInvalidUtf8(text);
    if (bad != std::string_view::npos)
        throw Error("tokenizer: the text is not valid UTF-8 at byte " + std::to_string(bad));
    std::vector<std::int64_t> ids;
    ids.reserve(text.size() / 3 + 4);
    m_impl->encodeText(text, ids);
    return ids;
}

std::string Tokenizer::decode(const std::vector<std::int64_t>& ids, bool skipSpecial) const {
    // Ids outside the vocabulary (an embedding matrix is often padded beyond it) decode to
    // nothing, as in the reference implementations.
    std::string out;
    for (const std::int64_t id : ids) {
        const auto it = m_impl->addedById.find(id);
        if (it != m_impl->addedById.end()) {
            const AddedToken& token = m_impl->added[it->second];
            if (!(skipSpecial && token.special))
                out += token.content;
            continue;
        }
        if (id >= 0 && id < static_cast<std::int64_t>(m_impl->bytesOfId.size()))
            out += m_impl->bytesOfId[static_cast<std::size_t>(id)];
    }
    return out;
}

std::optional<std::int64_t> Tokenizer::tokenId(std::string_view token) const {
    const std::string key(token);
    const auto added = m_impl->addedByContent.find(key);
    if (added != m_impl->addedByContent.end())
        return m_impl->added[added->second].id;
    const auto it = m_impl->vocab.find(key);
    if (it != m_impl->vocab.end())
        return it->second;
    return std::nullopt;
}

std::string Tokenizer::tokenString(std::int64_t id) const {
    const auto it = m_impl->addedById.find(id);
    if (it != m_impl->addedById.end())
        return m_impl->added[it->second].content;
    if (id >= 0 && id < static_cast<std::int64_t>(m_impl->tokenOfId.size()))
        return std::string(m_impl->tokenOfId[static_cast<std::size_t>(id)]);
    return {};
}

std::string Tokenizer::tokenText(std::int64_t id) const {
    return decode({id});
}

bool Tokenizer::isSpecial(std::int64_t id) const {
    const auto it = m_impl->addedById.find(id);
    return it != m_impl->addedById.end() && m_impl->added[it->second].special;
}

std::int64_t Tokenizer::vocabSize() const {
    return m_impl->size;
}

} // namespace dice
