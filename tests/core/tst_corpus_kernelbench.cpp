// SPDX-License-Identifier: GPL-3.0-or-later
// The corpus's tasks asked as imported KernelBench problems: every family's module text runs in
// Python and converts with the importer, the converted task takes what the corpus solution's
// forward takes, the solution passes the host part's dry run against the converted task, and the
// corpus keeps the converted tasks' parameter files and asks them for generation only.
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/data/corpus_kernelbench.h"
#include "core/data/corpus_writer.h"
#include "core/eval/native_evaluator.h"
#include "core/kernelbench/python_runtime.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>

using namespace dice;

class TestCorpusKernelBench : public QObject {
    Q_OBJECT
private:
    std::vector<SynthTask> m_tasks;
    std::vector<SynthTask> m_converted;
    KernelBenchStyleReport m_report;
    std::optional<TemporaryFolder> m_folder;

private Q_SLOTS:
    void initTestCase() {
        ::setenv("DICE_PYTHON_SCRIPTS", DICE_SOURCE_DIR "/resources/python", 1);
        if (!kernelbench::findPython(kernelbench::PythonNeed::Torch))
            QSKIP("no python3 with PyTorch (scripts/setup.sh installs python3-torch)");
        SynthOptions options;
        options.variantsPerFamily = 1;
        m_tasks = synthesizeTasks(options);
        m_folder.emplace("dice-corpus-kernelbench");
        KernelBenchStyleOptions style;
        style.directory = m_folder->path() + "/kernelbench-style";
        m_converted = kernelbenchStyleTasks(m_tasks, style, &m_report);
    }

    // Every family converts, but for what the PyTorch in hand cannot run on its CPU (a half
    // precision clamp on PyTorch 1.13): a module text that is not Python, or a reference the
    // importer's trace disagrees with, fails here.
    void everyFamilyConverts() {
        QCOMPARE(m_report.problems, m_tasks.size());
        for (const auto& [task, why] : m_report.skipped)
            QVERIFY2(why.find("not implemented for 'Half'") != std::string::npos,
                     (task + ": " + why).c_str());
        QCOMPARE(m_converted.size(), m_report.converted);
        QVERIFY(m_converted.size() + 3 >= m_tasks.size());
        // Numbered per level in the corpus's order, as KernelBench numbers its files.
        std::map<std::string, const SynthTask*> byFamily;
        std::map<std::string, int> number;
        std::map<int, int> count;
        for (const auto& t : m_tasks) {
            byFamily[t.family] = &t;
            number[t.family] = ++count[t.task.level];
        }
        for (const auto& t : m_converted) {
            QVERIFY(t.kernelbenchStyle);
            const SynthTask& original = *byFamily.at(t.family);
            QCOMPARE(t.solution, original.solution);
            QVERIFY(t.split == original.split);
            QCOMPARE(t.task.level, original.task.level);
            QCOMPARE(t.task.family, std::string("kernelbench"));
            const std::string title = "KernelBench L" + std::to_string(t.task.level) + " #" +
                                      std::to_string(number[t.family]) + ": ";
            QVERIFY2(t.task.title.rfind(title, 0) == 0, t.task.title.c_str());
            QCOMPARE(t.task.inputs.size(), original.task.inputs.size());
            QCOMPARE(t.task.parameters.size(), original.task.parameters.size());
        }
    }

    // The solution runs the converted task's host part on the CPU: the same arguments in the same
    // order, shapes it handles at the importer's small preset.
    void solutionsFitTheConvertedTasks() {
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        NativeEvaluator evaluator;
        for (const auto& t : m_converted) {
            const auto r = evaluator.compile(t.task, t.solution, t.task.name + ".dice", {});
            QVERIFY2(r.verdict == Verdict::NotRun, (t.task.name + ": " + r.message).c_str());
            QVERIFY2(!r.hasFlag("fallback"), t.task.name.c_str());
        }
    }

