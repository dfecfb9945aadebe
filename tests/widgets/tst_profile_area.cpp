// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/nvrtc_compiler.h"
#include "widgets/editor/code_editor.h"
#include "widgets/profile/compile_service.h"
#include "widgets/profile/profile_area.h"
#include "widgets/shell/workbench_state.h"

#include <QSignalSpy>
#include <QTreeWidget>
#include <QtTest>

class TestProfileArea : public QObject {
    Q_OBJECT
private Q_SLOTS:
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
        QTreeWidget* list = area.diagnosticsList();
        QCOMPARE(list->topLevelItemCount(), 1);
        QCOMPARE(list->topLevelItem(0)->text(1), QStringLiteral("5"));
        QVERIFY(list->topLevelItem(0)->text(3).contains("not_declared"));
        Q_EMIT list->itemActivated(list->topLevelItem(0), 0);
        int line = 0, index = 0;
        area.editor()->getCursorPosition(&line, &index);
        QCOMPARE(line, 4);
        QCOMPARE(index, 15);
    }

    void newerRequestSupersedesOlder() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        dice::CompileService service;
        QSignalSpy finished(&service, &dice::CompileService::finished);
        dice::CompileOptions options;
        options.architecture = "sm_90";
        const int first = service.compile("extern \"C\" __global__ void a() {}", "a.cu", options);
        const int second = service.compile("extern \"C\" __global__ void b(int* x) { x[0] = 1; }",
                                           "b.cu", options);
        QVERIFY(second > first);
        QTRY_VERIFY_WITH_TIMEOUT(!service.busy(), 60000);
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.first().at(0).toInt(), second);
    }
};

QTEST_MAIN(TestProfileArea)
#include "tst_profile_area.moc"
