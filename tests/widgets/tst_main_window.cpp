// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/finetune/finetune_area.h"
#include "widgets/generate/generate_area.h"
#include "widgets/infill/infill_area.h"
#include "widgets/profile/profile_area.h"
#include "widgets/shell/language.h"
#include "widgets/shell/main_window.h"
#include "widgets/shell/system_status.h"
#include "widgets/state/workbench_state.h"

#include <QDockWidget>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QtTest>

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QCoreApplication::setOrganizationName("dice-workbench-tests");
        QCoreApplication::setApplicationName("tst_main_window");
        QSettings().clear();
    }

    void opensWithTheFourAreas() {
        dice::WorkbenchState state;
        dice::Language language;
        dice::MainWindow window(&state, &language);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTabWidget* areas = window.areas();
        QCOMPARE(areas->count(), 4);
        QCOMPARE(areas->tabText(0), QStringLiteral("Generate"));
        QCOMPARE(areas->tabText(1), QStringLiteral("Infill"));
        QCOMPARE(areas->tabText(2), QStringLiteral("Profile"));
        QCOMPARE(areas->tabText(3), QStringLiteral("Fine-tune"));
        QVERIFY(qobject_cast<dice::GenerateArea*>(areas->widget(0)));
        QVERIFY(qobject_cast<dice::InfillArea*>(areas->widget(1)));
        QVERIFY(qobject_cast<dice::ProfileArea*>(areas->widget(2)));
        QVERIFY(qobject_cast<dice::FinetuneArea*>(areas->widget(3)));
        QStringList menus;
        for (QAction* action : window.menuBar()->actions())
            menus << action->text();
        QCOMPARE(menus, (QStringList{"&File", "&Model", "&View", "&Language", "&Help"}));
    }

    void statusBarSaysWhatTheMachineOffers() {
        dice::WorkbenchState state;
        dice::Language language;
        dice::MainWindow window(&state, &language);
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(state.systemInfo().has_value(), 30000);
        const QString summary = window.systemStatus()->summary();
        if (state.gpuAvailable())
            QVERIFY(summary.contains("GPU: "));
        else
            QVERIFY2(summary.contains("No GPU"), qPrintable(summary));
        QVERIFY(summary.contains("LibTorch "));
        QVERIFY(summary.contains("NVRTC"));
        QVERIFY(summary.contains("Driver: "));
        QVERIFY(summary.contains("No model loaded"));
        state.setModelName("tiny-test");
        QVERIFY(window.systemStatus()->summary().contains("Model: tiny-test"));
        // Without a model, Generate says so and cannot start.
        state.setModelName(QString());
        QVERIFY(!window.generateArea()->generateEnabled());
    }

    void statusMessagesHaveRoom() {
        dice::WorkbenchState state;
        dice::Language language;
        dice::MainWindow window(&state, &language);
        window.resize(1366, 768);
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(state.systemInfo().has_value(), 30000);
        window.statusBar()->showMessage(QStringLiteral("The model could not be loaded"));
        QCoreApplication::processEvents();
        // The machine's summary sits at the right; the message is written left of it.
        const int room = window.systemStatus()->geometry().left();
        QVERIFY2(room >= 300, qPrintable(QString::number(room)));
        QCOMPARE(window.statusBar()->currentMessage(),
                 QStringLiteral("The model could not be loaded"));
    }

    void settingsSurviveARestart() {
        {
            dice::WorkbenchState state;
            dice::Language language;
            dice::MainWindow window(&state, &language);
            window.loadTasks(DICE_SOURCE_DIR "/resources/tasks");
            window.show();
            window.resize(1111, 777);
            window.showArea(dice::MainWindow::Area::Profile);
            state.setCurrentTask("softmax");
            window.close();
        }
        QSettings settings;
        QCOMPARE(settings.value("window/area").toInt(), int(dice::MainWindow::Area::Profile));
        QCOMPARE(settings.value("task/current").toString(), QStringLiteral("softmax"));
        dice::WorkbenchState state;
        dice::Language language;
        dice::MainWindow window(&state, &language);
        QCOMPARE(window.areas()->currentIndex(), int(dice::MainWindow::Area::Profile));
        QCOMPARE(window.size(), QSize(1111, 777));
    }

    void badTaskFolderIsReportedNotFatal() {
        dice::WorkbenchState state;
        dice::Language language;
        dice::MainWindow window(&state, &language);
        window.loadTasks(DICE_TEST_FIXTURES "/tasks-with-problems");
        QCOMPARE(state.suite().tasks.size(), size_t(1));
        QCOMPARE(state.suite().problems.size(), size_t(1));
        QVERIFY(window.statusBar()->currentMessage().contains("could not be read"));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