    void corpusKeepsParametersAndAsksForGenerationOnly() {
        std::vector<SynthTask> all = m_tasks;
        all.insert(all.end(), m_converted.begin(), m_converted.end());
        const std::string corpus = m_folder->path() + "/corpus";
        writeCorpus(corpus, all, {});
        std::set<std::string> converted;
        int withParameters = 0;
        for (const auto& t : m_converted) {
            converted.insert(t.task.name);
            const Task loaded = loadTask(corpus + "/tasks/" + t.task.name + ".json");
            QCOMPARE(taskFileText(loaded), taskFileText(t.task));
            for (const auto& p : loaded.parameters) {
                QVERIFY(p.init.kind == InitSpec::Kind::File);
                QVERIFY2(std::filesystem::is_regular_file(corpus + "/tasks/" + p.init.file),
                         p.init.file.c_str());
                ++withParameters;
            }
        }
        QVERIFY(withParameters > 0);
        std::map<std::string, std::set<std::string>> kinds;
        std::istringstream lines(readTextFile(corpus + "/corpus.jsonl"));
        for (std::string line; std::getline(lines, line);) {
            const auto e = corpusExampleFromJson(line);
            kinds[e.task].insert(e.kind);
            QCOMPARE(e.kernelbenchStyle, converted.count(e.task) == 1);
            QCOMPARE(toJsonLine(e), line);
        }
        QVERIFY_THROWS_EXCEPTION(
            Error, corpusExampleFromJson(R"({"id": "a", "task": "a", "split": "train", "kind":
                "generate", "prompt": "p", "answer": "a", "style": "python"})"));
        for (const auto& name : converted)
            QCOMPARE(kinds[name], (std::set<std::string>{"generate"}));
        QVERIFY(kinds["softmax_v0"].count("infill"));
        const auto manifest = nlohmann::json::parse(readTextFile(corpus + "/manifest.json"));
        int counted = 0;
        for (const auto& [split, count] : manifest.at("kernelbench_style").items())
            counted += count.get<int>();
        QCOMPARE(static_cast<std::size_t>(counted), m_converted.size());
    }

    // KernelBench's own surface, drawn per task: some problems named after their operator, the
    // docstrings worded as KernelBench's, the sizes of some named batch_size and dim; each still
    // converts, and asks for the corpus task's solution, which fits the converted task.
    void variedSurfaceKeepsTheSolutions() {
        SynthOptions options;
        options.variantsPerFamily = 8;
        // Families of float32 tasks only: PyTorch 1.13 cannot run some half precision maps on a
        // CPU.
        options.families = {"expr_tree_unary", "row_sum", "bias_activation"};
        const auto tasks = synthesizeTasks(options);
        TemporaryFolder folder("dice-corpus-kernelbench-surface");
        KernelBenchStyleOptions style;
        style.directory = folder.path() + "/kernelbench-style";
        style.varySurface = true;
        KernelBenchStyleReport report;
        const auto converted = kernelbenchStyleTasks(tasks, style, &report);
        QVERIFY2(report.skipped.empty(),
                 (report.skipped.empty() ? "" : report.skipped.front().second).c_str());
        QCOMPARE(converted.size(), tasks.size());
        int operatorNamed = 0, kernelbenchWorded = 0, renamedSizes = 0;
        for (std::size_t i = 0; i < tasks.size(); ++i) {
            const Task& t = converted[i].task;
            QCOMPARE(converted[i].solution, tasks[i].solution);
            QCOMPARE(t.inputs.size(), tasks[i].task.inputs.size());
            if (t.name.find(tasks[i].task.name) == std::string::npos)
                ++operatorNamed;
            if (t.description.rfind("Simple model that performs", 0) == 0 ||
                t.description.rfind("A model that computes", 0) == 0)
                ++kernelbenchWorded;
            for (const auto& in : t.inputs)
                for (const auto& d : in.shape)
                    renamedSizes += d.text == "batch_size" || d.text == "dim";
            // A description kept as the corpus wrote it keeps its prose ("2-D" stays).
            if (tasks[i].task.description.find("2-D") != std::string::npos &&
                t.description.rfind(tasks[i].task.description, 0) == 0)
                QVERIFY2(t.description.find("2-dim") == std::string::npos, t.name.c_str());
        }
        QVERIFY(operatorNamed > 0 && operatorNamed < static_cast<int>(tasks.size()));
        QVERIFY(kernelbenchWorded > 0 && kernelbenchWorded < static_cast<int>(tasks.size()));
        QVERIFY(renamedSizes > 0);
        if (!NvrtcCompiler::available())
            return;
        NativeEvaluator evaluator;
        for (const auto& t : converted) {
            const auto r = evaluator.compile(t.task, t.solution, t.task.name + ".dice", {});
            QVERIFY2(r.verdict == Verdict::NotRun, (t.task.name + ": " + r.message).c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestCorpusKernelBench)
#include "tst_corpus_kernelbench.moc"
