// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tokenizer/bpe_trainer.h"

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
#include <chrono>
#include <filesystem>
#include <queue>
#include <unordered_map>
#include <unordered_set>

namespace dice {

namespace fs = std::filesystem;

namespace {

using nlohmann::json;

std::uint64_t pairKey(std::int32_t left, std::int32_t right) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(left)) << 32) |
           static_cast<std::uint32_t>(right);
}

std::int32_t leftOf(std::uint64_t key) {
    return static_cast<std::int32_t>(key >> 32);
}

std::int32_t rightOf(std::uint64_t key) {
    return static_cast<std::int32_t>(key & 0xFFFFFFFFu);
}

struct Candidate {
    std::int64_t count;
    std::uint64_t key;
    // The heap's top is the most frequent pair; among equals, the smaller ids.
    bool operator<(const Candidate& o) const {
        return count != o.count ? count < o.count : key > o.key;
    }
};

std::string quotedJson(const std::string& text) {
    return json(text).dump();
}

} // namespace

struct BpeTrainer::Impl {
    BpeTrainerOptions options;
    std::vector<std::string> added;
    std::vector<bool> addedSpecial;
    AddedTokenMatcher matcher;
    RegexSplitter splitter{kQwenPretokenizerPattern, false, "Qwen pre-tokenizer"};
    std::unordered_map<std::string, std::uint64_t> counts;
    BpeTrainingSummary summary;

    void countWords(std::string_view piece) {
        if (piece.empty())
            return;
        std::string normalized;
        if (!NfcNormalizer::triviallyNfc(piece)) {
            normalized = NfcNormalizer::instance().normalize(piece);
            piece = normalized;
        }
        std::vector<std::string_view> words;
        splitter.split(piece, words);
        for (const auto word : words)
            ++counts[std::string(word)];
        summary.words += words.size();
    }
};

const std::vector<std::string>& BpeTrainer::workbenchTokens() {
    static const std::vector<std::string> tokens = {"<|endoftext|>", "<|im_start|>", "<|im_end|>",
                                                    "<|MASK|>"};
    return tokens;
}

BpeTrainer::BpeTrainer(BpeTrainerOptions options)
    : m_impl(std::make_unique<Impl>()) {
    if (!NfcNormalizer::instance().available())
        throw Error("tokenizer training normalises text to NFC, but " +
                    NfcNormalizer::instance().loadError());
    auto& impl = *m_impl;
    for (const auto& token : workbenchTokens()) {
        impl.added.push_back(token);
        // SDAR's mask token is not special: decoding with special tokens skipped keeps it.
        impl.addedSpecial.push_back(token != "<|MASK|>");
    }
    for (const auto& token : options.specialTokens) {
        if (token.empty())
            throw Error("a special token is empty");
        if (firstInvalidUtf8(token) != std::string::npos)
            throw Error("the special token " + quotedJson(token) + " is not valid UTF-8");
        if (std::find(impl.added.begin(), impl.added.end(), token) != impl.added.end())
            throw Error("the special token " + quotedJson(token) + " is given twice");
        impl.added.push_back(token);
        impl.addedSpecial.push_back(true);
    }
    const std::size_t minimum = 256 + impl.added.size();
    if (options.vocabSize < minimum)
        throw Error("the vocabulary size " + std::to_string(options.vocabSize) +
                    " is too small: the 256 byte tokens and " + std::to_string(impl.added.size()) +
                    " added tokens need at least " + std::to_string(minimum));
    if (options.vocabSize > (std::size_t{1} << 24))
        throw Error("the vocabulary size " + std::to_string(options.vocabSize) +
                    " is too large (at most 16777216)");
    for (std::size_t i = 0; i < impl.added.size(); ++i)
        impl.matcher.add(impl.added[i], i);
    impl.options = std::move(options);
}

BpeTrainer::~BpeTrainer() = default;

void BpeTrainer::addText(std::string_view text) {
    const std::size_t bad = firstInvalidUtf8(text);
    if (bad != std::string_view::npos)
        throw Error("the text is not valid UTF-8 at byte " + std::to_string(bad));
    auto& impl = *m_impl;
    impl.summary.bytes += text.size();
    std::size_t done = 0;
    AddedTokenMatcher::Match m;
    while (impl.matcher.find(text, done, m)) {
        impl.countWords(text.substr(done, m.begin - done));
        done = m.end;
    }
    impl.countWords(text.substr(done));
}

