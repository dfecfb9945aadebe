// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/generate/generate_area.h"
#include "widgets/shell/language.h"
#include "widgets/shell/main_window.h"
#include "widgets/shell/system_status.h"
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
