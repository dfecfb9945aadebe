// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/tokenizer/bpe_trainer.h"
#include "core/tokenizer/byte_level.h"
#include "core/tokenizer/tokenizer.h"
#include "core/tokenizer/unicode_nfc.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using nlohmann::json;
using Ids = std::vector<std::int64_t>;

namespace {

std::string repeat(const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i)
        out += s;
    return out;
}

// 1 x "hello", 49 x " hello", 30 x " help", 10 x " world" after Qwen's pre-tokenizer.
std::string helloCorpus() {
    return "hello" + repeat(" hello", 49) + repeat(" help", 30) + repeat(" world", 10);
}

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (;;) {
        const auto nl = text.find('\n', start);
        lines.push_back(
            text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
        if (nl == std::string::npos)
            return lines;
        start = nl + 1;
    }
}

std::string byteLevel(const std::string& text) {
    return dice::bytelevel::encodeBytes(text);
}

} // namespace

class TestTokenizerTrainer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Worked by hand from the counts: (h,e) and (e,l) both occur 80 times and the tie goes to the
    // smaller left id ('e' < 'h'); then "hel" (80), " hel" (79), "lo" (50), " hello" (49),
    // " help" (30); the five pairs of " world" (10 each) follow in id order, starting with "ld".
    void mostFrequentPairsMergeFirst() {
        dice::BpeTrainer trainer({400, 2, {}});
        trainer.addText(helloCorpus());
        dice::BpeTrainingSummary summary;
        const json j = json::parse(trainer.train(&summary));
        const json& merges = j["model"]["merges"];
        const std::vector<std::pair<std::string, std::string>> expected = {
            {"e", "l"}, {"h", "el"}, {" ", "hel"}, {"l", "o"},   {" hel", "lo"}, {" hel", "p"},
            {"l", "d"}, {"o", "r"},  {"w", "or"},  {" ", "wor"}, {" wor", "ld"}};
        QCOMPARE(merges.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(merges[i][0].get<std::string>(), byteLevel(expected[i].first));
            QCOMPARE(merges[i][1].get<std::string>(), byteLevel(expected[i].second));
        }
        // "hel" + "lo" occurs once: below the minimum frequency of 2.
        QCOMPARE(summary.merges, std::size_t(11));
        QCOMPARE(summary.vocabSize, std::size_t(256 + 11 + 4));
        QCOMPARE(summary.words, std::uint64_t(90));
        QCOMPARE(summary.distinctWords, std::uint64_t(4));

        const auto t = dice::Tokenizer::fromJson(j.dump(), "trained.json");
        QCOMPARE(t.vocabSize(), std::int64_t(271));
        QCOMPARE(t.encode(" hello world"),
                 (Ids{*t.tokenId(byteLevel(" hello")), *t.tokenId(byteLevel(" world"))}));
        QCOMPARE(t.encode("hello"), (Ids{*t.tokenId("hel"), *t.tokenId("lo")}));
        // Ids 0..255 are the byte tokens in GPT-2's order: '!' is 0 and ' ' is 220, as in Qwen.
        QCOMPARE(t.tokenId("!"), std::optional<std::int64_t>(0));
        QCOMPARE(t.tokenId(byteLevel(" ")), std::optional<std::int64_t>(220));
    }

    void stopsAtTheVocabularySize() {
        dice::BpeTrainer trainer({256 + 4 + 3, 2, {}});
        trainer.addText(helloCorpus());
        dice::BpeTrainingSummary summary;
        const json j = json::parse(trainer.train(&summary));
        QCOMPARE(j["model"]["merges"].size(), std::size_t(3));
        QCOMPARE(j["model"]["vocab"].size(), std::size_t(259));
        QCOMPARE(j["added_tokens"].size(), std::size_t(4));
        QCOMPARE(j["added_tokens"][0]["id"].get<int>(), 259);
    }

    void addedTokensAreNeverLearned() {
        dice::BpeTrainer trainer({600, 2, {"<tool>"}});
        trainer.addText(repeat("<|im_start|>user\nhi there<|im_end|>\n<tool><|MASK|>", 100));
        const std::string out = trainer.train();
        const json j = json::parse(out);
        for (const auto& [token, id] : j["model"]["vocab"].items())
            QVERIFY2(token.find("<|") == std::string::npos &&
                         token.find("ool>") == std::string::npos,
                     token.c_str());
        const auto t = dice::Tokenizer::fromJson(out, "trained.json");
        QCOMPARE(t.vocabSize(), std::int64_t(j["model"]["vocab"].size() + 5));
        const std::int64_t first = t.vocabSize() - 5;
        QCOMPARE(t.tokenId("<|endoftext|>"), std::optional<std::int64_t>(first));
        QCOMPARE(t.tokenId("<|im_start|>"), std::optional<std::int64_t>(first + 1));
        QCOMPARE(t.tokenId("<|im_end|>"), std::optional<std::int64_t>(first + 2));
        QCOMPARE(t.tokenId("<|MASK|>"), std::optional<std::int64_t>(first + 3));
        QCOMPARE(t.tokenId("<tool>"), std::optional<std::int64_t>(first + 4));
        QVERIFY(t.isSpecial(first + 1));
        QVERIFY(!t.isSpecial(first + 3));
        QVERIFY(t.isSpecial(first + 4));
        const Ids ids = t.encode("<|im_start|>user\nhi<|MASK|>");
        QCOMPARE(ids.front(), first + 1);
        QCOMPARE(ids.back(), first + 3);
    }

    // A real corpus (the repository's own documentation and core sources): training is
    // deterministic and the result round-trips any text, including text it never saw.
    void trainsOnRealTextAndRoundTrips() {
        const auto train = [] {
            dice::BpeTrainer trainer({1200, 2, {}});
            trainer.addPath(std::string(DICE_SOURCE_DIR) + "/docs");
            trainer.addPath(std::string(DICE_SOURCE_DIR) + "/core");
            dice::BpeTrainingSummary summary;
            std::string out = trainer.train(&summary);
            return std::make_pair(out, summary);
        };
        const auto [first, summary] = train();
        QVERIFY(summary.bytes > 100000);
        QCOMPARE(summary.vocabSize, std::size_t(1200));
        QCOMPARE(train().first, first);
        const auto t = dice::Tokenizer::fromJson(first, "trained.json");
        const std::string docs =
            dice::readTextFile(std::string(DICE_SOURCE_DIR) + "/docs/native-dialect.md");
        const Ids ids = t.encode(docs);
        QCOMPARE(t.decode(ids), docs);
        QVERIFY2(ids.size() * 2 < docs.size(), "merges should shorten the training text");
        const auto& nfc = dice::NfcNormalizer::instance();
        for (const std::string text :
             {"\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E \xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD",
              "  \t\n\n x = 12345;", "<|endoftext|>tail", "caf\xC3\xA9 \xE1\x84\x92\xE1\x85\xA1"})
            QCOMPARE(t.decode(t.encode(text)), nfc.normalize(text));
        QCOMPARE(t.decode(t.encode("caf\xC3\xA9 <|im_end|>")),
                 std::string("caf\xC3\xA9 <|im_end|>"));
    }

    void rejectsImpossibleOptions() {
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::BpeTrainer({259, 2, {}}));
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::BpeTrainer({600, 2, {"<|MASK|>"}}));
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::BpeTrainer({600, 2, {""}}));
        dice::BpeTrainer trainer({600, 2, {}});
        QVERIFY_THROWS_EXCEPTION(dice::Error, trainer.addText("bad \xC3"));
        QVERIFY_THROWS_EXCEPTION(dice::FileError, trainer.addPath("/nonexistent/corpus"));
    }

    void foldersSkipFilesThatAreNotText() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string root = dir.path().toStdString();
        std::filesystem::create_directories(root + "/sub");
        std::ofstream(root + "/a.txt") << repeat("alpha beta ", 50);
        std::ofstream(root + "/sub/b.txt") << repeat("gamma ", 50);
        std::ofstream(root + "/blob.bin", std::ios::binary) << std::string("\x00\xFF\x10", 3);
        dice::BpeTrainer trainer({400, 2, {}});
        trainer.addPath(root);
        dice::BpeTrainingSummary summary;
        trainer.train(&summary);
        QCOMPARE(summary.skippedFiles.size(), std::size_t(1));
        QVERIFY(summary.skippedFiles[0].find("blob.bin") != std::string::npos);
        QCOMPARE(summary.words, std::uint64_t(152));
        QVERIFY_THROWS_EXCEPTION(dice::FileError, trainer.addPath(root + "/blob.bin"));
    }

    // The committed tokenizer (trained by `dice tokenizer train`) against Hugging Face
    // `tokenizers`, whose ids scripts/check_tokenizer_hf.py writes on a machine that has it.
    void matchesHuggingFaceTokenizers() {
        const std::string dir = std::string(DICE_TEST_FIXTURES) + "/tokenizer-train";
        const std::string hfFile = dir + "/hf_ids.json";
        if (!std::filesystem::exists(hfFile))
            QSKIP("tests/fixtures/tokenizer-train/hf_ids.json has not been produced yet: run "
                  "'python3 scripts/check_tokenizer_hf.py tests/fixtures/tokenizer-train/"
                  "tokenizer.json tests/fixtures/tokenizer-train/text.txt "
                  "tests/fixtures/tokenizer-train/hf_ids.json' where Hugging Face tokenizers is "
                  "installed");
        const auto t = dice::Tokenizer::load(dir + "/tokenizer.json");
        const auto lines = splitLines(dice::readTextFile(dir + "/text.txt"));
        const json hf = json::parse(dice::readTextFile(hfFile));
        QCOMPARE(hf["ids"].size(), lines.size());
        std::size_t differing = 0;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const Ids ours = t.encode(lines[i]);
            const Ids theirs = hf["ids"][i].get<Ids>();
            if (ours != theirs && ++differing <= 5)
                qWarning("line %zu differs: %s", i + 1, lines[i].c_str());
            if (hf.contains("decoded"))
                QCOMPARE(t.decode(theirs), hf["decoded"][i].get<std::string>());
        }
        QCOMPARE(differing, std::size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestTokenizerTrainer)
#include "tst_tokenizer_trainer.moc"
