// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/file_util.h"
#include "core/cuda/nvrtc_compiler.h"
#include "widgets/state/workbench_state.h"
#include "widgets/tasks/suite_evaluation_dialog.h"
#include "widgets/tasks/task_browser.h"
#include "widgets/tasks/task_model.h"

#include <QAbstractItemModelTester>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

class TestTaskBrowser : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        // The evaluation workers inherit this: kernels compile and are never run, on any machine.
        qputenv("CUDA_VISIBLE_DEVICES", "");
    }

    void modelIsConsistent() {
        dice::TaskModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTasks(dice::loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks").tasks);
        QCOMPARE(model.rowCount(), 3);
        model.setTasks({});
        QCOMPARE(model.rowCount(model.index(0, 0)), 0);
    }

    void listsTheBuiltinTasksByLevel() {
        dice::WorkbenchState state;
        dice::TaskBrowser browser(&state);
        const auto suite = dice::loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks");
        state.setSuite(suite);
        auto* model = browser.model();
        int listed = 0;
        for (int level = 0; level < 3; ++level) {
            const QModelIndex parent = model->index(level, 0);
            for (int row = 0; row < model->rowCount(parent); ++row) {
                const QModelIndex index = model->index(row, 0, parent);
                QCOMPARE(index.data(dice::TaskModel::LevelRole).toInt(), level + 1);
                QVERIFY(
                    suite.find(index.data(dice::TaskModel::TaskNameRole).toString().toStdString()));
                ++listed;
            }
        }
        QCOMPARE(listed, static_cast<int>(suite.tasks.size()));
    }

    void selectingATaskShowsItsDescriptionAndReference() {
        dice::WorkbenchState state;
        dice::TaskBrowser browser(&state);
        state.setSuite(dice::loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks"));
        browser.show();
        QSignalSpy changed(&state, &dice::WorkbenchState::currentTaskChanged);
        QVERIFY(browser.selectTask("layer_norm"));
        QCOMPARE(changed.count(), 1);
        QVERIFY(state.currentTask());
        QCOMPARE(state.currentTask()->name, std::string("layer_norm"));
        const QString details = browser.detailsText();
        QVERIFY(details.contains("Layer normalisation"));
        QVERIFY(details.contains("Level 1"));
        QVERIFY(details.contains("x: float32[batch_size, dim]"));
        QVERIFY(details.contains("small [32, 1024]"));
        QVERIFY(details.contains("weight"));
        QVERIFY(browser.referenceText().contains("def reference(x: Tensor, weight: Tensor"));
        QVERIFY(browser.referenceText().contains("torch.layer_norm"));
        QVERIFY(!browser.selectTask("no_such_task"));
        QCOMPARE(state.currentTask()->name, std::string("layer_norm"));
    }

    void filteringNeverChangesTheCurrentTask() {
        dice::WorkbenchState state;
        dice::TaskBrowser browser(&state);
        state.setSuite(dice::loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks"));
        browser.show();
        QVERIFY(browser.selectTask("matmul_transposed_b"));
        QSignalSpy changed(&state, &dice::WorkbenchState::currentTaskChanged);
        auto* filter = browser.findChild<QLineEdit*>();
        QVERIFY(filter);
        // Typed a key at a time, as a user does: every prefix hides a different set of rows.
        QTest::keyClicks(filter, "bias_gelu_scale");
        QCOMPARE(changed.count(), 0);
        QCOMPARE(state.currentTask()->name, std::string("matmul_transposed_b"));
        QVERIFY(!browser.view()->currentIndex().isValid());
        filter->clear();
        QCOMPARE(changed.count(), 0);
        QCOMPARE(browser.view()->currentIndex().data(dice::TaskModel::TaskNameRole).toString(),
                 QStringLiteral("matmul_transposed_b"));
        // Picking the one row the filter shows is the user's choice.
        QTest::keyClicks(filter, "bias_gelu_scale");
        QVERIFY(browser.selectTask("bias_gelu_scale"));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(state.currentTask()->name, std::string("bias_gelu_scale"));
    }

    void clickingARowSelectsIt() {
        dice::WorkbenchState state;
        dice::TaskBrowser browser(&state);
        state.setSuite(dice::loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks"));
        browser.show();
        QVERIFY(QTest::qWaitForWindowExposed(&browser));
        QTreeView* view = browser.view();
        const QModelIndex level2 = view->model()->index(1, 0);
        const QModelIndex first = view->model()->index(0, 0, level2);
        QVERIFY(first.isValid());
        view->scrollTo(first);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(first).center());
        QVERIFY(state.currentTask());
        QCOMPARE(state.currentTask()->level, 2);
    }

    void aNarrowDockShowsEveryTitleElidedWithoutScrolling() {
        dice::WorkbenchState state;
        dice::TaskBrowser browser(&state);
        state.setSuite(dice::loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks"));
        browser.resize(260, 600);
        browser.show();
        QVERIFY(QTest::qWaitForWindowExposed(&browser));
        QTreeView* view = browser.view();
        // The level labels span the row; every task's name fits the name column whole.
        for (int level = 0; level < view->model()->rowCount(); ++level) {
            QVERIFY(view->isFirstColumnSpanned(level, QModelIndex()));
            const QModelIndex parent = view->model()->index(level, 0);
            for (int row = 0; row < view->model()->rowCount(parent); ++row) {
                const QModelIndex name = view->model()->index(row, 0, parent);
                QVERIFY2(view->visualRect(name).right() + 1 >=
                             view->visualRect(name).left() +
                                 view->fontMetrics().horizontalAdvance(name.data().toString()),
                         qPrintable(name.data().toString()));
            }
        }
        // Titles take the rest: nothing scrolls sideways, and a title cut short keeps its tooltip.
        QTRY_COMPARE(view->horizontalScrollBar()->maximum(), 0);
        QVERIFY(view->columnWidth(1) > 0);
        const QModelIndex first = view->model()->index(0, 1, view->model()->index(0, 0));
        QCOMPARE(first.data(Qt::ToolTipRole).toString(), first.data().toString());
    }

    // The suite dialog prints what dice eval --suite printed for the built-in solutions before
    // the suite's evaluation moved into core (the same golden file as core's test).
    void evaluatesTheSuiteWithAFolderOfCandidates() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        dice::WorkbenchState state({DICE_BIN_DIR "/dice-evald", "-"});
        state.setSuite(dice::loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks"));
        dice::TaskBrowser browser(&state);
        browser.show();
        auto* button = browser.findChild<QPushButton*>("EvaluateSuiteButton");
        QVERIFY(button);
        QTest::mouseClick(button, Qt::LeftButton);
        dice::SuiteEvaluationDialog* dialog = browser.suiteEvaluationDialog();
        QVERIFY(dialog->isVisible());
        dialog->setCandidateFolder(DICE_SOURCE_DIR "/resources/solutions");
        dialog->setPreset("small");
        QSignalSpy finished(dialog, &dice::SuiteEvaluationDialog::evaluationFinished);
        QVERIFY(dialog->start());
        QVERIFY(dialog->running());
        QVERIFY(!dialog->start());
        QVERIFY(finished.wait(240000));
        QVERIFY(!dialog->running());
        const std::string expected =
            dice::readTextFile(DICE_TEST_FIXTURES "/suite_evaluation/builtin_small_no_gpu.txt");
        QCOMPARE(dialog->resultText().toStdString(), expected);
    }

    void missingCandidatesAndBadFoldersAreSaid() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        dice::WorkbenchState state({DICE_BIN_DIR "/dice-evald", "-"});
        state.setSuite(dice::loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks"));
        dice::SuiteEvaluationDialog dialog(&state);
        QTemporaryDir dir;
        dialog.setCandidateFolder(dir.filePath("absent"));
        QVERIFY(!dialog.start());
        QVERIFY(dialog.statusText().contains("<task>.dice"));
        QVERIFY(QFile::copy(DICE_SOURCE_DIR "/resources/solutions/relu.dice",
                            dir.filePath("relu.dice")));
        dialog.setCandidateFolder(dir.path());
        QSignalSpy finished(&dialog, &dice::SuiteEvaluationDialog::evaluationFinished);
        QVERIFY(dialog.start());
        QVERIFY(finished.wait(240000));
        const int tasks = static_cast<int>(state.suite().tasks.size());
        QVERIFY2(dialog.statusText().contains(QString::number(tasks - 1) + " task"),
                 qPrintable(dialog.statusText()));
        QCOMPARE(dialog.resultText().count("no candidate"), tasks - 1);
        QVERIFY(dialog.resultText().contains("relu"));
    }
};

QTEST_MAIN(TestTaskBrowser)
#include "tst_task_browser.moc"
