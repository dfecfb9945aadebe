// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace dice {

struct BpeTrainerOptions {
    // The whole vocabulary: the 256 byte tokens, the merged tokens and the added tokens.
    std::size_t vocabSize = 0;
    // Pairs seen fewer times than this are never merged.
    std::uint64_t minFrequency = 2;
    // Added after the workbench's own (<|endoftext|>, <|im_start|>, <|im_end|>, <|MASK|>); marked
    // special.
    std::vector<std::string> specialTokens;
};

struct BpeTrainingSummary {
    std::uint64_t bytes = 0;         // text read
    std::uint64_t words = 0;         // pre-tokenized words counted
    std::uint64_t distinctWords = 0; // different words
    std::size_t merges = 0;
    std::size_t vocabSize = 0;             // smaller than asked when the corpus ran out of pairs
    double seconds = 0;                    // merging only
    std::vector<std::string> skippedFiles; // files of a folder that are not UTF-8 text
};

// Byte-level BPE training with Qwen's pre-tokenizer: text is split on the added tokens,
// NFC-normalised and split with Qwen's pattern; each word starts as its bytes (GPT-2's byte
// alphabet, ids 0..255 in code point order); the most frequent adjacent pair is merged until the
// vocabulary is full. Ties go to the pair with the smaller ids (left, then right), so a corpus
// always gives the same tokenizer. Pair counts are updated incrementally, only in the words a
// merge touches.
class BpeTrainer {
public:
    // Throws dice::Error when the options are impossible (vocabulary too small, a special token
    // empty or repeated) or when NFC normalisation (ICU) is not available.
    explicit BpeTrainer(BpeTrainerOptions options);
    ~BpeTrainer();
    BpeTrainer(const BpeTrainer&) = delete;
    BpeTrainer& operator=(const BpeTrainer&) = delete;

    // Counts the words of a text. Throws dice::Error when it is not valid UTF-8.
    void addText(std::string_view text);
    // A file (must be UTF-8 text) or a folder (its files, recursively, in name order; files that
    // are not UTF-8 text are skipped and listed in the summary). Throws dice::FileError.
    void addPath(const std::string& path);

    // Trains and returns a tokenizer.json (Hugging Face format, merges as ["a", "b"] pairs).
    std::string train(BpeTrainingSummary* summary = nullptr);

    // The added tokens every trained tokenizer has, in id order after the BPE vocabulary.
    static const std::vector<std::string>& workbenchTokens();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace dice
