// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/error.h"
#include "core/common/utf8.h"
#include "core/tokenizer/byte_level.h"
#include "core/tokenizer/pre_tokenizer.h"
#include "core/tokenizer/tokenizer.h"
#include "core/tokenizer/unicode_nfc.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <atomic>
#include <thread>

using nlohmann::json;
using Ids = std::vector<std::int64_t>;

namespace {

// A small byte-level BPE in the layout of Qwen's tokenizer.json: the 256 byte tokens in GPT-2's
// order, then the merged tokens in merge order, then the added tokens.
struct Vocabulary {
    json vocab = json::object();
    json merges = json::array();
    std::int64_t next = 0;

    Vocabulary() {
        for (unsigned char byte : dice::bytelevel::bytesInIdOrder())
            vocab[dice::bytelevel::utf8OfByte(byte)] = next++;
    }
    std::int64_t id(const std::string& text) const {
        return vocab.at(dice::bytelevel::encodeBytes(text)).get<std::int64_t>();
    }
    void merge(const std::string& left, const std::string& right, bool asString = false) {
        const std::string l = dice::bytelevel::encodeBytes(left);
        const std::string r = dice::bytelevel::encodeBytes(right);
        if (!vocab.contains(l + r))
            vocab[l + r] = next++;
        merges.push_back(asString ? json(l + " " + r) : json::array({l, r}));
    }
};

json addedToken(std::int64_t id, const std::string& content, bool special = true) {
    return {{"id", id},        {"content", content},  {"single_word", false}, {"lstrip", false},
            {"rstrip", false}, {"normalized", false}, {"special", special}};
}

json qwenLayout(const Vocabulary& v, const json& added = json::array()) {
    return {
        {"version", "1.0"},
        {"added_tokens", added},
        {"normalizer", {{"type", "NFC"}}},
        {"pre_tokenizer",
         {{"type", "Sequence"},
          {"pretokenizers",
           {{{"type", "Split"},
             {"pattern", {{"Regex", dice::kQwenPretokenizerPattern}}},
             {"behavior", "Isolated"},
             {"invert", false}},
            {{"type", "ByteLevel"},
             {"add_prefix_space", false},
             {"trim_offsets", false},
             {"use_regex", false}}}}}},
        {"post_processor", {{"type", "ByteLevel"}}},
        {"decoder", {{"type", "ByteLevel"}}},
        {"model",
         {{"type", "BPE"},
          {"dropout", nullptr},
          {"unk_token", nullptr},
          {"continuing_subword_prefix", ""},
          {"end_of_word_suffix", ""},
          {"fuse_unk", false},
          {"byte_fallback", false},
          {"ignore_merges", false},
          {"vocab", v.vocab},
          {"merges", v.merges}}},
    };
}

dice::Tokenizer load(const json& j) {
    return dice::Tokenizer::fromJson(j.dump(), "test-tokenizer.json");
}

std::string loadError(const std::string& text) {
    try {
        dice::Tokenizer::fromJson(text, "broken.json");
    } catch (const dice::FileError& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("wrong exception type: ") + e.what();
    }
    return {};
}

std::vector<std::string> pieces(const dice::RegexSplitter& splitter, const std::string& text) {
    std::vector<std::string_view> views;
    splitter.split(text, views);
    return {views.begin(), views.end()};
}

} // namespace

