// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/file_util.h"
#include "core/cuda/device_info.h"
#include "core/cuda/ncu_report.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/cuda/sass_disassembler.h"
#include "core/store/run_store.h"
#include "core/tasks/task.h"
#include "widgets/editor/code_editor.h"
#include "widgets/editor/ptx_lexer.h"
#include "widgets/profile/compare_view.h"
#include "widgets/profile/counters_view.h"
#include "widgets/profile/evaluation_view.h"
#include "widgets/profile/profile_area.h"
#include "widgets/profile/run_history.h"
#include "widgets/state/compile_service.h"
#include "widgets/state/evaluation_service.h"
#include "widgets/state/workbench_state.h"

#include "event_loop_probe.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

namespace {

QStringList ptxLinesOf(const dice::ProfileArea& area) {
    const QStringList all = QString::fromStdString(area.lastResult().ptx).split('\n');
    QStringList lines;
    for (int l : area.highlightedPtxLines())
        lines << all.value(l);
    return lines;
}

} // namespace

class TestProfileArea : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void countersSayWhatIsMissing() {
        dice::WorkbenchState state;
        dice::ProfileArea area(&state);
        dice::CountersView* view = area.countersView();
        QCOMPARE(area.tabs()->tabText(dice::ProfileArea::CountersTab), QStringLiteral("Counters"));
        if (!state.gpuAvailable()) {
            QVERIFY(!view->collectButton()->isEnabled());
            QVERIFY2(view->statusLabel()->text().contains("GPU"),
                     qPrintable(view->statusLabel()->text()));
        }
        // A GPU without Nsight Compute: the view says how to get it.
        view->setAvailability(true, QString());
        QVERIFY(!view->collectButton()->isEnabled());
        QVERIFY2(view->statusLabel()->text().contains("ncu") &&
                     view->statusLabel()->text().contains("DICE_NCU"),
                 qPrintable(view->statusLabel()->text()));
        // With both, Collect waits for a task and a candidate in the native dialect.
        view->setAvailability(true, QStringLiteral("ncu"));
        view->setReady(false, QStringLiteral("no task"));
        QVERIFY(!view->collectButton()->isEnabled());
        view->setReady(true, QString());
        QVERIFY(view->collectButton()->isEnabled());
    }

    void countersShowKernelsRooflineAndBaseline() {
        dice::CountersView view;
        view.setCeilings(4.8e12, 6.7e13);
        view.setAvailability(true, QStringLiteral("ncu"));
        dice::CounterReport report;
        report.version = "Version 2025.3.1.0";
        report.candidate =
            dice::parseNcuCsv(dice::readTextFile(DICE_TEST_FIXTURES "/ncu/raw_page.csv"));
        report.reference = {report.candidate[1]};
        view.showReport(report);
        QTableWidget* table = view.table();
        QCOMPARE(table->rowCount(), 3);
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("Candidate"));
        QCOMPARE(table->item(0, 1)->text(), QStringLiteral("relu_map"));
        QCOMPARE(table->item(0, 2)->text(), QStringLiteral("35.50")); // microseconds
        QCOMPARE(table->item(0, 9)->text(), QStringLiteral("memory"));
        QCOMPARE(table->item(2, 0)->text(), QStringLiteral("Reference"));
        // Not reported is not zero.
        QCOMPARE(table->item(1, 5)->text(), QStringLiteral("—"));
        QCustomPlot* plot = view.roofline();
        QCOMPARE(plot->graph(1)->data()->size(), 2);
        QCOMPARE(plot->graph(2)->data()->size(), 1);
        // The roofline bends where the bandwidth meets the FP32 peak.
        const auto ceiling = plot->graph(0)->data();
        QVERIFY(ceiling->size() > 10);
        QCOMPARE(ceiling->at(ceiling->size() - 1)->value, 6.7e13);
        QVERIFY(ceiling->at(0)->value < 6.7e13);
        QVERIFY(view.keepButton()->isEnabled());

        view.keepAsBaseline();
        view.showReport(report);
        QCOMPARE(table->rowCount(), 5);
        QCOMPARE(table->item(3, 0)->text(), QStringLiteral("Baseline"));
        QCOMPARE(plot->graph(3)->data()->size(), 2);

        dice::CounterReport failed;
        failed.error = "ncu may not read this GPU's counters (ERR_NVGPUCTRPERM)";
        view.showReport(failed);
        QVERIFY(view.statusLabel()->text().contains("ERR_NVGPUCTRPERM"));
        QVERIFY(!view.keepButton()->isEnabled());
        QCOMPARE(table->rowCount(), 2); // the baseline stays
    }

    void countersComeFromDiceEvalProfile() {
        // The whole path without a GPU: the view starts dice eval --profile, which judges the
        // candidate, finds it did not run here, and says so in its JSON; the view shows that.
        if (!dice::queryDevices().empty())
            QSKIP("on a GPU the candidate runs: scripts/gpu-check.sh counters checks the profile");
        dice::CountersView view;
        view.setProgram(QStringLiteral(DICE_BIN_DIR "/dice"));
        view.setAvailability(true, QStringLiteral("ncu"));
        view.setReady(true, QString());
        QSignalSpy done(&view, &dice::CountersView::collected);
        view.collect(QStringLiteral("relu"),
                     QString::fromStdString(
                         dice::readTextFile(DICE_SOURCE_DIR "/resources/solutions/relu.dice")),
                     QStringLiteral("small"), QString());
        QVERIFY(view.busy());
        QVERIFY(!view.collectButton()->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 120000);
        QCOMPARE(done.at(0).at(0).toBool(), false);
        QVERIFY(view.report() && !view.report()->ok());
        QVERIFY2(view.statusLabel()->text().contains("did not run to the end on a GPU"),
                 qPrintable(view.statusLabel()->text()));
        QVERIFY(view.collectButton()->isEnabled());
    }

    void errorAtLineGetsItsMarkerAndJump() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        dice::WorkbenchState state;
        dice::ProfileArea area(&state);
        area.show();
        QSignalSpy compiled(&area, &dice::ProfileArea::compiled);
        area.setSource("extern \"C\" __global__ void k(float* y)\n"
                       "{\n"
                       "    int i = threadIdx.x;\n"
                       "    y[i] = 2.0f;\n"
                       "    y[i + 1] = not_declared;\n"
                       "}\n");
        area.compileNow();
        QTRY_VERIFY_WITH_TIMEOUT(compiled.count() >= 1, 60000);
        QVERIFY(!area.lastResult().ok);
        QVERIFY(area.editor()->hasErrorIndicatorOnLine(5));
        QVERIFY(!area.editor()->hasErrorIndicatorOnLine(4));
        QTreeView* list = area.diagnosticsList();
        const QAbstractItemModel* rows = list->model();
        QCOMPARE(rows->rowCount(), 1);
        QCOMPARE(rows->index(0, 1).data().toString(), QStringLiteral("5"));
        QVERIFY(rows->index(0, 3).data().toString().contains("not_declared"));
        Q_EMIT list->activated(rows->index(0, 0));
        int line = 0, index = 0;
        area.editor()->getCursorPosition(&line, &index);
        QCOMPARE(line, 4);
        QCOMPARE(index, 15);
        // A click on the message jumps too.
        area.editor()->setCursorPosition(0, 0);
        area.tabs()->setCurrentIndex(dice::ProfileArea::DiagnosticsTab);
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                          list->visualRect(rows->index(0, 3)).center());
        area.editor()->getCursorPosition(&line, &index);
        QCOMPARE(line, 4);
        QCOMPARE(index, 15);
    }

    void ptxIsColouredByToken() {
        using L = dice::PtxLexer;
        // Each line, then the style every byte of it gets, one letter per byte: d default,
        // c comment, D directive, I instruction, R register, G guard, L label, N number.
        const std::vector<std::pair<std::string, std::string>> lines = {
            {".visible .entry k(", "DDDDDDDDdDDDDDDddd"},
            {"\tld.global.nc.f32 %f1, [%rd4+-8];", "dIIIIIIIIIIIIIIIIdRRRdddRRRRdNNdd"},
            {"@!%p1 bra $L__BB0_2; // done", "GGGGGdIIIdLLLLLLLLLddccccccc"},
            {"$L__BB0_2: mov.b32 %r2, 0f3F800000;", "LLLLLLLLLLdIIIIIIIdRRRddNNNNNNNNNNd"},
            {"\t.loc 1 7 3", "dDDDDdNdNdN"},
        };
        const std::string letters = "dcDIRGLN";
        for (const auto& [line, expected] : lines) {
            QCOMPARE(line.size(), expected.size());
            const QByteArray styles = dice::ptxStyles(QByteArray::fromStdString(line));
            std::string got;
            for (const char style : styles)
                got += letters.at(static_cast<std::size_t>(style));
            QCOMPARE(QString::fromStdString(got), QString::fromStdString(expected));
        }
        QCOMPARE(int(L::Default), 0);
        // The PTX view uses it.
        dice::WorkbenchState state;
        dice::ProfileArea area(&state);
        auto* ptx = area.findChild<dice::CodeEditor*>(QStringLiteral("PtxView"));
        QVERIFY(ptx);
        QVERIFY(dynamic_cast<dice::PtxLexer*>(ptx->lexer()));
        // The tab panel scrolls its tabs instead of claiming their whole row's width.
        QVERIFY2(area.tabs()->minimumSizeHint().width() < 400,
                 qPrintable(QString::number(area.tabs()->minimumSizeHint().width())));
        // The occupancy plot's legend sits in a row above the axes, where it covers no curve.
        auto* occupancy = area.findChild<QCustomPlot*>(QStringLiteral("OccupancyPlot"));
        QVERIFY(occupancy);
        QCOMPARE(occupancy->axisRect()->insetLayout()->elementCount(), 0);
        QCOMPARE(occupancy->plotLayout()->element(0, 0),
                 static_cast<QCPLayoutElement*>(occupancy->legend));
        QCOMPARE(occupancy->plotLayout()->element(1, 0),
                 static_cast<QCPLayoutElement*>(occupancy->axisRect()));
    }

    void compilerOptionsLineReachesTheCompileAndRefusesPaths() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        dice::WorkbenchState state;
        dice::ProfileArea area(&state);
        area.show();
        auto* options = area.findChild<QLineEdit*>(QStringLiteral("CompilerOptions"));
        QVERIFY(options);
        QSignalSpy compiled(&area, &dice::ProfileArea::compiled);
        area.setSource("extern \"C\" __global__ void k(float* y) { y[threadIdx.x] = TILE; }\n");
        area.compileNow();
        QTRY_VERIFY_WITH_TIMEOUT(compiled.count() >= 1, 60000);
        QVERIFY(!area.lastResult().ok);

        // A path for the compiler is refused with its reason, and nothing is compiled.
        compiled.clear();
        options->setText(QStringLiteral("-DTILE=4 -I/etc"));
        Q_EMIT options->editingFinished();
        QVERIFY(area.statusText().contains(QStringLiteral("-I/etc")));
        QTest::qWait(200);
        QCOMPARE(compiled.count(), 0);

        // The macro it needs: the same kernel compiles, when the line is done with.
        options->setText(QStringLiteral("-DTILE=4 --use_fast_math"));
        Q_EMIT options->editingFinished();
        QTRY_VERIFY_WITH_TIMEOUT(compiled.count() >= 1, 60000);
        QVERIFY2(area.lastResult().ok, area.lastResult().log.c_str());
    }

    void hostPartMistakesAreMarkedBeforeEvaluation() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        dice::WorkbenchState state;
        dice::ProfileArea area(&state);
        area.show();
        QSignalSpy compiled(&area, &dice::ProfileArea::compiled);
        const QString device =
            "#pragma dice device\n"
            "extern \"C\" __global__ void k(const float* x, float* y, long long n)\n"
            "{\n"
            "    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
            "    if (i < n) y[i] = x[i] * 2.0f;\n"
            "}\n"
            "#pragma dice host\n"
            "def forward(x: Tensor) -> Tensor:\n"
            "    y = torch.empty_like(x)\n";
        // Line 10 does not parse: the device part compiles, yet the candidate is not compiled.
        area.setSource(device + "    dice.launch(\"k\", [1], [256], (x, y, x.numel())\n"
                                "    return y\n");
        compiled.clear();
        area.compileNow();
        QTRY_VERIFY_WITH_TIMEOUT(compiled.count() >= 1, 60000);
        QVERIFY(!area.lastResult().ok);
        QVERIFY(area.lastResult().errorCount() >= 1);
        bool atHost = false;
        for (int line = 10; line <= 12; ++line)
            atHost = atHost || area.editor()->hasErrorIndicatorOnLine(line);
        QVERIFY(atHost);
        QVERIFY(!area.editor()->hasErrorIndicatorOnLine(5));
        QVERIFY(!area.statusText().contains("0 warning"));

        // A PyTorch operator doing the work is marked at its line (11) before any evaluation.
        area.setSource(device + "    dice.launch(\"k\", [1], [256], (x, y, x.numel()))\n"
                                "    return torch.relu(x)\n");
        compiled.clear();
        area.compileNow();
        QTRY_VERIFY_WITH_TIMEOUT(compiled.count() >= 1, 60000);
        QVERIFY(!area.lastResult().ok);
        QVERIFY(area.editor()->hasErrorIndicatorOnLine(11));
        QVERIFY(!area.editor()->hasErrorIndicatorOnLine(10));

        // The honest host part: no host diagnostic.
        area.setSource(device + "    dice.launch(\"k\", [1], [256], (x, y, x.numel()))\n"
                                "    return y\n");
        compiled.clear();
        area.compileNow();
        QTRY_VERIFY_WITH_TIMEOUT(compiled.count() >= 1, 60000);
        QVERIFY(area.lastResult().ok);
        QCOMPARE(area.lastResult().errorCount(), 0);
    }

    void newerRequestSupersedesOlder() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        dice::CompileService service;
        dice::CompileOptions options;
        options.architecture = "sm_90";
        dice::CompileJob* first =
            service.compile("extern \"C\" __global__ void a() {}", "a.cu", options);
        QSignalSpy firstFinished(first, &dice::CompileJob::finished);
        dice::CompileJob* second = service.compile(
            "extern \"C\" __global__ void b(int* x) { x[0] = 1; }", "b.cu", options);
        QSignalSpy secondFinished(second, &dice::CompileJob::finished);
        QTRY_VERIFY_WITH_TIMEOUT(!service.busy(), 60000);
        QCOMPARE(firstFinished.count() + secondFinished.count(), 1);
        QCOMPARE(secondFinished.count(), 1);
    }

    // The PTX view follows the editor's cursor through -lineinfo, and back.
    void colourBandsPairSourceLinesWithTheirInstructions() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        QTemporaryDir dir;
        dice::WorkbenchState state({QString(), dir.filePath("runs.sqlite3")});
        dice::ProfileArea area(&state);
        area.show();
        QSignalSpy compiled(&area, &dice::ProfileArea::compiled);
        area.compileNow();
        QTRY_VERIFY_WITH_TIMEOUT(compiled.count() >= 1, 60000);
        QVERIFY(area.lastResult().ok);
        auto* bands = area.findChild<QCheckBox*>(QStringLiteral("ColourBands"));
        auto* ptx = area.findChild<dice::CodeEditor*>(QStringLiteral("PtxView"));
        QVERIFY(bands && ptx);
        // Band markers are numbers 10 to 15.
        const auto bandOf = [](unsigned mask) {
            for (int m = 10; m < 16; ++m)
                if (mask & (1u << m))
                    return m;
            return -1;
        };
        QCOMPARE(bandOf(area.editor()->markersAtLine(6)), -1);
        bands->setChecked(true);
        // Line 7 (out[i] = alpha * x[i] + y[i]) and every PTX line made from it share one band.
        const int band = bandOf(area.editor()->markersAtLine(6));
        QVERIFY(band >= 0);
        QCOMPARE(bandOf(area.editor()->markersAtLine(0)), -1); // a comment makes no code
        const auto made = area.ptxMap().ptxLines(7);
        QVERIFY(!made.empty());
        for (int line : made)
            QCOMPARE(bandOf(ptx->markersAtLine(line)), band);
        int banded = 0;
        for (int line = 0; line < ptx->lines(); ++line) {
            if (bandOf(ptx->markersAtLine(line)) != band)
                continue;
            QCOMPARE(area.ptxMap().sourceLine(line), 7);
            ++banded;
        }
        QCOMPARE(banded, static_cast<int>(made.size()));
        // An edit moves lines: the bands go until the next compile.
        area.editor()->insertAt(QStringLiteral("// moved\n"), 0, 0);
        QCOMPARE(bandOf(area.editor()->markersAtLine(7)), -1);
        bands->setChecked(false);
        for (int line = 0; line < ptx->lines(); ++line)
            QCOMPARE(bandOf(ptx->markersAtLine(line)), -1);
    }

    void ptxFollowsTheCursor() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        QTemporaryDir dir;
        dice::WorkbenchState state({QString(), dir.filePath("runs.sqlite3")});
        dice::ProfileArea area(&state);
        area.show();
        QSignalSpy compiled(&area, &dice::ProfileArea::compiled);
        area.compileNow();
        QTRY_VERIFY_WITH_TIMEOUT(compiled.count() >= 1, 60000);
        QVERIFY(area.lastResult().ok);
        // Line 7 of the sample kernel: out[i] = alpha * x[i] + y[i]; QScintilla reports cursor
        // moves from its event loop.
        area.editor()->setCursorPosition(6, 8);
        QTRY_VERIFY(!area.highlightedPtxLines().empty());
        const QStringList line7 = ptxLinesOf(area);
        QVERIFY2(line7.join('\n').contains("fma.rn.f32"), qPrintable(line7.join('\n')));
        QVERIFY(line7.join('\n').contains("st.global.f32"));
        // The comment line has no code.
        area.editor()->setCursorPosition(0, 0);
        QTRY_VERIFY(area.highlightedPtxLines().empty());
        // A PTX line leads back to its source line.
        area.editor()->setCursorPosition(6, 8);
        QTRY_VERIFY(!area.highlightedPtxLines().empty());
        const int ptxLine = area.highlightedPtxLines().front();
        QCOMPARE(area.ptxMap().sourceLine(ptxLine), 7);
    }

    // Where nvdisasm is installed the SASS view follows the cursor as the PTX view does; where
    // no disassembler is, it says what to install.
    void sassFollowsTheCursor() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        QTemporaryDir dir;
        dice::WorkbenchState state({QString(), dir.filePath("runs.sqlite3")});
        dice::ProfileArea area(&state);
        area.show();
        QSignalSpy compiled(&area, &dice::ProfileArea::compiled);
        area.compileNow();
        QTRY_VERIFY_WITH_TIMEOUT(compiled.count() >= 1, 60000);
        QVERIFY(area.lastResult().ok);
        const auto tool = dice::findSassTool();
        if (!tool) {
            QTRY_VERIFY_WITH_TIMEOUT(area.sassView()->text().contains("nvdisasm or cuobjdump"),
                                     30000);
            QCOMPARE(area.sassText().lineCount(), 0);
            return;
        }
        QTRY_VERIFY_WITH_TIMEOUT(area.sassText().lineCount() > 0, 60000);
        QVERIFY(area.sassView()->text().contains("scale_add"));
        if (tool->kind != dice::SassTool::Kind::Nvdisasm)
            QSKIP("cuobjdump's SASS has no source lines");
        area.editor()->setCursorPosition(0, 0);
        area.editor()->setCursorPosition(6, 8);
        QTRY_VERIFY(!area.highlightedSassLines().empty());
        const QStringList all = area.sassView()->text().split('\n');
        QString line7;
        for (int l : area.highlightedSassLines()) {
            QCOMPARE(area.sassText().sourceLine(l), 7);
            line7 += all.value(l) + '\n';
        }
        QVERIFY2(line7.contains("FFMA") && line7.contains("STG"), qPrintable(line7));
    }

    void occupancyIsPlottedPerKernel() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        QTemporaryDir dir;
        dice::WorkbenchState state({QString(), dir.filePath("runs.sqlite3")});
        dice::ProfileArea area(&state);
        QSignalSpy compiled(&area, &dice::ProfileArea::compiled);
        area.compileNow();
        QTRY_VERIFY_WITH_TIMEOUT(compiled.count() >= 1, 60000);
        QCustomPlot* plot = area.occupancyPlot();
        QCOMPARE(plot->graphCount(), 1);
        QCOMPARE(plot->graph(0)->name(), QStringLiteral("scale_add"));
        // 32 to 1024 threads in steps of 32; a kernel this small fills the SM at 256 threads.
        QCOMPARE(plot->graph(0)->dataCount(), 32);
        const auto at256 = plot->graph(0)->data()->findBegin(256, false);
        QCOMPARE(at256->key, 256.0);
        QCOMPARE(at256->value, 100.0);
    }

    // Without a GPU the worker compiles and inspects the candidate and says it was not run; with
    // one it runs it. Either way the run lands in the history, where it can be pinned as the
    // baseline that the next evaluation is compared with.
    // The editor's candidate against the task's pinned baseline: source and PTX diffs and each
    // kernel's resources in both, compiled with the same target; a new pin recompares.
    void compareWithTheBaseline() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        QTemporaryDir dir;
        const QString storePath = dir.filePath("runs.sqlite3");
        dice::WorkbenchState state({DICE_BIN_DIR "/dice-evald", storePath});
        state.setSuite(dice::loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks"));
        state.setCurrentTask("relu");
        const std::string baseline =
            dice::readTextFile(DICE_SOURCE_DIR "/resources/solutions/relu.dice");
        dice::EvaluationResult result;
        result.task = "relu";
        const std::int64_t id = state.runStore()->add(
            dice::RunStore::recordOf(result, baseline, nlohmann::json::object(), ""));
        dice::ProfileArea area(&state);
        dice::CompareView* compare = area.compareView();
        QVERIFY(!compare->hasBaseline());
        QVERIFY(!compare->summary().isEmpty());
        state.runStore()->pinBaseline(id);
        state.reloadBaseline();

        // The same kernel with one line added.
        std::string edited = baseline;
        const std::size_t at = edited.find("return v < 0.0f");
        QVERIFY(at != std::string::npos);
        edited.insert(edited.rfind('\n', at) + 1, "    // clamps below at zero\n");
        area.setSource(QString::fromStdString(edited));
        QSignalSpy compiled(&area, &dice::ProfileArea::compiled);
        area.compileNow();
        QTRY_VERIFY_WITH_TIMEOUT(compiled.count() >= 1 && compare->hasBaseline() &&
                                     !compare->sourceDiff().empty(),
                                 60000);
        int removed = 0;
        int added = 0;
        for (const auto& line : compare->sourceDiff()) {
            removed += line.kind == dice::DiffLine::Kind::Removed ? 1 : 0;
            added += line.kind == dice::DiffLine::Kind::Added ? 1 : 0;
        }
        QCOMPARE(removed, 0);
        QCOMPARE(added, 1);
        QVERIFY(compare->summary().contains(QStringLiteral("run #%1").arg(id)));
        QVERIFY(!compare->ptxDiff().empty());
        QVERIFY(compare->resourcesTable()->rowCount() >= 1);
        QVERIFY(!compare->resourcesTable()->item(0, 1)->text().isEmpty());

        // Another candidate pinned: the comparison follows it.
        const std::string other =
            dice::readTextFile(DICE_SOURCE_DIR "/resources/solutions/gelu.dice");
        const std::int64_t second = state.runStore()->add(
            dice::RunStore::recordOf(result, other, nlohmann::json::object(), ""));
        state.runStore()->pinBaseline(second);
        state.reloadBaseline();
        QTRY_VERIFY_WITH_TIMEOUT(compare->summary().contains(QStringLiteral("run #%1").arg(second)),
                                 60000);
        int changed = 0;
        for (const auto& line : compare->sourceDiff())
            changed += line.kind == dice::DiffLine::Kind::Same ? 0 : 1;
        QVERIFY(changed > 2);
    }

    void evaluationHistoryAndBaseline() {
        QTemporaryDir dir;
        const QString storePath = dir.filePath("runs.sqlite3");
        dice::WorkbenchState state({DICE_BIN_DIR "/dice-evald", storePath});
        state.setSuite(dice::loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks"));
        state.setCurrentTask("add");
        QVERIFY(state.currentTask());
        dice::ProfileArea area(&state);
        area.setSource(QString::fromStdString(
            dice::readTextFile(DICE_SOURCE_DIR "/resources/solutions/add.dice")));
        QSignalSpy evaluated(&area, &dice::ProfileArea::evaluated);
        EventLoopProbe probe;
        probe.start();
        area.evaluateNow();
        QTRY_VERIFY_WITH_TIMEOUT(evaluated.count() == 1, 240000);
        probe.stop();
        qInfo("GUI thread: %d timer ticks, longest gap %lld ms during %lld ms of evaluation",
              probe.ticks(), probe.longestGapMs(), probe.elapsedMs());
        QVERIFY(probe.ticks() > 1);
        const auto first = evaluated.first().at(0).value<dice::EvaluationResult>();
        QVERIFY2(first.verdict == dice::Verdict::NotRun || first.verdict == dice::Verdict::Correct,
                 first.message.c_str());
        QVERIFY(first.compiled);
        QVERIFY(!area.evaluationView()->summary().isEmpty());
        dice::RunHistory* history = area.history();
        QTRY_COMPARE(history->shownRuns().size(), 1);
        history->selectRuns({history->shownRuns().front()});
        QVERIFY(history->pinSelected());
        QVERIFY(area.evaluationView()->figures()->horizontalHeaderItem(1)->text().contains(
            QString::number(history->shownRuns().front())));
        QVERIFY(!area.evaluationView()->figures()->isColumnHidden(1));

        area.evaluateNow();
        QTRY_VERIFY_WITH_TIMEOUT(evaluated.count() == 2, 240000);
        QTRY_COMPARE(history->shownRuns().size(), 2);
        history->selectRuns(history->shownRuns());
        const QString comparison = history->compareSelected();
        QVERIFY(comparison.contains("Run 1"));
        QVERIFY(comparison.contains("Run 2"));
        dice::RunStore store(storePath.toStdString());
        QCOMPARE(store.list().size(), std::size_t(2));
        QVERIFY(store.baseline("add").has_value());
    }
};

QTEST_MAIN(TestProfileArea)
#include "tst_profile_area.moc"
