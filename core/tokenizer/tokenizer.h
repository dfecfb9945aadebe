// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dice {

// A byte-level BPE tokenizer read from a Hugging Face tokenizer.json (Qwen2/Qwen3 and the
// workbench's own trained tokenizers). Encoding gives exactly the ids of the reference
// implementation; decode(encode(text)) == text for any UTF-8 text in NFC (a tokenizer with an NFC
// normalizer, like Qwen's, gives back the NFC form of other text). Thread-safe for concurrent
// encode and decode calls.
class Tokenizer {
public:
    // Throws dice::FileError naming the file and what is wrong with it.
    static Tokenizer load(const std::string& path);
    static Tokenizer fromJson(const std::string& json, const std::string& origin);

    Tokenizer(Tokenizer&&) noexcept;
    Tokenizer& operator=(Tokenizer&&) noexcept;
    ~Tokenizer();

    // Added and special tokens in the text are matched first and become their ids.
    std::vector<std::int64_t> encode(std::string_view text) const;
    // Exact bytes back; skipSpecial drops special added tokens (as skip_special_tokens does).
    std::string decode(const std::vector<std::int64_t>& ids, bool skipSpecial = false) const;

    // Id of a vocabulary or added token given as its string ("<|im_end|>", "<|MASK|>").
    std::optional<std::int64_t> tokenId(std::string_view token) const;
    // The token's string as stored in the vocabulary (byte-level form), empty for unknown ids.
    std::string tokenString(std::int64_t id) const;
    // The bytes one token decodes to (for drawing single tokens in the live view).
    std::string tokenText(std::int64_t id) const;
    bool isSpecial(std::int64_t id) const;
    // One more than the largest id of the vocabulary and the added tokens.
    std::int64_t vocabSize() const;

private:
    struct Impl;
    explicit Tokenizer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace dice
