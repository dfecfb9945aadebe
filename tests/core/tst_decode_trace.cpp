// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/error.h"
#include "core/diffusion/decode_trace.h"

#include <QtTest>

namespace {

dice::DecodeStep denoise(int block, int step, int global, std::int64_t start,
                         std::vector<std::int64_t> positions, std::vector<std::int64_t> tokens,
                         std::int64_t passes, double ms) {
    dice::DecodeStep s;
    s.kind = dice::DecodeStep::Kind::Denoise;
    s.block = block;
    s.step = step;
    s.globalStep = global;
    s.blockStart = start;
    s.blockLength = 4;
    s.positions = std::move(positions);
    s.tokens = std::move(tokens);
    s.confidences.assign(s.positions.size(), 0.5f + 0.1f * static_cast<float>(global));
    s.forwardPasses = passes;
    s.elapsedMs = ms;
    return s;
}

dice::DecodeTrace sample() {
    dice::DecodeTrace t;
    dice::DecodeStep prefill;
    prefill.kind = dice::DecodeStep::Kind::Prefill;
    prefill.forwardPasses = 1;
    t.append(prefill);
    // The answer starts two cells into its first block (blockStart -2).
    t.append(denoise(0, 0, 1, -2, {1}, {11}, 2, 1.0));
    t.append(denoise(0, 1, 2, -2, {0}, {10}, 3, 2.0));
    dice::DecodeStep commit;
    commit.kind = dice::DecodeStep::Kind::Commit;
    commit.blockStart = -2;
    commit.blockLength = 4;
    commit.forwardPasses = 4;
    commit.elapsedMs = 2.5;
    t.append(commit);
    t.append(denoise(1, 0, 3, 2, {4, 2, 3}, {14, 12, 13}, 5, 3.0));
    t.append(denoise(1, 1, 4, 2, {5}, {15}, 6, 4.0));
    dice::DecodeStep other = denoise(0, 0, 1, 0, {0}, {99}, 1, 0.1);
    other.sequence = 7; // another sequence of the batch: ignored
    t.append(other);
    dice::DecodeStep done;
    done.kind = dice::DecodeStep::Kind::Finished;
    done.forwardPasses = 6;
    done.elapsedMs = 4.5;
    t.append(done);
    return t;
}

} // namespace

class TestDecodeTrace : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void replaysCells() {
        const auto t = sample();
        QCOMPARE(t.stepCount(), 4);
        QCOMPARE(t.length(), std::int64_t(6));
        QVERIFY(t.finished());
        auto cells = t.cellsAfter(0);
        QCOMPARE(cells.size(), size_t(6));
        for (const auto& c : cells)
            QVERIFY(!c.committed);
        cells = t.cellsAfter(2);
        QVERIFY(cells[0].committed && cells[1].committed && !cells[2].committed);
        QCOMPARE(cells[0].token, std::int64_t(10));
        QCOMPARE(cells[0].globalStep, 2);
        QCOMPARE(cells[1].globalStep, 1);
        cells = t.cellsAfter(99);
        for (int i = 0; i < 6; ++i)
            QCOMPARE(cells[i].token, std::int64_t(10 + i));
        QCOMPARE(cells[3].globalStep, 3);
        QCOMPARE(t.activeBlockAfter(3), (std::pair<std::int64_t, int>(2, 4)));
        QCOMPARE(t.forwardPasses(), std::int64_t(6));
        QCOMPARE(t.timeToFirstBlockMs(), 2.5);
    }

    void figuresPerStep() {
        const auto f = sample().figures();
        QCOMPARE(f.size(), size_t(4));
        QCOMPARE(f[2].committed, 3);
        QCOMPARE(f[2].tokensSoFar, std::int64_t(5));
        QCOMPARE(f[2].forwardPasses, std::int64_t(5));
        QVERIFY(std::abs(f[2].meanConfidence - 0.8) < 1e-6);
    }

    void jsonLinesRoundTrip() {
        const auto t = sample();
        const auto back = dice::DecodeTrace::fromJsonLines(t.toJsonLines());
        QCOMPARE(back.stepCount(), t.stepCount());
        QCOMPARE(back.toJsonLines(), t.toJsonLines());
        const auto a = t.cellsAfter(3);
        const auto b = back.cellsAfter(3);
        for (size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(a[i].token, b[i].token);
            QCOMPARE(a[i].globalStep, b[i].globalStep);
        }
    }

    void rejectsBadLines_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("expected");
        QTest::newRow("json") << "{nope"
                              << "trace line 2: not JSON";
        QTest::newRow("kind") << R"({"kind":"dream"})"
                              << "trace line 2: unknown step kind";
        QTest::newRow("lengths")
            << R"({"kind":"denoise","positions":[1],"tokens":[],"confidences":[]})"
            << "differ in length";
        QTest::newRow("negative")
            << R"({"kind":"denoise","positions":[-4],"tokens":[1],"confidences":[1]})"
            << "out of range";
        QTest::newRow("type") << R"({"kind":"denoise","positions":"x"})"
                              << "malformed step";
    }

    void rejectsBadLines() {
        QFETCH(QString, line);
        QFETCH(QString, expected);
        const std::string text = R"({"kind":"prefill"})"
                                 "\n" +
                                 line.toStdString() + "\n";
        try {
            dice::DecodeTrace::fromJsonLines(text);
            QFAIL("accepted a bad trace");
        } catch (const dice::Error& e) {
            QVERIFY2(std::string(e.what()).find(expected.toStdString()) != std::string::npos,
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestDecodeTrace)
#include "tst_decode_trace.moc"
