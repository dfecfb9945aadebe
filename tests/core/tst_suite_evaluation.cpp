// SPDX-License-Identifier: GPL-3.0-or-later
// A suite evaluated with a folder of candidates. Without a GPU the built-in suite's hand-written
// solutions compile and are not run, and the table is the one `dice eval --suite` printed for
// them before the suite's evaluation moved out of the CLI into core
// (tests/fixtures/suite_evaluation); repeats, missing candidates and the table's layout.
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/suite/suite_evaluation.h"
#include "core/tasks/task.h"
#include "core/worker/evaluator.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace dice;

namespace {

EvaluatorOptions workerOptions() {
    EvaluatorOptions o;
    o.workerExecutable = DICE_BIN_DIR "/dice-evald";
    return o;
}

QByteArray firstDifference(const std::string& actual, const std::string& expected) {
    std::size_t i = 0;
    while (i < actual.size() && i < expected.size() && actual[i] == expected[i])
        ++i;
    const auto around = [i](const std::string& s) {
        return QByteArray::fromStdString(s.substr(std::min(i, s.size()), 60))
            .toPercentEncoding(" ");
    };
    return "differs at byte " + QByteArray::number(qulonglong(i)) + ": got \"" + around(actual) +
           "\", expected \"" + around(expected) + "\"";
}

EvaluationResult result(const std::string& task, Verdict verdict, double speedup,
                        std::vector<std::string> flags = {}) {
    EvaluationResult r;
    r.task = task;
    r.verdict = verdict;
    r.compiled = verdict != Verdict::CompileError;
    r.speedup = speedup;
    TrialResult t;
    t.passed = verdict == Verdict::Correct || verdict == Verdict::Fallback;
    r.trials.push_back(t);
    for (auto& code : flags)
        r.flags.push_back({code, "a flag"});
    return r;
}

} // namespace

