// SPDX-License-Identifier: GPL-3.0-or-later
// The line diff against GNU diff: on real candidate files its edit scripts rebuild both texts and
// are as short as `diff --minimal`'s.
#include "core/common/child_process.h"
#include "core/common/file_util.h"
#include "core/infill/text_diff.h"

#include <QtTest>

#include <sstream>
#include <string>
#include <vector>

using namespace dice;

namespace {

// Lines removed and added by `diff --minimal` (the shortest edit script's length).
int gnuDiffEdits(const std::string& a, const std::string& b) {
    const auto run = runChild({{"diff", "--minimal", "-U0", a, b}});
    int edits = 0;
    std::istringstream lines(run.out);
    for (std::string line; std::getline(lines, line);)
        if ((line.rfind("-", 0) == 0 && line.rfind("---", 0) != 0) ||
            (line.rfind("+", 0) == 0 && line.rfind("+++", 0) != 0))
            ++edits;
    return edits;
}

} // namespace

class TestTextDiff : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void scriptsRebuildBothTextsAndAreShortest_data() {
        QTest::addColumn<QString>("before");
        QTest::addColumn<QString>("after");
        const QString solutions = DICE_SOURCE_DIR "/resources/solutions/";
        QTest::newRow("relu/gelu") << solutions + "relu.dice" << solutions + "gelu.dice";
        QTest::newRow("matmul/rect") << solutions + "matmul.dice" << solutions + "matmul_rect.dice";
        QTest::newRow("softmax/log")
            << solutions + "softmax.dice" << solutions + "log_softmax.dice";
        QTest::newRow("add/transformer")
            << solutions + "add.dice" << solutions + "transformer_block.dice";
        QTest::newRow("same") << solutions + "bmm.dice" << solutions + "bmm.dice";
    }

    void scriptsRebuildBothTextsAndAreShortest() {
        QFETCH(QString, before);
        QFETCH(QString, after);
        const std::string textA = readTextFile(before.toStdString());
        const std::string textB = readTextFile(after.toStdString());
        const auto script = diffLines(textA, textB);
        std::vector<std::string> rebuiltA;
        std::vector<std::string> rebuiltB;
        int edits = 0;
        for (const auto& line : script) {
            if (line.kind != DiffLine::Kind::Added) {
                QCOMPARE(line.oldLine, static_cast<int>(rebuiltA.size()) + 1);
                rebuiltA.push_back(line.text);
            }
            if (line.kind != DiffLine::Kind::Removed) {
                QCOMPARE(line.newLine, static_cast<int>(rebuiltB.size()) + 1);
                rebuiltB.push_back(line.text);
            }
            edits += line.kind == DiffLine::Kind::Same ? 0 : 1;
        }
        const auto join = [](const std::vector<std::string>& lines) {
            std::string text;
            for (const auto& l : lines)
                text += l + "\n";
            return text;
        };
        QCOMPARE(join(rebuiltA), textA);
        QCOMPARE(join(rebuiltB), textB);
        QCOMPARE(edits, gnuDiffEdits(before.toStdString(), after.toStdString()));
    }

    // Past the edit bound the differing middle is replaced whole; the shared ends stay shared.
    void boundedEditsReplaceTheMiddle() {
        const std::string a = "head\nx1\ny1\nx2\ntail\n";
        const std::string b = "head\ny1\nx9\ntail\n";
        const auto exact = diffLines(a, b);
        int edits = 0;
        for (const auto& line : exact)
            edits += line.kind == DiffLine::Kind::Same ? 0 : 1;
        QCOMPARE(edits, 3);
        const auto bounded = diffLines(a, b, 1);
        QCOMPARE(bounded.size(), std::size_t(7));
        QVERIFY(bounded.front().kind == DiffLine::Kind::Same && bounded.front().text == "head");
        QVERIFY(bounded[1].kind == DiffLine::Kind::Removed && bounded[1].text == "x1");
        QVERIFY(bounded[4].kind == DiffLine::Kind::Added && bounded[4].text == "y1");
        QVERIFY(bounded.back().kind == DiffLine::Kind::Same && bounded.back().text == "tail");
    }
};

QTEST_GUILESS_MAIN(TestTextDiff)
#include "tst_text_diff.moc"
