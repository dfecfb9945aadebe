// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tasks/task.h"
#include "widgets/editor/code_editor.h"
#include "widgets/finetune/finetune_area.h"
#include "widgets/generate/generate_area.h"
#include "widgets/infill/infill_area.h"
#include "widgets/profile/profile_area.h"
#include "widgets/shell/language.h"
#include "widgets/shell/main_window.h"
#include "widgets/shell/system_status.h"
#include "widgets/state/workbench_state.h"

#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
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

    void kernelsOpenSaveAndAskBeforeEditsAreLost() {
        QTemporaryDir dir;
        const QString path = dir.filePath("scale.cu");
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(
                "extern \"C\" __global__ void scale(float* y) { y[threadIdx.x] *= 2.0f; }\n");
        }
        dice::WorkbenchState state;
        dice::Language language;
        dice::MainWindow window(&state, &language);
        window.show();
        dice::ProfileArea* profile = window.profileArea();
        QVERIFY(window.openKernelFile(path));
        QCOMPARE(window.areas()->currentIndex(), int(dice::MainWindow::Area::Profile));
        QCOMPARE(profile->filePath(), path);
        QVERIFY(profile->editor()->text().contains("void scale"));
        QVERIFY(!profile->hasUnsavedEdits());

        // An edit typed into the editor is unsaved until saved, and Save writes the file.
        profile->editor()->setCursorPosition(0, 0);
        QTest::keyClicks(profile->editor(), "// doubled");
        QTest::keyClick(profile->editor(), Qt::Key_Return);
        QVERIFY(profile->hasUnsavedEdits());
        QVERIFY(window.saveKernel(false));
        QVERIFY(!profile->hasUnsavedEdits());
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadOnly));
            QVERIFY(file.readAll().startsWith("// doubled\n"));
        }

        // Closing with an edit not saved asks; Cancel keeps the window and the edit.
        QTest::keyClicks(profile->editor(), "UNSAVED");
        QVERIFY(profile->hasUnsavedEdits());
        const auto answer = [](QMessageBox::StandardButton button) {
            QTimer::singleShot(0, [button] {
                auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                QVERIFY(box);
                QVERIFY(box->text().contains("scale.cu"));
                box->button(button)->click();
            });
        };
        // A candidate sent from Generate, Infill or a rollout asks the same; Cancel keeps the edit.
        answer(QMessageBox::Cancel);
        QVERIFY(!window.sendToProfile(QStringLiteral("// a generated candidate\n")));
        QVERIFY(profile->editor()->text().contains("UNSAVED"));
        QVERIFY(profile->hasUnsavedEdits());
        answer(QMessageBox::Cancel);
        QVERIFY(!window.close());
        QVERIFY(window.isVisible());
        QVERIFY(profile->hasUnsavedEdits());
        // Discard lets it close and leaves the file as saved.
        answer(QMessageBox::Discard);
        QVERIFY(window.close());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(!file.readAll().contains("UNSAVED"));

        // With nothing unsaved a candidate is sent without a question, and it is no file's text.
        dice::MainWindow sender(&state, &language);
        QVERIFY(sender.openKernelFile(path));
        QVERIFY(sender.sendToProfile(QStringLiteral("// a generated candidate\n")));
        QCOMPARE(sender.profileArea()->editor()->text(),
                 QStringLiteral("// a generated candidate\n"));
        QVERIFY(sender.profileArea()->filePath().isEmpty());

        // A task's hand-written solution opens in the editor.
        dice::MainWindow again(&state, &language);
        again.loadTasks(QString::fromStdString(dice::builtinTaskDirectory()));
        state.setCurrentTask("relu");
        QVERIFY(again.openTaskSolution());
        QVERIFY(again.profileArea()->filePath().endsWith("relu.dice"));
        QVERIFY(again.profileArea()->editor()->text().contains("#pragma dice host"));
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
