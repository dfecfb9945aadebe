// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dice {

class Tokenizer;

// One training sequence: the chat-templated prompt followed by the answer and <|im_end|>. Only the
// answer is ever masked or scored.
struct SftSequence {
    std::vector<std::int64_t> ids;
    std::int64_t promptLength = 0;
    std::string id; // the corpus example it came from
};

struct SftDataOptions {
    std::vector<std::string> splits = {"train"}; // corpus splits to keep
    std::vector<std::string> kinds = {"generate", "infill"};
    std::int64_t maxLength = 1024; // longer sequences are left out (and counted)
};

struct SftData {
    std::vector<SftSequence> sequences;
    std::size_t examples = 0; // lines read
    std::size_t tooLong = 0;  // left out for length
    std::size_t filtered = 0; // left out by split or kind
    std::int64_t answerTokens = 0;
};

// Reads corpus.jsonl (docs/corpus-format.md) and tokenises the examples as the model sees them
// (Qwen3 chat template, generation prompt, no thinking block). Throws dice::FileError naming the
// line that is not an example.
SftData loadSftData(const std::string& corpusPath, const Tokenizer& tokenizer,
                    const SftDataOptions& options);

// The token ids of a prompt as the model is asked it (for training and for generation alike).
std::vector<std::int64_t> chatPromptIds(const Tokenizer& tokenizer, const std::string& prompt);

} // namespace dice
