// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/selftest/tokenizer_checks.h"

#include "core/common/error.h"
#include "core/tokenizer/bpe_trainer.h"
#include "core/tokenizer/pre_tokenizer.h"
#include "core/tokenizer/tokenizer.h"
#include "core/tokenizer/unicode_nfc.h"

namespace dice {

namespace {

void checkTokenizer(CheckResult& result) {
    const auto& nfc = NfcNormalizer::instance();
    if (!nfc.available())
        throw Error("NFC normalisation is unavailable: " + nfc.loadError());
    // Canonical compositions from the Unicode tables: e + U+0301, Hangul jamo, U+212B.
    const struct {
        const char* input;
        const char* nfc;
    } cases[] = {{"e\xCC\x81", "\xC3\xA9"},
                 {"\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB", "\xED\x95\x9C"},
                 {"\xE2\x84\xAB", "\xC3\x85"}};
    for (const auto& c : cases)
        if (nfc.normalize(c.input) != c.nfc)
            throw Error(nfc.description() + " gave a wrong NFC form");

    const RegexSplitter qwen(kQwenPretokenizerPattern, false, "Qwen pre-tokenizer");
    std::string corpus;
    for (int i = 0; i < 40; ++i)
        corpus += "__global__ void kernel_" + std::to_string(i) +
                  "(const float* x, float* y) { y[threadIdx.x] = x[threadIdx.x]; }\n";
    BpeTrainer trainer({400, 2, {}});
    trainer.addText(corpus);
    const Tokenizer tokenizer = Tokenizer::fromJson(trainer.train(), "self-test tokenizer");
    const std::string texts[] = {corpus,
                                 "<|im_start|>user\n\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E "
                                 "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD<|MASK|>",
                                 "  \t\n\n x = 12345;   "};
    std::size_t tokens = 0;
    for (const auto& text : texts) {
        const auto ids = tokenizer.encode(text);
        tokens += ids.size();
        if (tokenizer.decode(ids) != text)
            throw Error("a trained tokenizer did not give its text back");
    }
    if (tokenizer.encode(corpus).size() * 2 > corpus.size())
        throw Error("the trained merges did not shorten their own corpus");
    result.data = {{"icu", nfc.description()}, {"pcre2_jit", qwen.jit()}, {"tokens", tokens}};
    result.message = nfc.description() + ", PCRE2 JIT " + (qwen.jit() ? "on" : "off") +
                     "; a 400-token BPE trained here round-trips its texts";
}

} // namespace

void addTokenizerChecks(std::vector<SelfTestCheck>& checks) {
    checks.push_back({"cpu.tokenizer", "cpu",
                      "ICU NFC at run time, PCRE2 pre-tokenizer, BPE training and round trip",
                      checkTokenizer});
}

} // namespace dice