class TestTokenizer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // GPT-2's bytes_to_unicode: printable bytes stand for themselves, the other 68 take
    // U+0100.. in byte order (space is U+0120 'Ġ', newline U+010A 'Ċ').
    void byteLevelAlphabet() {
        using namespace dice::bytelevel;
        QCOMPARE(charOfByte('!'), U'!');
        QCOMPARE(charOfByte(0x00), U'\u0100');
        QCOMPARE(charOfByte(' '), U'\u0120');
        QCOMPARE(charOfByte('\n'), U'\u010A');
        QCOMPARE(charOfByte(0x7F), U'\u0121');
        QCOMPARE(charOfByte(0xA0), U'\u0142');
        QCOMPARE(charOfByte(0xAD), U'\u0143');
        QCOMPARE(charOfByte(0xE9), U'\u00E9');
        QCOMPARE(utf8OfByte(' '), std::string("\xC4\xA0"));
        QCOMPARE(int(bytesInIdOrder()[0]), int('!'));
        QCOMPARE(int(bytesInIdOrder()[93]), int('~'));
        QCOMPARE(int(bytesInIdOrder()[94]), 0xA1);
        QCOMPARE(int(bytesInIdOrder()[188]), 0x00);
        QCOMPARE(int(bytesInIdOrder()[188 + 32]), int(' '));
        std::string all;
        for (int b = 0; b < 256; ++b)
            all += static_cast<char>(b);
        std::string back;
        QVERIFY(decodeBytes(encodeBytes(all), back));
        QCOMPARE(back, all);
        QVERIFY(!decodeBytes("\xE4\xB8\xAD", back)); // U+4E2D is not a byte-level character
    }

    void utf8Validation() {
        using dice::firstInvalidUtf8;
        QCOMPARE(firstInvalidUtf8("plain ascii"), std::string_view::npos);
        QCOMPARE(firstInvalidUtf8("caf\xC3\xA9 \xF0\x9F\x98\x80"), std::string_view::npos);
        QCOMPARE(firstInvalidUtf8("ab\xC3"), std::size_t(2));           // truncated
        QCOMPARE(firstInvalidUtf8("a\xC0\xAF"), std::size_t(1));        // overlong '/'
        QCOMPARE(firstInvalidUtf8("a\xED\xA0\x80"), std::size_t(1));    // surrogate U+D800
        QCOMPARE(firstInvalidUtf8("\xF4\x90\x80\x80"), std::size_t(0)); // above U+10FFFF
        QCOMPARE(firstInvalidUtf8("x\x80"), std::size_t(1));
    }

    void nfcThroughIcu() {
        const auto& nfc = dice::NfcNormalizer::instance();
        if (!nfc.available())
            QFAIL(("ICU is needed for NFC (Debian: libicu-dev or libicu72): " + nfc.loadError())
                      .c_str());
        QVERIFY(nfc.description().find("ICU") != std::string::npos);
        QCOMPARE(nfc.normalize("e\xCC\x81"), std::string("\xC3\xA9"));             // e + U+0301
        QCOMPARE(nfc.normalize("\xE2\x84\xAB"), std::string("\xC3\x85"));          // U+212B -> Å
        QCOMPARE(nfc.normalize("\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB"),            // jamo H A N
                 std::string("\xED\x95\x9C"));                                     // -> 한
        QCOMPARE(nfc.normalize("a\xCC\x82\xCC\xA3"), std::string("\xE1\xBA\xAD")); // -> ậ
        QCOMPARE(nfc.normalize("\xEF\xA4\x80"), std::string("\xE8\xB1\x88")); // U+F900 -> U+8C48
        QCOMPARE(nfc.normalize("already NFC: \xC3\xA9 \xE4\xB8\xAD"),
                 std::string("already NFC: \xC3\xA9 \xE4\xB8\xAD"));
        QVERIFY(dice::NfcNormalizer::triviallyNfc("ascii and \xC3\xA9\xC3\xBF"));
        QVERIFY(!dice::NfcNormalizer::triviallyNfc("e\xCC\x81"));
    }

    // The Qwen pattern as Hugging Face's Split(Isolated) applies it: digits one by one, a space
    // kept in front of a word, the last space of a run left for the next word (\s+(?!\S)).
    void qwenPatternSplits() {
        const dice::RegexSplitter qwen(dice::kQwenPretokenizerPattern, false, "qwen");
        using L = std::vector<std::string>;
        QCOMPARE(pieces(qwen, "Hello world"), (L{"Hello", " world"}));
        QCOMPARE(pieces(qwen, "x = 2024;"), (L{"x", " =", " ", "2", "0", "2", "4", ";"}));
        QCOMPARE(pieces(qwen, "a   b"), (L{"a", "  ", " b"}));
        QCOMPARE(pieces(qwen, "don't DON'T"), (L{"don", "'t", " DON", "'T"}));
        QCOMPARE(pieces(qwen, "line\n\n  next"), (L{"line", "\n\n", " ", " next"}));
        QCOMPARE(pieces(qwen, "end  "), (L{"end", "  "}));
        QCOMPARE(pieces(qwen, "(x)->y"), (L{"(x", ")->", "y"}));
        QCOMPARE(pieces(qwen, "\xE6\x97\xA5\xE6\x9C\xAC 123"),
                 (L{"\xE6\x97\xA5\xE6\x9C\xAC", " ", "1", "2", "3"}));
        const dice::RegexSplitter gpt2(dice::kGpt2PretokenizerPattern, false, "gpt2");
        QCOMPARE(pieces(gpt2, "x = 2024;"), (L{"x", " =", " 2024", ";"}));
    }

    void regexErrorsNameTheirPlace() {
        try {
            dice::RegexSplitter bad("((", false, "pre_tokenizer.pretokenizers[0]");
            QFAIL("an unbalanced pattern compiled");
        } catch (const dice::Error& e) {
            QVERIFY2(std::string(e.what()).rfind("pre_tokenizer.pretokenizers[0]", 0) == 0,
                     e.what());
        }
    }

    void emptyMatchesAdvance() {
        const dice::RegexSplitter maybe("x*", false, "x*");
        using L = std::vector<std::string>;
        QCOMPARE(pieces(maybe, "abxxc"), (L{"ab", "xx", "c"}));
        QCOMPARE(pieces(maybe, "\xC3\xA9x"), (L{"\xC3\xA9", "x"}));
    }

    void bothMergeFormsAgree() {
        Vocabulary arrays;
        arrays.merge("a", "b");
        arrays.merge("ab", "c");
        arrays.merge(" ", "ab");
        Vocabulary strings;
        strings.merge("a", "b", true);
        strings.merge("ab", "c", true);
        strings.merge(" ", "ab", true);
        const auto x = load(qwenLayout(arrays));
        const auto y = load(qwenLayout(strings));
        const std::string text = "abc abd ab";
        const Ids expected = {arrays.id("abc"), arrays.id(" ab"), arrays.id("d"), arrays.id(" ab")};
        QCOMPARE(x.encode(text), expected);
        QCOMPARE(y.encode(text), expected);
    }

    // The pair with the lowest rank merges first, wherever it is in the word.
    void mergesFollowRank() {
        Vocabulary first;
        first.merge("b", "c");
        first.merge("a", "b");
        QCOMPARE(load(qwenLayout(first)).encode("abc"), (Ids{first.id("a"), first.id("bc")}));
        Vocabulary second;
        second.merge("a", "b");
        second.merge("b", "c");
        QCOMPARE(load(qwenLayout(second)).encode("abc"), (Ids{second.id("ab"), second.id("c")}));
    }

    // Equal pairs merge from the left: "aaa" is "aa" + "a", and "aaaaa" is "aaaa" + "a" once
    // "aa aa" exists.
    void equalPairsMergeLeftFirst() {
        Vocabulary v;
        v.merge("a", "a");
        v.merge("aa", "aa");
        const auto t = load(qwenLayout(v));
        QCOMPARE(t.encode("aaa"), (Ids{v.id("aa"), v.id("a")}));
        QCOMPARE(t.encode("aaaaa"), (Ids{v.id("aaaa"), v.id("a")}));
        QCOMPARE(t.encode("aaaaaa"), (Ids{v.id("aaaa"), v.id("aa")}));
    }

    void addedTokensMatchFirstLongestAndWhole() {
        Vocabulary v;
        v.merge("i", "m");
        const std::int64_t base = v.next;
        const json added =
            json::array({addedToken(base, "<|im"), addedToken(base + 1, "<|im_start|>"),
                         addedToken(base + 2, "<|MASK|>", false)});
        const auto t = load(qwenLayout(v, added));
        QCOMPARE(t.encode("<|im_start|>im<|im"), (Ids{base + 1, v.id("im"), base}));
        // Inside a word and next to each other they are still whole tokens.
        QCOMPARE(t.encode("im<|MASK|><|MASK|>im"),
                 (Ids{v.id("im"), base + 2, base + 2, v.id("im")}));
        // Not a token: the bytes are encoded as text.
        const Ids partial = t.encode("<|MASK|");
        QVERIFY(std::find(partial.begin(), partial.end(), base + 2) == partial.end());
        QCOMPARE(t.decode(partial), std::string("<|MASK|"));
        QCOMPARE(t.tokenId("<|im_start|>"), std::optional<std::int64_t>(base + 1));
        QCOMPARE(t.tokenId(dice::bytelevel::encodeBytes(" ")),
                 std::optional<std::int64_t>(v.id(" ")));
        QCOMPARE(t.tokenId("<|absent|>"), std::nullopt);
        QCOMPARE(t.vocabSize(), base + 3);
        QVERIFY(t.isSpecial(base + 1));
        QVERIFY(!t.isSpecial(base + 2));
        QVERIFY(!t.isSpecial(v.id("im")));
        QCOMPARE(t.tokenString(base), std::string("<|im"));
        QCOMPARE(t.tokenString(v.id(" ")), std::string("\xC4\xA0"));
        QCOMPARE(t.tokenText(v.id(" ")), std::string(" "));
        QCOMPARE(t.tokenString(base + 50), std::string());
        QCOMPARE(t.decode({base + 1, v.id("im"), base + 2}), std::string("<|im_start|>im<|MASK|>"));
        QCOMPARE(t.decode({base + 1, v.id("im"), base + 2}, true), std::string("im<|MASK|>"));
        // Ids beyond the vocabulary (padded embedding rows) decode to nothing.
        QCOMPARE(t.decode({v.id("im"), 151935, -1}), std::string("im"));
    }

    // lstrip, rstrip and single_word as Hugging Face's added vocabulary defines them.
    void addedTokenFlags() {
        Vocabulary v;
        const std::int64_t base = v.next;
        json mask = addedToken(base, "<mask>");
        mask["lstrip"] = true;
        json sep = addedToken(base + 1, "<sep>");
        sep["rstrip"] = true;
        json word = addedToken(base + 2, "cat");
        word["single_word"] = true;
        const auto t = load(qwenLayout(v, json::array({mask, sep, word})));
        QCOMPARE(t.encode("a  <mask>"), (Ids{v.id("a"), base}));
        QCOMPARE(t.encode("<sep> \t b"), (Ids{base + 1, v.id("b")}));
        QCOMPARE(t.encode("cat"), (Ids{base + 2}));
        QCOMPARE(t.encode("a cat."), (Ids{v.id("a"), v.id(" "), base + 2, v.id(".")}));
        const Ids inWord = t.encode("concatenate");
        QVERIFY(std::find(inWord.begin(), inWord.end(), base + 2) == inWord.end());
        QCOMPARE(t.decode(inWord), std::string("concatenate"));
    }

    // Tokens with normalized=true match the NFC form of the text.
    void normalizedAddedTokens() {
        Vocabulary v;
        json token = addedToken(v.next, "caf\xC3\xA9", false);
        token["normalized"] = true;
        const auto t = load(qwenLayout(v, json::array({token})));
        QCOMPARE(t.encode("cafe\xCC\x81!"), (Ids{v.next, v.id("!")}));
        QCOMPARE(t.encode("caf\xC3\xA9"), (Ids{v.next}));
    }

    void nfcBeforeBpe() {
        Vocabulary v;
        const auto t = load(qwenLayout(v));
        // e + combining acute becomes U+00E9 (bytes C3 A9) before byte-level BPE.
        QCOMPARE(t.encode("e\xCC\x81"), (Ids{v.id("\xC3"), v.id("\xA9")}));
        json noNfc = qwenLayout(v);
        noNfc["normalizer"] = nullptr;
        QCOMPARE(load(noNfc).encode("e\xCC\x81"), (Ids{v.id("e"), v.id("\xCC"), v.id("\x81")}));
    }

    void byteLevelWithGpt2Pattern() {
        Vocabulary v;
        v.merge(" ", "1");
        v.merge(" 1", "2");
        json j = qwenLayout(v);
        j["pre_tokenizer"] = {
            {"type", "ByteLevel"}, {"add_prefix_space", true}, {"use_regex", true}};
        const auto t = load(j);
        QCOMPARE(t.encode("12 12"), (Ids{v.id(" 12"), v.id(" 12")}));
    }

    void roundTripsExactly() {
        Vocabulary v;
        v.merge(" ", " ");
        v.merge("t", "h");
        v.merge("th", "e");
        const auto t = load(qwenLayout(v, json::array({addedToken(v.next, "<|endoftext|>")})));
        const std::vector<std::string> texts = {
            "",
            " ",
            "the theme   of\tthe\r\n\n day",
            "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7 family",
            "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE3\x81\xA8\xE4\xB8\xAD\xE6\x96\x87",
            std::string(3000, ' ') + "x" + std::string(100, '\n'),
            "nul\0byte and \x7F<|endoftext|>end",
        };
        for (const auto& text : texts)
            QCOMPARE(t.decode(t.encode(text)), text);
        std::string withNul("a\0b", 3);
        QCOMPARE(t.decode(t.encode(withNul)), withNul);
    }

    void invalidUtf8IsAnError() {
        Vocabulary v;
        const auto t = load(qwenLayout(v));
        QVERIFY_THROWS_EXCEPTION(dice::Error, t.encode("ok \xFF no"));
        try {
            t.encode("ok \xFF no");
        } catch (const dice::Error& e) {
            QVERIFY2(std::string(e.what()).find("byte 3") != std::string::npos, e.what());
        }
    }

    void concurrentEncodes() {
        Vocabulary v;
        v.merge("a", "b");
        v.merge("ab", "ab");
        const auto t = load(qwenLayout(v));
        std::vector<std::string> texts;
        for (int i = 0; i < 200; ++i)
            texts.push_back("ab" + std::to_string(i) + " abab ab" + std::string(i % 7, 'b') + "ab");
        std::vector<Ids> expected;
        for (const auto& s : texts)
            expected.push_back(t.encode(s));
        std::atomic<int> wrong{0};
        std::vector<std::thread> threads;
        for (int k = 0; k < 4; ++k)
            threads.emplace_back([&, k] {
                for (int round = 0; round < 50; ++round)
                    for (std::size_t i = 0; i < texts.size(); ++i) {
                        const std::size_t j = (i * 7 + k + round) % texts.size();
                        if (t.encode(texts[j]) != expected[j] || t.decode(expected[j]) != texts[j])
                            ++wrong;
                    }
            });
        for (auto& th : threads)
            th.join();
        QCOMPARE(wrong.load(), 0);
    }

    void rejectsBadFiles_data() {
        QTest::addColumn<QString>("mutation");
        QTest::addColumn<QString>("message");
        QTest::newRow("not json") << "!not json"
                                  << "not valid JSON";
        QTest::newRow("not object") << "[1,2]"
                                    << "top level is not a JSON object";
        QTest::newRow("no model") << "-model"
                                  << "\"model\" is missing";
        QTest::newRow("wordpiece") << "model.type=\"WordPiece\""
                                   << "only byte-level \"BPE\"";
        QTest::newRow("dropout") << "model.dropout=0.1"
                                 << "model.dropout must be null";
        QTest::newRow("suffix") << "model.end_of_word_suffix=\"</w>\""
                                << "model.end_of_word_suffix must be empty";
        QTest::newRow("no vocab") << "model.vocab=[]"
                                  << "model.vocab is missing or not an object";
        QTest::newRow("id string") << "model.vocab.x=\"1\""
                                   << "is not an integer id";
        QTest::newRow("id huge") << "model.vocab.x=4000000000"
                                 << "out of range";
        QTest::newRow("id negative") << "model.vocab.x=-1"
                                     << "out of range";
        QTest::newRow("id twice") << "model.vocab.x=5"
                                  << "id 5 is given to both";
        QTest::newRow("byte missing") << "-model.vocab.!"
                                      << "lacks the byte-level token \"!\"";
        QTest::newRow("merge three") << "model.merges+\"a b c\""
                                     << "is not two tokens";
        QTest::newRow("merge one") << "model.merges+\"ab\""
                                   << "is not two tokens";
        QTest::newRow("merge shape") << "model.merges+[\"a\"]"
                                     << "neither \"a b\" nor";
        QTest::newRow("merge unknown") << "model.merges+[\"a\",\"zz\"]"
                                       << "\"zz\" is not in the vocabulary";
        QTest::newRow("merged unknown") << "model.merges+[\"x\",\"y\"]"
                                        << "the merged token \"xy\" is not in the vocabulary";
        QTest::newRow("added id") << "added_tokens+{\"content\":\"<a>\"}"
                                  << ".id is missing";
        QTest::newRow("added empty") << "added_tokens+{\"id\":900,\"content\":\"\"}"
                                     << ".content is missing or empty";
        QTest::newRow("added twice") << "added_tokens+{\"id\":900,\"content\":\"<s>\"}"
                                     << "\"<s>\" is listed twice";
        QTest::newRow("added clash") << "added_tokens+{\"id\":3,\"content\":\"<x>\"}"
                                     << "id 3 already belongs to the vocabulary token";
        QTest::newRow("added flag") << "added_tokens+{\"id\":901,\"content\":\"<y>\",\"lstrip\":1}"
                                    << ".lstrip must be true or false";
        QTest::newRow("nfkc") << "normalizer={\"type\":\"NFKC\"}"
                              << "\"NFKC\" is not supported";
        QTest::newRow("no pre") << "pre_tokenizer=null"
                                << "pre_tokenizer is missing";
        QTest::newRow("whitespace") << "pre_tokenizer={\"type\":\"Whitespace\"}"
                                    << "\"Whitespace\" is not supported";
        QTest::newRow("removed") << "pre_tokenizer.pretokenizers.0.behavior=\"Removed\""
                                 << "pretokenizers[0].behavior must be \"Isolated\"";
        QTest::newRow("invert") << "pre_tokenizer.pretokenizers.0.invert=true"
                                << "pretokenizers[0].invert must be false";
        QTest::newRow("bad regex") << "pre_tokenizer.pretokenizers.0.pattern={\"Regex\":\"((\"}"
                                   << "pretokenizers[0]: the pattern does not compile";
        QTest::newRow("byte level first")
            << "pre_tokenizer.pretokenizers=[{\"type\":\"ByteLevel\"},{\"type\":\"Split\"}]"
            << "ByteLevel must be the last pre-tokenizer step";
        QTest::newRow("no decoder") << "-decoder"
                                    << "decoder is missing";
        QTest::newRow("wordpiece decoder") << "decoder={\"type\":\"WordPiece\"}"
                                           << "decoder: \"WordPiece\" is not supported";
    }

    // Each bad file is rejected with a dice::FileError that names the file and the field.
    void rejectsBadFiles() {
        QFETCH(QString, mutation);
        QFETCH(QString, message);
        Vocabulary v;
        v.merge("a", "b");
        const json base = qwenLayout(v, json::array({addedToken(v.next, "<s>")}));
        std::string text;
        const std::string m = mutation.toStdString();
        if (m[0] == '!' || m[0] == '[') {
            text = m[0] == '!' ? m.substr(1) : m;
        } else {
            json j = base;
            const bool remove = m[0] == '-';
            const auto eq = m.find('=');
            const auto plus = m.find('+');
            const std::size_t split = remove ? m.size() : std::min(eq, plus);
            const std::string where = m.substr(remove ? 1 : 0, split - (remove ? 1 : 0));
            std::vector<std::string> path;
            for (std::size_t s = 0, e; s <= where.size(); s = e + 1) {
                e = where.find('.', s);
                if (e == std::string::npos)
                    e = where.size();
                path.push_back(where.substr(s, e - s));
            }
            json* node = &j;
            for (std::size_t i = 0; i + 1 < path.size(); ++i)
                node = node->is_array() ? &(*node)[std::stoul(path[i])] : &(*node)[path[i]];
            const std::string& last = path.back();
            if (remove) {
                node->erase(last);
            } else if (split == plus) {
                (*node)[last].push_back(json::parse(m.substr(plus + 1)));
            } else if (node->is_array()) {
                (*node)[std::stoul(last)] = json::parse(m.substr(eq + 1));
            } else {
                (*node)[last] = json::parse(m.substr(eq + 1));
            }
            text = j.dump();
        }
        const std::string error = loadError(text);
        QVERIFY2(!error.empty(), ("accepted: " + m).c_str());
        QVERIFY2(error.rfind("broken.json: ", 0) == 0, error.c_str());
        QVERIFY2(error.find(message.toStdString()) != std::string::npos, error.c_str());
    }

    void loadNamesAMissingFile() {
        try {
            dice::Tokenizer::load("/nonexistent/tokenizer.json");
            QFAIL("loaded a missing file");
        } catch (const dice::FileError& e) {
            QCOMPARE(e.path(), std::string("/nonexistent/tokenizer.json"));
        }
    }
};

QTEST_GUILESS_MAIN(TestTokenizer)
#include "tst_tokenizer.moc"