class TestSuiteEvaluation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        // The workers inherit this: the kernels compile and are never run, on any machine.
        qputenv("CUDA_VISIBLE_DEVICES", "");
    }

    void builtinSolutionsWithoutAGpu() {
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        const TaskSuite suite = loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks");
        QVERIFY(suite.problems.empty());
        Evaluator evaluator(workerOptions());
        SuiteEvaluationOptions options;
        options.candidateDirectory = DICE_SOURCE_DIR "/resources/solutions";
        options.eval.preset = "small";
        std::vector<std::size_t> finished;
        std::size_t total = 0;
        const SuiteEvaluation evaluation =
            evaluateSuite(evaluator, suite, options,
                          [&](const EvaluationResult&, std::size_t done, std::size_t all) {
                              finished.push_back(done);
                              total = all;
                          });
        QCOMPARE(evaluation.runs.size(), suite.tasks.size());
        QCOMPARE(total, suite.tasks.size());
        QCOMPARE(finished.size(), suite.tasks.size());
        QCOMPARE(finished.back(), suite.tasks.size());
        QVERIFY(evaluation.missing().empty());
        QCOMPARE(evaluation.outcomes.size(), suite.tasks.size());
        for (std::size_t i = 0; i < suite.tasks.size(); ++i) {
            const auto& outcome = evaluation.outcomes[i];
            QCOMPARE(outcome.task, suite.tasks[i].name);
            QVERIFY(outcome.result);
            const EvaluationResult& r = *outcome.result;
            QVERIFY2(r.compiled, (r.task + ": " + r.message).c_str());
            QVERIFY2(r.verdict == Verdict::NotRun, (r.task + ": " + r.message).c_str());
            QVERIFY2(r.message.rfind("compiled, not run: ", 0) == 0, r.message.c_str());
            QCOMPARE(r.preset, std::string("small"));
        }
        const std::string actual = formatSuiteEvaluation(evaluation);
        const std::string expected =
            readTextFile(DICE_TEST_FIXTURES "/suite_evaluation/builtin_small_no_gpu.txt");
        QVERIFY2(actual == expected, firstDifference(actual, expected));
    }

    void repeatsAndMissingCandidates() {
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        QTemporaryDir dir;
        QDir root(dir.path());
        root.mkdir("tasks");
        root.mkdir("candidates");
        for (const char* t : {"relu", "softmax", "mlp"})
            QVERIFY(QFile::copy(QString(DICE_SOURCE_DIR "/resources/tasks/%1.json").arg(t),
                                dir.filePath(QString("tasks/%1.json").arg(t))));
        for (const char* t : {"relu", "mlp"})
            QVERIFY(QFile::copy(QString(DICE_SOURCE_DIR "/resources/solutions/%1.dice").arg(t),
                                dir.filePath(QString("candidates/%1.dice").arg(t))));
        // Only TASK.dice is a task's candidate.
        QVERIFY(QFile::copy(DICE_SOURCE_DIR "/resources/solutions/softmax.dice",
                            dir.filePath("candidates/softmax.txt")));
        const TaskSuite suite = loadTaskSuite(dir.filePath("tasks").toStdString());
        QCOMPARE(suite.tasks.size(), std::size_t(3));
        Evaluator evaluator(workerOptions());
        SuiteEvaluationOptions options;
        options.candidateDirectory = dir.filePath("candidates").toStdString();
        options.eval.preset = "small";
        options.repeats = 2;
        std::size_t calls = 0;
        std::size_t total = 0;
        const SuiteEvaluation evaluation = evaluateSuite(
            evaluator, suite, options, [&](const EvaluationResult&, std::size_t, std::size_t all) {
                ++calls;
                total = all;
            });
        QCOMPARE(calls, std::size_t(4));
        QCOMPARE(total, std::size_t(4));
        QCOMPARE(evaluation.missing(), std::vector<std::string>{"softmax"});
        QCOMPARE(evaluation.runs.size(), std::size_t(4));
        const std::vector<std::pair<std::string, int>> expected = {
            {"relu", 0}, {"mlp", 0}, {"relu", 1}, {"mlp", 1}};
        for (std::size_t k = 0; k < evaluation.runs.size(); ++k) {
            const SuiteRun& run = evaluation.runs[k];
            QCOMPARE(suite.tasks[run.task].name, expected[k].first);
            QCOMPARE(run.result.task, expected[k].first);
            QCOMPARE(run.round, expected[k].second);
            QCOMPARE(run.source,
                     readTextFile(options.candidateDirectory + "/" + expected[k].first + ".dice"));
        }
        // The metrics count the first round, and the task without a candidate as a failure.
        const MetricsRow& all = evaluation.metrics.raw.back();
        QCOMPARE(all.scope, std::string("all"));
        QCOMPARE(all.tasks, 3);
        QCOMPARE(all.compiled, 2);

        options.repeats = 0;
        QVERIFY_THROWS_EXCEPTION(Error, evaluateSuite(evaluator, suite, options));
    }

    // The table for results worked out by hand: the layout `dice eval --suite` printed, and the
    // paper's metrics of tst_metrics's example (fast_p counts speedups above p, geometric means
    // over the correct results and over those faster than the reference).
    void tableLayout() {
        SuiteEvaluation evaluation;
        evaluation.outcomes = {
            {"a", 1, result("a", Verdict::Correct, 2.0, {"excessive_speedup"})},
            {"b", 1, result("b", Verdict::Correct, 0.5)},
            {"c", 1, result("c", Verdict::CompileError, 0)},
            {"d", 1, std::nullopt},
            {"e", 2, result("e", Verdict::Fallback, 4.0, {"fallback", "torch_op"})},
            {"f", 2, result("f", Verdict::Correct, 1.2)},
        };
        evaluation.metrics = computeMetrics(evaluation.outcomes);
        const std::string expected =
            "task                        level  verdict           speedup   flags\n"
            "a                           1      correct           2.00x     excessive_speedup\n"
            "b                           1      correct           0.50x     \n"
            "c                           1      compile_error     -         \n"
            "d                           1      no candidate\n"
            "e                           2      fallback          4.00x     fallback,torch_op\n"
            "f                           2      correct           1.20x     \n"
            "\n"
            "raw (fallbacks count)\n"
            "scope     tasks compile%  exec%   fast_0 fast_0.5 fast_0.8   fast_1 fast_1.5   "
            "fast_2 geo(corr) geo(fast)\n"
            "level 1       4     50.0   50.0     50.0     25.0     25.0     25.0     25.0      "
            "0.0     1.00x     2.00x\n"
            "level 2       2    100.0  100.0    100.0    100.0    100.0    100.0     50.0     "
            "50.0     2.19x     2.19x\n"
            "all           6     66.7   66.7     66.7     50.0     50.0     50.0     33.3     "
            "16.7     1.48x     2.13x\n"
            "\n"
            "strict (fallbacks never count)\n"
            "scope     tasks compile%  exec%   fast_0 fast_0.5 fast_0.8   fast_1 fast_1.5   "
            "fast_2 geo(corr) geo(fast)\n"
            "level 1       4     50.0   50.0     50.0     25.0     25.0     25.0     25.0      "
            "0.0     1.00x     2.00x\n"
            "level 2       2    100.0   50.0     50.0     50.0     50.0     50.0      0.0      "
            "0.0     1.20x     1.20x\n"
            "all           6     66.7   50.0     50.0     33.3     33.3     33.3     16.7      "
            "0.0     1.06x     1.55x\n";
        const std::string actual = formatSuiteEvaluation(evaluation);
        QVERIFY2(actual == expected, firstDifference(actual, expected));
        QCOMPARE(evaluation.missing(), std::vector<std::string>{"d"});
    }
};

QTEST_GUILESS_MAIN(TestSuiteEvaluation)
#include "tst_suite_evaluation.moc"
