// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/generate/generate_area.h"
#include "widgets/shell/language.h"
#include "widgets/shell/main_window.h"
#include "widgets/shell/system_status.h"
#include "widgets/state/evaluation_message_text.h"
#include "widgets/state/workbench_state.h"

#include <QFile>
#include <QMenuBar>
#include <QTabWidget>
#include <QXmlStreamReader>
#include <QtTest>

class TestLanguage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void switchingToJapaneseChangesVisibleStrings() {
        dice::WorkbenchState state;
        dice::Language language;
        dice::MainWindow window(&state, &language);
        window.show();
        QCOMPARE(window.windowTitle(), QStringLiteral("DICE Workbench"));
        QCOMPARE(window.areas()->tabText(0), QStringLiteral("Generate"));
        QVERIFY(language.apply("ja"));
        QCOMPARE(language.current(), QStringLiteral("ja"));
        // Qt delivers LanguageChange to the widgets through the event loop.
        QTRY_COMPARE(window.windowTitle(), QStringLiteral("DICE ワークベンチ"));
        QCOMPARE(window.areas()->tabText(0), QStringLiteral("生成"));
        QCOMPARE(window.areas()->tabText(1), QStringLiteral("穴埋め"));
        QCOMPARE(window.areas()->tabText(2), QStringLiteral("プロファイル"));
        QCOMPARE(window.areas()->tabText(3), QStringLiteral("ファインチューニング"));
        QCOMPARE(window.menuBar()->actions().first()->text(), QStringLiteral("ファイル(&F)"));
        QVERIFY(window.systemStatus()->summary().contains(QStringLiteral("モデル未読み込み")));
        // Qt's own strings too (dialog buttons): its translations are installed beside it.
        QCOMPARE(QCoreApplication::translate("QPlatformTheme", "Cancel"),
                 QStringLiteral("キャンセル"));
        QVERIFY(language.apply("en"));
        QTRY_COMPARE(window.areas()->tabText(0), QStringLiteral("Generate"));
        QVERIFY(window.systemStatus()->summary().contains("No model loaded"));
        QVERIFY(!language.apply("xx"));
    }

    // The evaluator's messages as the evaluator writes them: in English unchanged, in Japanese
    // with their figures kept and quoted outside text (a CUDA error) left as it came.
    void evaluatorMessagesAreTranslated() {
        const std::vector<std::string> messages = {
            "correct",
            "correct; 0.125 ms against the reference's 0.500 ms (4.00x)",
            "correctness trial 1: 5 of 4096 elements outside atol 0.010000, rtol 0.010000 (3 are "
            "NaN: elements never written hold the poison)",
            "small preset trial 2: output 1: 7 of 16 elements outside atol 0.001000, rtol "
            "0.001000",
            "correctness trial 1: a kernel wrote outside its tensors",
            "the kernel faulted during correctness trial 1: CUDA_ERROR_ILLEGAL_ADDRESS: an "
            "illegal memory access was encountered",
            "the host code failed: shape mismatch",
            "no progress during \"correctness\": no reply within 2000 ms",
            "compiled, not run: no GPU (a dry run on meta tensors found outputs of the "
            "reference's shapes and dtypes)",
            "a message of a form the interface does not know"};
        dice::Language language;
        QVERIFY(language.apply("en"));
        for (const auto& m : messages)
            QCOMPARE(dice::evaluationMessageText(m), QString::fromStdString(m));
        QVERIFY(language.apply("ja"));
        QCOMPARE(dice::evaluationMessageText(messages[0]), QStringLiteral("正しい"));
        QCOMPARE(dice::evaluationMessageText(messages[1]),
                 QStringLiteral("正しい; 0.125 ms（参照は 0.500 ms、4.00 倍）"));
        QCOMPARE(dice::evaluationMessageText(messages[2]),
                 QStringLiteral(
                     "正しさの検査の試行 1: 4096 要素中 5 要素が atol 0.010000、rtol "
                     "0.010000 の範囲外（3 要素が NaN: 書き込まれなかった要素は毒値のまま）"));
        QCOMPARE(dice::evaluationMessageText(messages[3]),
                 QStringLiteral("小さいプリセットの試行 2: 出力 1: 16 要素中 7 要素が atol "
                                "0.001000、rtol 0.001000 の範囲外"));
        QCOMPARE(dice::evaluationMessageText(messages[4]),
                 QStringLiteral("正しさの検査の試行 1: カーネルがテンソルの外に書き込んだ"));
        QCOMPARE(dice::evaluationMessageText(messages[5]),
                 QStringLiteral("正しさの検査の試行 1 の間にカーネルが異常終了: "
                                "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was "
                                "encountered"));
        QCOMPARE(dice::evaluationMessageText(messages[6]),
                 QStringLiteral("ホストコードが失敗: shape mismatch"));
        QCOMPARE(
            dice::evaluationMessageText(messages[8]),
            QStringLiteral("コンパイル済み、未実行: no GPU（meta テンソルでの試行で、参照と同じ"
                           "形状と dtype の出力を確認）"));
        QCOMPARE(dice::evaluationMessageText(messages[9]), QString::fromStdString(messages[9]));
        QVERIFY(language.apply("en"));
    }

    void localeChoosesALanguage() {
        QCOMPARE(dice::Language::fromLocale("ja_JP.UTF-8"), QStringLiteral("ja"));
        QCOMPARE(dice::Language::fromLocale("de_DE"), QStringLiteral("en"));
        QCOMPARE(dice::Language::fromLocale("C"), QStringLiteral("en"));
    }

    // Every string of the program has a finished Japanese translation.
    void japaneseTranslationIsComplete() {
        QFile file(DICE_SOURCE_DIR "/translations/dice_ja.ts");
        QVERIFY(file.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&file);
        int messages = 0;
        QStringList unfinished;
        QString source;
        while (!xml.atEnd()) {
            xml.readNext();
            if (!xml.isStartElement())
                continue;
            if (xml.name() == QLatin1String("source")) {
                source = xml.readElementText();
            } else if (xml.name() == QLatin1String("translation")) {
                ++messages;
                const bool done = xml.attributes().value("type").isEmpty();
                const bool numerus = xml.attributes().hasAttribute("type") &&
                                     xml.attributes().value("type") == QLatin1String("unfinished");
                QString text;
                while (!(xml.isEndElement() && xml.name() == QLatin1String("translation"))) {
                    xml.readNext();
                    if (xml.isCharacters())
                        text += xml.text();
                }
                if (!done || numerus || text.trimmed().isEmpty())
                    unfinished << source;
            }
        }
        QVERIFY(!xml.hasError());
        QVERIFY(messages > 50);
        QVERIFY2(unfinished.isEmpty(), qPrintable("untranslated: " + unfinished.join(" | ")));
    }
};

QTEST_MAIN(TestLanguage)
#include "tst_language.moc"