void BpeTrainer::addPath(const std::string& path) {
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status))
        throw FileError(path, "no such file or folder");
    if (fs::is_regular_file(status)) {
        const std::string text = readTextFile(path, limits::kTrainingText);
        const std::size_t bad = firstInvalidUtf8(text);
        if (bad != std::string::npos)
            throw FileError(path,
                            "not UTF-8 text (invalid byte at offset " + std::to_string(bad) + ")");
        addText(text);
        return;
    }
    if (!fs::is_directory(status))
        throw FileError(path, "neither a file nor a folder");
    std::vector<std::string> files;
    for (fs::recursive_directory_iterator
             it(path, fs::directory_options::skip_permission_denied, ec),
         end;
         !ec && it != end; it.increment(ec)) {
        if (it->is_regular_file(ec))
            files.push_back(it->path().string());
    }
    if (ec)
        throw FileError(path, "cannot list the folder: " + ec.message());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
        const std::string text = readTextFile(file, limits::kTrainingText);
        if (firstInvalidUtf8(text) != std::string::npos || text.find('\0') != std::string::npos) {
            m_impl->summary.skippedFiles.push_back(file);
            continue;
        }
        addText(text);
    }
}

std::string BpeTrainer::train(BpeTrainingSummary* summaryOut) {
    auto& impl = *m_impl;
    const auto start = std::chrono::steady_clock::now();

    // Base alphabet: ids 0..255 are the byte-level characters in code point order.
    std::vector<std::string> tokens;
    std::unordered_map<std::string, std::int32_t> tokenIds;
    std::array<std::int32_t, 256> byteId{};
    for (std::int32_t id = 0; id < 256; ++id) {
        const unsigned char byte = bytelevel::bytesInIdOrder()[static_cast<std::size_t>(id)];
        tokens.push_back(bytelevel::utf8OfByte(byte));
        tokenIds.emplace(tokens.back(), id);
        byteId[byte] = id;
    }

    // Words in byte order, so that nothing depends on hash-table iteration order.
    std::vector<std::pair<std::string, std::uint64_t>> sorted(impl.counts.begin(),
                                                              impl.counts.end());
    std::sort(sorted.begin(), sorted.end());
    struct Word {
        std::vector<std::int32_t> symbols;
        std::int64_t count;
    };
    std::vector<Word> words;
    words.reserve(sorted.size());
    for (const auto& [text, count] : sorted) {
        Word w{{}, static_cast<std::int64_t>(count)};
        for (char ch : text)
            w.symbols.push_back(byteId[static_cast<unsigned char>(ch)]);
        words.push_back(std::move(w));
    }

    std::unordered_map<std::uint64_t, std::int64_t> pairCount;
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> pairWords;
    const auto noteWord = [&](std::uint64_t key, std::uint32_t w) {
        auto& list = pairWords[key];
        if (list.empty() || list.back() != w)
            list.push_back(w);
    };
    for (std::uint32_t w = 0; w < words.size(); ++w) {
        const auto& s = words[w].symbols;
        for (std::size_t i = 0; i + 1 < s.size(); ++i) {
            const auto key = pairKey(s[i], s[i + 1]);
            pairCount[key] += words[w].count;
            noteWord(key, w);
        }
    }
    std::priority_queue<Candidate> heap;
    for (const auto& [key, count] : pairCount)
        heap.push(Candidate{count, key});

    const std::size_t targetMerges = impl.options.vocabSize - 256 - impl.added.size();
    std::vector<std::pair<std::int32_t, std::int32_t>> merges;
    std::unordered_map<std::uint64_t, std::int64_t> delta;
    std::vector<std::int32_t> merged;
    while (tokens.size() - 256 < targetMerges && !heap.empty()) {
        const Candidate top = heap.top();
        heap.pop();
        const auto current = pairCount.find(top.key);
        // Every change of a count pushes a fresh entry, so an entry that disagrees is stale.
        if (current == pairCount.end() || current->second != top.count)
            continue;
        if (top.count < static_cast<std::int64_t>(impl.options.minFrequency))
            break;
        const std::int32_t left = leftOf(top.key);
        const std::int32_t right = rightOf(top.key);
        const std::string joined =
            tokens[static_cast<std::size_t>(left)] + tokens[static_cast<std::size_t>(right)];
        auto [idIt, isNew] = tokenIds.emplace(joined, static_cast<std::int32_t>(tokens.size()));
        if (isNew)
            tokens.push_back(joined);
        const std::int32_t newId = idIt->second;
        merges.emplace_back(left, right);

        std::vector<std::uint32_t> affected = std::move(pairWords[top.key]);
        pairWords.erase(top.key);
        std::sort(affected.begin(), affected.end());
        affected.erase(std::unique(affected.begin(), affected.end()), affected.end());
        delta.clear();
        for (const std::uint32_t w : affected) {
            auto& s = words[w].symbols;
            const std::int64_t count = words[w].count;
            merged.clear();
            bool touched = false;
            for (std::size_t i = 0; i < s.size(); ++i) {
                if (i + 1 < s.size() && s[i] == left && s[i + 1] == right) {
                    merged.push_back(newId);
                    ++i;
                    touched = true;
                } else {
                    merged.push_back(s[i]);
                }
            }
            if (!touched)
                continue;
            for (std::size_t i = 0; i + 1 < s.size(); ++i)
                delta[pairKey(s[i], s[i + 1])] -= count;
            for (std::size_t i = 0; i + 1 < merged.size(); ++i) {
                const auto key = pairKey(merged[i], merged[i + 1]);
                delta[key] += count;
                if (merged[i] == newId || merged[i + 1] == newId)
                    noteWord(key, w);
            }
            s.swap(merged);
        }
        for (const auto& [key, change] : delta) {
            if (change == 0)
                continue;
            auto& count = pairCount[key];
            count += change;
            if (count > 0) {
                heap.push(Candidate{count, key});
            } else {
                pairCount.erase(key);
                pairWords.erase(key);
            }
        }
    }

    BpeTrainingSummary& summary = impl.summary;
    summary.distinctWords = words.size();
    summary.merges = merges.size();
    summary.vocabSize = tokens.size() + impl.added.size();
    summary.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (summaryOut)
        *summaryOut = summary;

    // Written by hand rather than dumped, so that a trained file reads and diffs line by line.
    const nlohmann::ordered_json byteLevel = {{"type", "ByteLevel"},
                                              {"add_prefix_space", false},
                                              {"trim_offsets", false},
                                              {"use_regex", false}};
    std::string out = "{\n  \"version\": \"1.0\",\n  \"truncation\": null,\n  \"padding\": null,\n";
    out += "  \"added_tokens\": [\n";
    for (std::size_t i = 0; i < impl.added.size(); ++i) {
        nlohmann::ordered_json token = {{"id", tokens.size() + i},
                                        {"content", impl.added[i]},
                                        {"single_word", false},
                                        {"lstrip", false},
                                        {"rstrip", false},
                                        {"normalized", false},
                                        {"special", static_cast<bool>(impl.addedSpecial[i])}};
        out += "    " + token.dump() + (i + 1 < impl.added.size() ? ",\n" : "\n");
    }
    out += "  ],\n  \"normalizer\": {\"type\": \"NFC\"},\n";
    nlohmann::ordered_json split = {{"type", "Split"},
                                    {"pattern", {{"Regex", kQwenPretokenizerPattern}}},
                                    {"behavior", "Isolated"},
                                    {"invert", false}};
    nlohmann::ordered_json preTokenizer = {{"type", "Sequence"},
                                           {"pretokenizers", {split, byteLevel}}};
    out += "  \"pre_tokenizer\": " + preTokenizer.dump() + ",\n";
    out += "  \"post_processor\": " + byteLevel.dump() + ",\n";
    out += "  \"decoder\": " + byteLevel.dump() + ",\n";
    out += "  \"model\": {\n    \"type\": \"BPE\",\n    \"dropout\": null,\n"
           "    \"unk_token\": null,\n    \"continuing_subword_prefix\": \"\",\n"
           "    \"end_of_word_suffix\": \"\",\n    \"fuse_unk\": false,\n"
           "    \"byte_fallback\": false,\n    \"ignore_merges\": false,\n    \"vocab\": {\n";
    for (std::size_t id = 0; id < tokens.size(); ++id)
        out += "      " + quotedJson(tokens[id]) + ": " + std::to_string(id) +
               (id + 1 < tokens.size() ? ",\n" : "\n");
    out += "    },\n    \"merges\": [\n";
    for (std::size_t i = 0; i < merges.size(); ++i)
        out += "      [" + quotedJson(tokens[static_cast<std::size_t>(merges[i].first)]) + ", " +
               quotedJson(tokens[static_cast<std::size_t>(merges[i].second)]) + "]" +
               (i + 1 < merges.size() ? ",\n" : "\n");
    out += "    ]\n  }\n}\n";
    return out;
}

} // namespace dice
