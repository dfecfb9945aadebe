// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the tokenizer.json loader. Every input either loads or is rejected with a
// dice::Error; a tokenizer that loads must encode and decode without crashing, give ids inside
// its vocabulary, and give NFC text back exactly unless the file asks for whitespace to be
// stripped or added.
#include "core/common/error.h"
#include "core/common/utf8.h"
#include "core/tokenizer/byte_level.h"
#include "core/tokenizer/tokenizer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// NFC text that touches every part of the pipeline: ASCII words and digits, runs of spaces and
// newlines, contractions, CJK, emoji with joiners, the usual special tokens.
const std::vector<std::string>& probes() {
    static const std::vector<std::string> list = {
        "Hello world, it's 2026!\n\n  x = a_b[3] * 0.5;\t// done",
        "<|im_start|>user\nwrite a kernel<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>",
        "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE3\x81\xA8\xE4\xB8\xAD\xE6\x96\x87 caf\xC3\xA9",
        "\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB \xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD <|MASK|>",
        std::string(70, ' ') + "end" + std::string(9, '\n'),
        "",
    };
    return list;
}

// Whether the file may legitimately change text on its way through: added tokens that strip
// the whitespace beside them, or a ByteLevel step that adds a space in front.
bool changesText(const nlohmann::json& node) {
    if (node.is_object()) {
        for (const char* flag : {"lstrip", "rstrip", "add_prefix_space"}) {
            const auto f = node.find(flag);
            if (f != node.end() && f->is_boolean() && f->get<bool>())
                return true;
        }
    }
    if (node.is_structured()) {
        for (const auto& child : node)
            if (changesText(child))
                return true;
    }
    return false;
}

[[noreturn]] void failure(const char* what, const std::string& text) {
    std::fprintf(stderr, "%s for text of %zu bytes\n", what, text.size());
    std::abort();
}

void exercise(const dice::Tokenizer& tokenizer, const std::string& text, bool exact) {
    const std::vector<std::int64_t> ids = tokenizer.encode(text);
    std::string pieces;
    for (const std::int64_t id : ids) {
        if (id < 0 || id >= tokenizer.vocabSize())
            failure("an id outside the vocabulary", text);
        pieces += tokenizer.tokenText(id);
        tokenizer.tokenString(id);
        tokenizer.isSpecial(id);
    }
    const std::string decoded = tokenizer.decode(ids);
    if (decoded != pieces)
        failure("decode differs from the concatenated token texts", text);
    if (exact && decoded != text)
        failure("decode(encode(text)) differs from the text", text);
    tokenizer.decode(ids, true);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    try {
        const dice::Tokenizer tokenizer = dice::Tokenizer::fromJson(input, "fuzz.json");
        const bool exact = !changesText(nlohmann::json::parse(input));
        for (const auto& probe : probes())
            exercise(tokenizer, probe, exact);
        // The input itself as text, where it is UTF-8: arbitrary text through the pattern.
        if (dice::firstInvalidUtf8(input) == std::string::npos)
            exercise(tokenizer, input.substr(0, 4096), false);
    } catch (const dice::Error&) {
        // Rejected input, or text a pattern's match limit refused: both are errors by design.
    }
    return 0;
}
