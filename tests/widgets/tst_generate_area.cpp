// SPDX-License-Identifier: GPL-3.0-or-later
// Generate, Infill and the model manager on a real (tiny, random) Qwen3 checkpoint run on the
// model's own thread: the canvas and the timeline show exactly what the sampler did, the GUI
// thread keeps serving events while the model runs, and holes are filled, accepted, rejected and
// undone.
#include "core/common/file_util.h"
#include "core/diffusion/decode_trace.h"
#include "core/tasks/holes.h"
#include "core/tasks/task.h"
#include "core/tokenizer/bpe_trainer.h"
#include "core/tokenizer/tokenizer.h"
#include "widgets/editor/code_editor.h"
#include "widgets/editor/find_bar.h"
#include "widgets/generate/decode_plots.h"
#include "widgets/generate/denoising_canvas.h"
#include "widgets/generate/generate_area.h"
#include "widgets/infill/infill_area.h"
#include "widgets/model/model_manager.h"
#include "widgets/state/model_runner.h"
#include "widgets/state/workbench_state.h"

#include "event_loop_probe.h"
#include "tiny_model.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include <nlohmann/json.hpp>

namespace {

bool loadModel(dice::WorkbenchState& state, const QString& folder) {
    QSignalSpy loaded(state.modelRunner(), &dice::ModelRunner::loaded);
    QSignalSpy failed(state.modelRunner(), &dice::ModelRunner::loadFailed);
    state.modelRunner()->load(folder, dice::ModelPlacement{}, 1);
    if (!QTest::qWaitFor([&] { return loaded.count() + failed.count() > 0; }, 60000))
        return false;
    if (failed.count() > 0)
        qWarning("%s", qPrintable(failed.first().at(0).toString()));
    return loaded.count() == 1;
}

} // namespace

