// SPDX-License-Identifier: GPL-3.0-or-later
// Curation of the synthetic corpus: the keep rule (verified, and fast enough measured or by the
// family's median), and the whole pass on a real synthetic corpus, which without a GPU verifies
// nothing and says why.
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/data/corpus_curator.h"
#include "core/data/corpus_synth.h"
#include "core/data/corpus_writer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

using namespace dice;

namespace {

CuratedTask task(const std::string& name, const std::string& family, Verdict verdict, bool timed,
                 double speedup) {
    CuratedTask t;
    t.task = name;
    t.family = family;
    t.verdict = verdict;
    t.timed = timed;
    t.speedup = speedup;
    return t;
}

} // namespace

class TestCorpusCurator : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void keepRule() {
        std::vector<CuratedTask> tasks = {
            task("relu_v0", "relu", Verdict::Correct, true, 2.5),
            task("relu_v1", "relu", Verdict::Correct, false, 0),   // relu's median: 2.5
            task("relu_v2", "relu", Verdict::Incorrect, false, 0), // never kept
            task("gelu_v0", "gelu", Verdict::Correct, true, 1.2),
            task("gelu_v1", "gelu", Verdict::Correct, true, 3.0), // measured: kept
            task("gelu_v2", "gelu", Verdict::Correct, false, 0),  // median 2.1: kept
            task("exp_v0", "exp", Verdict::Correct, false, 0),    // no measurement in family
            task("tanh_v0", "tanh", Verdict::Correct, true, 0.4),
            task("tanh_v1", "tanh", Verdict::Fallback, true, 5.0), // a fallback never counts
        };
        CurationReport report;
        decideKept(tasks, 2.0, report);
        std::vector<bool> kept;
        for (const auto& t : tasks)
            kept.push_back(t.kept);
        QCOMPARE(kept,
                 (std::vector<bool>{true, true, false, false, true, true, false, false, false}));
        QVERIFY(tasks[1].speedupEstimated);
        QCOMPARE(tasks[1].speedup, 2.5);
        QCOMPARE(tasks[5].speedup, 2.1);
        QCOMPARE(report.verified, 7);
        QCOMPARE(report.timed, 4);
        QCOMPARE(report.kept, 4);
        QCOMPARE(report.histogram, (std::vector<int>{1, 0, 1, 0, 1, 1}));
        // The paper's threshold is an option: at 1x every family with a measurement passes.
        decideKept(tasks, 1.0, report);
        QCOMPARE(report.kept, 5);
    }

    void wholePassWithoutGpu() {
        QTemporaryDir dir;
        SynthOptions options;
        options.variantsPerFamily = 1;
        const auto tasks = synthesizeTasks(options);
        const std::string corpus = dir.filePath("corpus").toStdString();
        writeCorpus(corpus, tasks, options);
        CurationOptions curation;
        curation.corpus = corpus;
        curation.output = dir.filePath("curated").toStdString();
        curation.workerExecutable = DICE_BIN_DIR "/dice-evald";
        // The correctness pass on a pool of two workers, the timed subset on one.
        curation.checkWorkersPerDevice = 2;
        const CurationReport report = curateCorpus(curation);
        QCOMPARE(report.tasks.size(), tasks.size());
        for (const auto& t : report.tasks)
            QVERIFY2(t.verdict == Verdict::NotRun || t.verdict == Verdict::Correct,
                     (t.task + ": " + t.message).c_str());
        if (report.verified == 0) {
            QVERIFY(report.note.find("nothing could be verified") != std::string::npos);
            QCOMPARE(report.kept, 0);
            QCOMPARE(readTextFile(curation.output + "/corpus.jsonl"), std::string());
        }
        const auto written =
            nlohmann::json::parse(readTextFile(curation.output + "/curation.json"));
        QCOMPARE(written["tasks_total"].get<std::size_t>(), tasks.size());
        QCOMPARE(written["threshold"].get<double>(), 2.0);
    }

    // The H200's curation of the embedded model's corpus (seed 1, 24 variants), re-applied at
    // another threshold without a GPU: the counts the GPU run would give at that threshold.
    void reusesTheH200Measurements() {
        QTemporaryDir dir;
        const std::string measured =
            DICE_SOURCE_DIR "/bench/results/nano-curation-nvidia-h200.json";
        const auto original = nlohmann::json::parse(readTextFile(measured))["curation"];
        // The corpus of that run: its families (later ones came after it), the same seed.
        SynthOptions options;
        options.seed = 1;
        options.variantsPerFamily = 24;
        std::set<std::string> keptThere;
        for (const auto& t : original["tasks"]) {
            const auto family = t["family"].get<std::string>();
            if (std::find(options.families.begin(), options.families.end(), family) ==
                options.families.end())
                options.families.push_back(family);
            if (t["kept"].get<bool>())
                keptThere.insert(t["task"].get<std::string>());
        }
        const auto tasks = synthesizeTasks(options);
        const std::string corpus = dir.filePath("corpus").toStdString();
        writeCorpus(corpus, tasks, options);
        CurationOptions curation;
        curation.corpus = corpus;
        curation.output = dir.filePath("curated").toStdString();
        curation.measurements = measured;
        curation.threshold = original["threshold"].get<double>();
        const CurationReport same = curateCorpus(curation);
        QCOMPARE(same.kept, original["kept"].get<int>());
        QCOMPARE(same.verified, original["verified"].get<int>());
        QCOMPARE(same.evaluationSeconds, original["evaluation_seconds"].get<double>());
        // The same tasks kept. Their examples are counted again: a solution of several kernels
        // now also gives the Infill area's in-order questions, which that run's corpus had not.
        std::set<std::string> keptHere;
        for (const auto& t : same.tasks)
            if (t.kept)
                keptHere.insert(t.task);
        QCOMPARE(keptHere, keptThere);
        QVERIFY(same.keptExamples >= original["kept_examples"].get<std::size_t>());
        // The re-thresholded report the GPU machine made from the same measurements.
        const auto again = nlohmann::json::parse(
            readTextFile(DICE_SOURCE_DIR
                         "/bench/results/nano-curation-rethreshold-nvidia-h200.json"))["curation"];
        curation.threshold = again["threshold"].get<double>();
        const CurationReport lower = curateCorpus(curation);
        QCOMPARE(lower.kept, again["kept"].get<int>());
        QVERIFY(lower.keptExamples >= again["kept_examples"].get<std::size_t>());
        // A lower threshold keeps a superset, a higher one a subset.
        curation.threshold = 2.0;
        const CurationReport higher = curateCorpus(curation);
        QVERIFY(lower.kept > same.kept);
        QVERIFY(higher.kept < same.kept);
        for (std::size_t i = 0; i < same.tasks.size(); ++i) {
            QVERIFY(!same.tasks[i].kept || lower.tasks[i].kept);
            QVERIFY(!higher.tasks[i].kept || same.tasks[i].kept);
        }
    }

    void measurementsOfAnotherCorpusAreRefused() {
        QTemporaryDir dir;
        SynthOptions options;
        options.variantsPerFamily = 1;
        const std::string corpus = dir.filePath("corpus").toStdString();
        writeCorpus(corpus, synthesizeTasks(options), options);
        const std::string report = dir.filePath("report.json").toStdString();
        CurationOptions curation;
        curation.corpus = corpus;
        curation.output = dir.filePath("curated").toStdString();
        curation.measurements = report;
        for (const std::string& text :
             {std::string("{\"tasks\": []}"), std::string("not json"),
              std::string("{\"curation\": {\"tasks\": [{\"task\": 3}]}}"),
              // Nested far too deep: copying its "curation" exhausted the stack.
              "{\"curation\": " + std::string(200000, '[') + std::string(200000, ']') + "}"}) {
            writeFileAtomically(report, text);
            try {
                curateCorpus(curation);
                QFAIL("no error");
            } catch (const FileError& e) {
                QVERIFY2(std::string(e.what()).find("report.json") != std::string::npos, e.what());
            }
        }
    }

    void badCorpusIsExplained() {
        QTemporaryDir dir;
        CurationOptions curation;
        curation.corpus = dir.filePath("nothing").toStdString();
        curation.output = dir.filePath("out").toStdString();
        try {
            curateCorpus(curation);
            QFAIL("no error");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("corpus.jsonl") != std::string::npos);
        }
    }
};

QTEST_GUILESS_MAIN(TestCorpusCurator)
#include "tst_corpus_curator.moc"