class TestGenerateArea : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_model;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_model = makeModelFolder(m_dir);
    }

    void modelManagerDescribesAndLoads() {
        dice::WorkbenchState state;
        dice::ModelManager manager(state.modelRunner());
        QString error;
        QVERIFY(!manager.addFolder(m_dir.filePath("missing"), &error));
        QVERIFY(error.contains("config.json"));
        QVERIFY2(manager.addFolder(m_model, &error), qPrintable(error));
        QVERIFY(manager.knownFolders().contains(QDir::cleanPath(m_model)));
        const QString description = manager.description();
        QVERIFY2(description.contains("sdar"), qPrintable(description));
        QVERIFY(description.contains("Layers: 2, hidden size 64"));
        QSignalSpy loaded(state.modelRunner(), &dice::ModelRunner::loaded);
        manager.loadSelected();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QCOMPARE(state.modelName(), QStringLiteral("tiny"));
        QVERIFY(state.modelLoaded());
        QCOMPARE(state.modelRunner()->summary().config.numLayers, 2);
        state.modelRunner()->unload();
        QVERIFY(!state.modelLoaded());
    }

    void aBrokenFolderFailsWithAReason() {
        dice::WorkbenchState state;
        const QString broken = m_dir.filePath("broken");
        QDir().mkpath(broken);
        QFile::copy(m_model + "/config.json", broken + "/config.json");
        QFile::copy(m_model + "/tokenizer.json", broken + "/tokenizer.json");
        QFile truncated(broken + "/model.safetensors");
        QVERIFY(truncated.open(QIODevice::WriteOnly));
        truncated.write("\x10\x00\x00\x00\x00\x00\x00\x00{\"a\":", 13);
        truncated.close();
        QSignalSpy failed(state.modelRunner(), &dice::ModelRunner::loadFailed);
        state.modelRunner()->load(broken, dice::ModelPlacement{}, 1);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
        QVERIFY(failed.first().at(0).toString().contains("model.safetensors"));
        QVERIFY(!state.modelLoaded());
    }

    // The embedded model says what it was not trained on when it is asked it (a free request, a
    // KernelBench prompt, a KernelBench file to fill); another model says nothing of the kind.
    void theEmbeddedModelSaysWhatItWasNotTrainedOn() {
        dice::WorkbenchState state;
        state.setSuite(dice::loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks"));
        state.setCurrentTask(QStringLiteral("relu"));
        dice::GenerateArea generate(&state);
        dice::InfillArea infill(&state);
        QVERIFY(loadModel(state, DICE_SOURCE_DIR "/resources/models/dice-nano"));
        QVERIFY(state.embeddedModelLoaded());
        QVERIFY2(generate.scopeNote().isEmpty(), qPrintable(generate.scopeNote()));
        QComboBox* style = nullptr;
        for (auto* box : generate.findChildren<QComboBox*>())
            if (box->findText(QStringLiteral("KernelBench (Python)")) >= 0)
                style = box;
        QVERIFY(style);
        style->setCurrentIndex(style->findText(QStringLiteral("KernelBench (Python)")));
        QVERIFY2(generate.scopeNote().contains(QStringLiteral("not trained on KernelBench")),
                 qPrintable(generate.scopeNote()));
        generate.setFreePrompt(QStringLiteral("Write a fast matrix multiplication."));
        QVERIFY2(generate.scopeNote().contains(QStringLiteral("free request")),
                 qPrintable(generate.scopeNote()));

        infill.setSkeleton(QStringLiteral("import torch\n\nclass ModelNew(torch.nn.Module):\n"
                                          "    def forward(self, x):\n        {{hole:body}}\n"));
        QVERIFY2(infill.statusText().contains(QStringLiteral("not KernelBench code")),
                 qPrintable(infill.statusText()));
        const auto skeleton = dice::makeSkeleton(
            dice::readTextFile(DICE_SOURCE_DIR "/resources/solutions/relu.dice"));
        QVERIFY(skeleton);
        infill.setSkeleton(QString::fromStdString(skeleton->text));
        QVERIFY2(infill.statusText().contains(QStringLiteral("whole kernel bodies")),
                 qPrintable(infill.statusText()));

        QVERIFY(loadModel(state, m_model));
        QVERIFY(!state.embeddedModelLoaded());
        QVERIFY(generate.scopeNote().isEmpty());
        QCOMPARE(
            infill.statusText(),
            QStringLiteral("The model fills each hole using the rest of the file as context."));
    }

    // The default budget (the paper's 4,096 tokens) is more than the embedded model's 4,096
    // positions leave after a task's prompt: it is cut to fit, not refused.
    void theDefaultBudgetFitsTheEmbeddedModel() {
        dice::WorkbenchState state;
        state.setSuite(dice::loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks"));
        state.setCurrentTask(QStringLiteral("relu"));
        dice::GenerateArea area(&state);
        QVERIFY(loadModel(state, DICE_SOURCE_DIR "/resources/models/dice-nano"));
        QSignalSpy done(&area, &dice::GenerateArea::generationDone);
        area.startGeneration();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 120000);
        QVERIFY2(area.trace().finished(), qPrintable(area.statusText()));
        QVERIFY(area.trace().length() > 0);
    }

    // What a teacher sees first is what the embedded model's figures measure: dice generate's
    // and the Infill area's greedy dynamic decoding, with the drawn distribution's confidence.
    void theDefaultDecodingIsThatOfTheMeasuredFigures() {
        dice::WorkbenchState state;
        dice::GenerateArea area(&state);
        const dice::SamplerOptions o = area.samplerOptions();
        QCOMPARE(o.temperature, 0.0);
        QVERIFY(o.strategy == dice::RemaskStrategy::LowConfidenceDynamic);
        QCOMPARE(o.threshold, 0.9);
        QCOMPARE(o.blockLength, std::int64_t(4));
        QCOMPARE(o.steps, std::int64_t(4));
        QCOMPARE(o.rawConfidence, false);
    }

    void anEmptyPromptMessageGoesWhenATaskIsPicked() {
        dice::WorkbenchState state;
        QVERIFY(loadModel(state, m_model));
        state.setSuite(dice::loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks"));
        dice::GenerateArea area(&state);
        area.show();
        // No task yet: the prompt of the task mode is empty.
        area.startGeneration();
        QCOMPARE(area.statusText(), QStringLiteral("The prompt is empty."));
        state.setCurrentTask(QStringLiteral("relu"));
        QVERIFY2(area.statusText().startsWith(QStringLiteral("Model: ")),
                 qPrintable(area.statusText()));
    }

    void generationIsLiveAndReplayable() {
        dice::WorkbenchState state;
        QVERIFY(loadModel(state, m_model));
        dice::GenerateArea area(&state);
        area.resize(1200, 800);
        area.show();
        QVERIFY(area.generateEnabled());
        area.setFreePrompt("__global__ void add(");
        area.setCompareAutoregressive(true);
        area.setMaxTokens(256);

        // How long the event loop is ever kept waiting while the model runs on its own thread.
        EventLoopProbe probe;
        QSignalSpy done(&area, &dice::GenerateArea::generationDone);
        probe.start();
        area.startGeneration();
        QVERIFY(!area.generateEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 120000);
        probe.stop();
        const qint64 elapsed = probe.elapsedMs();
        qInfo("GUI thread: %d timer ticks, longest gap %lld ms during %lld ms of generation; "
              "canvas: %lld frames, %.1f frames/s",
              probe.ticks(), probe.longestGapMs(), elapsed, area.canvas()->framesPainted(),
              1000.0 * static_cast<double>(area.canvas()->framesPainted()) /
                  static_cast<double>(std::max<qint64>(1, elapsed)));
        // The GUI thread kept serving its timers while the model ran elsewhere.
        QVERIFY2(probe.ticks() >= 3, qPrintable(QString::number(probe.ticks())));

        const dice::DecodeTrace& trace = area.trace();
        QVERIFY(trace.stepCount() > 0);
        QVERIFY(trace.finished());
        // The canvas's final picture is the sampler's final state, cell for cell.
        const auto final = trace.cellsAfter(trace.stepCount());
        QCOMPARE(area.canvas()->step(), trace.stepCount());
        QCOMPARE(area.canvas()->cells().size(), final.size());
        for (std::size_t i = 0; i < final.size(); ++i) {
            QCOMPARE(area.canvas()->cells()[i].token, final[i].token);
            QCOMPARE(area.canvas()->cells()[i].committed, final[i].committed);
        }
        // Scrubbing back to step 1 shows exactly the cells that step committed.
        QCOMPARE(area.timeline()->maximum(), trace.stepCount());
        area.timeline()->setValue(1);
        QCOMPARE(area.canvas()->step(), 1);
        int committed = 0;
        for (const auto& cell : area.canvas()->cells())
            committed += cell.committed ? 1 : 0;
        QCOMPARE(committed, trace.figures().front().committed);

        // Autoregressive decoding of the same prompt: one pass per token at least, and the plots
        // hold both.
        const dice::DecodeTrace& ar = area.autoregressiveTrace();
        QVERIFY(ar.stepCount() > 0);
        QVERIFY(ar.forwardPasses() >= ar.length());
        QVERIFY(area.plots()->committedPlot()->graph(1)->visible());
        QCOMPARE(area.plots()->committedPlot()->graph(1)->dataCount(), ar.stepCount());
        QCOMPARE(area.plots()->committedPlot()->graph(0)->dataCount(), trace.stepCount());
        QVERIFY(area.figuresText().contains("tokens/s"));
        QVERIFY(area.figuresText().contains("Autoregressive"));
        // Left to right, one denoising pass makes one token: the comparison does not charge
        // autoregressive decoding for the cache's passes, which it shares with the next token's.
        QCOMPARE(ar.stepCount(), static_cast<int>(ar.length()));
        QVERIFY2(area.figuresText().contains("1.00 denoising passes per token"),
                 qPrintable(area.figuresText()));

        // The exported trace reads back to the same steps.
        const QString path = m_dir.filePath("trace.jsonl");
        QString error;
        QVERIFY2(area.exportTrace(path, &error), qPrintable(error));
        const auto back = dice::DecodeTrace::fromJsonLines(dice::readTextFile(path.toStdString()));
        QCOMPARE(back.stepCount(), trace.stepCount());
        QCOMPARE(back.length(), trace.length());
        QVERIFY(area.importTrace(path, &error));
        QCOMPARE(area.trace().stepCount(), back.stepCount());
    }

    void stopEndsAGeneration() {
        dice::WorkbenchState state;
        QVERIFY(loadModel(state, m_model));
        dice::GenerateArea area(&state);
        area.setFreePrompt("kernel");
        QSignalSpy done(&area, &dice::GenerateArea::generationDone);
        area.startGeneration();
        area.stopGeneration();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
        QVERIFY(area.generateEnabled());
        // The status says what happened, not only which model is loaded.
        QVERIFY2(area.statusText().startsWith(QStringLiteral("Stopped")),
                 qPrintable(area.statusText()));
    }

    // An answer to one task never goes on to Profile once another task is current; while the
    // answer is written, the rate so far is shown rather than zero.
    void aTaskChangeDropsTheAnswer() {
        dice::WorkbenchState state;
        QVERIFY(loadModel(state, m_model));
        state.setSuite(dice::loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks"));
        state.setCurrentTask(QStringLiteral("relu"));
        dice::GenerateArea area(&state);
        area.setMaxTokens(96);
        QSignalSpy done(&area, &dice::GenerateArea::generationDone);
        area.startGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(area.trace().stepCount() >= 2 || done.count() > 0, 60000);
        if (done.count() == 0) {
            QTest::qWait(100);
            const QString live = area.figuresText();
            QVERIFY2(!live.contains(QStringLiteral(" 0.0 tokens/s")), qPrintable(live));
        }
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 120000);
        QVERIFY(area.trace().stepCount() > 0);
        auto* toProfile = area.findChild<QPushButton*>(QStringLiteral("SendToProfile"));
        QVERIFY(toProfile);
        QVERIFY(toProfile->isEnabled());
        state.setCurrentTask(QStringLiteral("gelu"));
        QCOMPARE(area.trace().stepCount(), 0);
        QVERIFY(!toProfile->isEnabled());
        QCOMPARE(area.figuresText(), QStringLiteral("No generation yet."));
    }

    void infillFillsAcceptsRejectsAndUndoes() {
        dice::WorkbenchState state;
        state.setSuite(dice::loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks"));
        state.setCurrentTask("add");
        QVERIFY(loadModel(state, m_model));
        dice::InfillArea area(&state);
        area.show();
        // The task's skeleton: its solution with every kernel body a hole.
        const auto skeleton =
            dice::makeSkeleton(dice::readTextFile(DICE_SOURCE_DIR "/resources/solutions/add.dice"));
        QVERIFY(skeleton);
        QCOMPARE(area.text().toStdString(), skeleton->text);
        QCOMPARE(area.holeNames(), QStringList{"add_map"});
        QVERIFY(area.diffText().isEmpty());
        QVERIFY(area.promptFor("add_map").contains("{{hole:add_map}}"));

        QSignalSpy finished(&area, &dice::InfillArea::allFinished);
        area.fillAll();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QCOMPARE(area.holeState("add_map"), dice::InfillArea::HoleState::Proposed);
        QVERIFY(area.canvas()->cells().size() > 0);
        area.reject("add_map");
        QCOMPARE(area.holeState("add_map"), dice::InfillArea::HoleState::Empty);
        QCOMPARE(area.text().toStdString(), skeleton->text);

        area.fillHole("add_map");
        QTRY_COMPARE_WITH_TIMEOUT(area.holeState("add_map"), dice::InfillArea::HoleState::Proposed,
                                  120000);
        const QString proposal = area.proposal("add_map");
        // A proposal is in the diff before it is accepted, and holds no model token.
        QVERIFY(!proposal.contains(QStringLiteral("<|")));
        QVERIFY(area.diffText().contains(QStringLiteral("current with the proposals")));
        QVERIFY(area.accept("add_map"));
        QVERIFY(area.holeNames().isEmpty());
        QVERIFY(area.text().contains(proposal));
        QVERIFY(!area.diffText().isEmpty());
        // One undo step brings the hole back.
        area.editor()->undo();
        QCOMPARE(area.text().toStdString(), skeleton->text);
    }

    // The model serves one generation at a time, whichever area asks: a fill started while
    // Generate runs stops that generation, and each area hears only about its own.
    void anotherAreaSupersedesAGeneration() {
        dice::WorkbenchState state;
        state.setSuite(dice::loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks"));
        state.setCurrentTask("add");
        QVERIFY(loadModel(state, m_model));
        dice::GenerateArea generate(&state);
        dice::InfillArea infill(&state);
        QCOMPARE(infill.holeNames(), QStringList{"add_map"});
        generate.setFreePrompt("__global__ void add(");
        generate.setMaxTokens(4096);
        QSignalSpy generated(&generate, &dice::GenerateArea::generationDone);
        QSignalSpy filled(&infill, &dice::InfillArea::allFinished);
        generate.startGeneration();
        QTRY_VERIFY_WITH_TIMEOUT(generate.trace().stepCount() > 0, 60000);
        infill.fillAll();
        QTRY_COMPARE_WITH_TIMEOUT(generated.count(), 1, 60000);
        QVERIFY(generate.generateEnabled());
        const int steps = generate.trace().stepCount();
        QTRY_COMPARE_WITH_TIMEOUT(filled.count(), 1, 120000);
        QCOMPARE(infill.holeState("add_map"), dice::InfillArea::HoleState::Proposed);
        QVERIFY(infill.canvas()->cells().size() > 0);
        QCOMPARE(generate.trace().stepCount(), steps);
        QCOMPARE(generated.count(), 1);
    }

    void holesFromTheSelectionAndFindReplace() {
        dice::WorkbenchState state;
        dice::InfillArea area(&state);
        area.setSkeleton("__global__ void k(float* y) {\n    y[0] = 1.0f;\n}\n");
        QString error;
        QVERIFY(!area.makeHoleFromSelection("body", &error));
        area.editor()->setSelection(1, 4, 1, 16);
        QVERIFY2(area.makeHoleFromSelection("body", &error), qPrintable(error));
        QCOMPARE(area.text(),
                 QStringLiteral("__global__ void k(float* y) {\n    {{hole:body}}\n}\n"));
        QCOMPARE(area.holeNames(), QStringList{"body"});
        QVERIFY(area.diffText().contains("-    y[0] = 1.0f;"));
        area.editor()->undo();
        QVERIFY(area.holeNames().isEmpty());

        dice::FindBar bar(area.editor());
        bar.setFindText("y");
        bar.setReplaceText("out");
        bar.setCaseSensitive(true);
        QCOMPARE(bar.replaceAll(), 2);
        QVERIFY(area.text().contains("float* out"));
        area.editor()->undo();
        QVERIFY(area.text().contains("float* y"));
    }
};

QTEST_MAIN(TestGenerateArea)
#include "tst_generate_area.moc"
