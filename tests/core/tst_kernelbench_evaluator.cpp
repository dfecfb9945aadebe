// SPDX-License-Identifier: GPL-3.0-or-later
// The Python evaluator of the KernelBench dialect, as far as it works without a GPU: the static
// checks on known reward hacks, the worker protocol, the verdicts it gives where PyTorch cannot
// run candidates, and the client's handling of timeouts and dead workers.
#include "core/common/child_process.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/kernelbench/python_evaluator.h"
#include "core/kernelbench/python_runtime.h"
#include "core/worker/worker_protocol.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <signal.h>

#include <cstdlib>
#include <map>
#include <mutex>

using namespace dice::kernelbench;

namespace {

const std::string kCandidates = DICE_TEST_FIXTURES "/kernelbench/candidates/";
const std::string kScripts = DICE_SOURCE_DIR "/resources/python";

std::string candidate(const std::string& name) {
    return dice::readTextFile(kCandidates + name);
}

const std::string kReluProblem = R"(import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        return torch.relu(x)

batch_size = 16
dim = 1024

def get_inputs():
    return [torch.rand(batch_size, dim)]

def get_init_inputs():
    return []
)";

std::vector<std::string> codes(const std::vector<StaticFinding>& findings,
                               const std::string& severity = {}) {
    std::vector<std::string> out;
    for (const auto& f : findings)
        if (severity.empty() || f.severity == severity)
            out.push_back(f.code);
    return out;
}

bool contains(const std::vector<std::string>& list, const std::string& value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

} // namespace

class TestKernelBenchEvaluator : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        ::setenv("DICE_PYTHON_SCRIPTS", kScripts.c_str(), 1);
        if (pythonCandidates().empty())
            QSKIP("no python3 on this machine");
    }

    void goodCandidateHasNoFindings() {
        PythonEvaluator evaluator;
        const auto findings = evaluator.check(candidate("good_relu.py"));
        QVERIFY2(findings.empty(), findings.empty() ? "" : findings[0].message.c_str());
    }

    void knownHacksAreFound_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("severity");
        QTest::newRow("try/except fallback") << "try_except_fallback.py"
                                             << "try_except"
                                             << "error";
        QTest::newRow("inheritance bypass") << "inherits_model.py"
                                            << "inherits_reference"
                                            << "error";
        QTest::newRow("pass in ModelNew") << "inherits_model.py"
                                          << "pass_statement"
                                          << "error";
        QTest::newRow("torch operator in forward") << "torch_fallback.py"
                                                   << "fallback"
                                                   << "fallback";
        QTest::newRow("kernel never called") << "torch_fallback.py"
                                             << "extension_unused"
                                             << "fallback";
        QTest::newRow("nn layer in forward") << "nn_layer_fallback.py"
                                             << "fallback"
                                             << "fallback";
        QTest::newRow("side stream") << "side_stream.py"
                                     << "cuda_stream"
                                     << "error";
        QTest::newRow("stream from the pool") << "pool_stream.py"
                                              << "cuda_stream"
                                              << "error";
        QTest::newRow("threads") << "thread_import.py"
                                 << "threads"
                                 << "error";
        QTest::newRow("timer patching") << "timer_patch.py"
                                        << "timer_patch"
                                        << "error";
        QTest::newRow("lazy tensor subclass") << "lazy_tensor.py"
                                              << "tensor_subclass"
                                              << "error";
        QTest::newRow("no kernel, only a comment") << "no_kernel.py"
                                                   << "no_cuda_kernel"
                                                   << "error";
        QTest::newRow("hidden code") << "dynamic_code.py"
                                     << "dynamic_code"
                                     << "error";
        QTest::newRow("half precision") << "precision_half.py"
                                        << "precision_downgrade"
                                        << "warning";
        QTest::newRow("syntax error") << "syntax_error.py"
                                      << "syntax_error"
                                      << "compile";
    }

    void knownHacksAreFound() {
        QFETCH(QString, file);
        QFETCH(QString, code);
        QFETCH(QString, severity);
        PythonEvaluator evaluator;
        const auto findings = evaluator.check(candidate(file.toStdString()));
        QVERIFY2(contains(codes(findings, severity.toStdString()), code.toStdString()),
                 qPrintable(file + " lacks " + code));
        for (const auto& f : findings)
            QVERIFY2(!f.message.empty(), f.code.c_str());
    }

    void warningsDoNotBlock() {
        PythonEvaluator evaluator;
        const auto findings = evaluator.check(candidate("precision_half.py"));
        QVERIFY(codes(findings, "error").empty());
        QVERIFY(codes(findings, "fallback").empty());
    }

    void commentsNeitherHideNorFake() {
        PythonEvaluator evaluator;
        // A try in a comment is no try; a __global__ in a CUDA comment is no kernel.
        std::string source = candidate("good_relu.py");
        source.insert(0, "# try:\n#     pass\n# except Exception:\n");
        QVERIFY(evaluator.check(source).empty());
        QVERIFY(contains(codes(evaluator.check(candidate("no_kernel.py"))), "no_cuda_kernel"));
        // The message states the rule; it does not claim that nothing but PyTorch runs (an
        // answer may call cuBLAS or cuDNN from host code).
        for (const auto& f : evaluator.check(candidate("no_kernel.py")))
            if (f.code == "no_cuda_kernel") {
                QVERIFY2(f.message.find("must write at least one kernel") != std::string::npos,
                         f.message.c_str());
                QVERIFY(f.message.find("except PyTorch") == std::string::npos);
            }
    }

    void hackCandidatesAreNotRun() {
        // The static checks decide before anything is imported: no GPU needed for the verdict.
        PythonEvaluator evaluator;
        KernelBenchJob job{"relu", 1, kReluProblem, candidate("timer_patch.py")};
        const auto result = evaluator.evaluate(job, KernelBenchOptions{});
        QCOMPARE(dice::toString(result.verdict), std::string("invalid_candidate"));
        QVERIFY(result.hasFlag("timer_patch"));
        QVERIFY(!result.compiled);
        QCOMPARE(result.dialect, std::string("kernelbench"));
        QCOMPARE(result.task, std::string("relu"));
        const auto syntax = evaluator.evaluate(
            {"relu", 1, kReluProblem, candidate("syntax_error.py")}, KernelBenchOptions{});
        QCOMPARE(dice::toString(syntax.verdict), std::string("compile_error"));
        QVERIFY(!syntax.diagnostics.empty());
        QCOMPARE(syntax.diagnostics[0].line, 41);
    }

    void withoutCudaTheVerdictSaysWhatIsMissing() {
        PythonEvaluator evaluator;
        if (evaluator.canEvaluate())
            QSKIP("this machine can run KernelBench candidates (the GPU check covers them)");
        const auto result = evaluator.evaluate({"relu", 1, kReluProblem, candidate("good_relu.py")},
                                               KernelBenchOptions{});
        QCOMPARE(dice::toString(result.verdict), std::string("not_run"));
        QVERIFY2(result.message.find("cannot run here") != std::string::npos,
                 result.message.c_str());
        const std::string reason = evaluator.unavailableReason();
        QVERIFY(!reason.empty());
        QVERIFY2(reason.find("CUDA") != std::string::npos ||
                     reason.find("PyTorch") != std::string::npos ||
                     reason.find("nvcc") != std::string::npos,
                 reason.c_str());
        QVERIFY(result.wallMs > 0);
    }

    void workerSpeaksTheProtocol() {
        const auto python = findPython(PythonNeed::Any);
        QVERIFY(python.has_value());
        // Requests written straight to the worker: a line that is not JSON, a wrong version,
        // hello, an unknown type, a check without source, shutdown.
        const std::string script = kScripts + "/kernelbench_worker.py";
        const std::string lines =
            "garbage\n"
            R"({"protocol":"dice-evald","version":2,"id":1,"type":"hello"})"
            "\n"
            R"({"protocol":"dice-evald","version":1,"id":2,"type":"hello"})"
            "\n"
            R"({"protocol":"dice-evald","version":1,"id":3,"type":"frobnicate"})"
            "\n"
            R"({"protocol":"dice-evald","version":1,"id":4,"type":"check"})"
            "\n"
            R"({"protocol":"dice-evald","version":1,"id":5,"type":"shutdown"})"
            "\n";
        dice::ChildRunOptions options;
        options.input = lines;
        options.timeoutMs = 60000;
        const auto run = dice::runChild({{python->executable, script}}, options);
        QVERIFY2(run.ok(), run.err.c_str());
        std::vector<nlohmann::json> replies;
        std::istringstream out(run.out);
        for (std::string line; std::getline(out, line);)
            replies.push_back(dice::protocol::parseReply(line).body);
        QCOMPARE(replies.size(), size_t(6));
        QCOMPARE(replies[0]["id"].get<int>(), -1);
        QCOMPARE(replies[0]["type"].get<std::string>(), std::string("error"));
        QVERIFY(replies[1]["message"].get<std::string>().find("version 2") != std::string::npos);
        QCOMPARE(replies[2]["type"].get<std::string>(), std::string("result"));
        QCOMPARE(replies[2]["worker"]["dialect"].get<std::string>(), std::string("kernelbench"));
        QCOMPARE(replies[3]["type"].get<std::string>(), std::string("error"));
        QCOMPARE(replies[4]["type"].get<std::string>(), std::string("error"));
        QVERIFY(replies[4]["message"].get<std::string>().find("source") != std::string::npos);
        QCOMPARE(replies[5]["shutdown"].get<bool>(), true);
    }

    void evaluateNeedsTheProblemSource() {
        PythonEvaluator evaluator;
        try {
            evaluator.evaluate({"empty", 1, "", candidate("good_relu.py")}, KernelBenchOptions{});
            QFAIL("accepted an empty problem");
        } catch (const dice::Error& e) {
            QVERIFY2(std::string(e.what()).find("reference") != std::string::npos, e.what());
        }
    }

    void timeoutRestartsTheWorker() {
        PythonEvaluator evaluator;
        KernelBenchOptions options;
        options.timeoutMs = 1;
        const auto late =
            evaluator.evaluate({"relu", 1, kReluProblem, candidate("good_relu.py")}, options);
        QCOMPARE(dice::toString(late.verdict), std::string("timeout"));
        QVERIFY2(late.workerState == dice::WorkerState::RestartedAfterTimeout,
                 dice::toString(late.workerState).c_str());
        options.timeoutMs = 120000;
        const auto next =
            evaluator.evaluate({"relu", 1, kReluProblem, candidate("timer_patch.py")}, options);
        QCOMPARE(dice::toString(next.verdict), std::string("invalid_candidate"));
        QCOMPARE(evaluator.workerStarts(), 2);
    }

    void idleWorkerThatDiedIsReplaced() {
        PythonEvaluator evaluator;
        QVERIFY(evaluator.check(candidate("good_relu.py")).empty());
        const int pid = evaluator.workerProcessId();
        QVERIFY(pid > 0);
        ::kill(pid, SIGKILL);
        QTest::qWait(200);
        // The worker died while idle: a fresh one judges the candidate, as in the native
        // dialect, and the death costs the candidate nothing.
        const auto result = evaluator.evaluate({"relu", 1, kReluProblem, candidate("good_relu.py")},
                                               KernelBenchOptions{});
        QVERIFY2(result.verdict != dice::Verdict::RuntimeError, result.message.c_str());
        QVERIFY2(result.message.find("signal 9") == std::string::npos, result.message.c_str());
        QVERIFY(evaluator.workerProcessId() != pid);
        QCOMPARE(evaluator.workerStarts(), 2);
        const auto next = evaluator.evaluate(
            {"relu", 1, kReluProblem, candidate("thread_import.py")}, KernelBenchOptions{});
        QCOMPARE(dice::toString(next.verdict), std::string("invalid_candidate"));
    }

    // The reward service judges each answer as soon as its build ends: prebuild says so for
    // every answer once, from its thread, with what it returns for that answer.
    void prebuildReportsEachBuildAsItEnds() {
        PythonEvaluator evaluator;
        const QTemporaryDir builds;
        const std::vector<std::string> sources = {
            candidate("good_relu.py"), candidate("timer_patch.py"), "this is not Python ("};
        std::mutex mutex;
        std::map<std::size_t, std::pair<int, std::string>> heard;
        const auto built =
            evaluator.prebuild(sources, builds.path().toStdString(), 2, 120000,
                               [&](std::size_t i, const PythonEvaluator::Prebuilt& b) {
                                   std::lock_guard<std::mutex> lock(mutex);
                                   heard[i].first += 1;
                                   heard[i].second = b.message;
                               });
        QCOMPARE(built.size(), sources.size());
        QCOMPARE(heard.size(), sources.size());
        for (std::size_t i = 0; i < sources.size(); ++i) {
            QCOMPARE(heard[i].first, 1);
            QCOMPARE(heard[i].second, built[i].message);
        }
        QVERIFY(!built[2].ok);
    }

    void missingInterpreterIsExplained() {
        PythonEvaluator::Config config;
        config.python = "/nonexistent/python3";
        PythonEvaluator evaluator(config);
        QVERIFY(!evaluator.canEvaluate());
        const auto result = evaluator.evaluate({"relu", 1, kReluProblem, candidate("good_relu.py")},
                                               KernelBenchOptions{});
        QCOMPARE(dice::toString(result.verdict), std::string("not_run"));
        QVERIFY2(result.message.find("/nonexistent/python3") != std::string::npos,
                 result.message.c_str());
        std::vector<PythonInfo> none;
        QVERIFY(explainMissingPython(none, PythonNeed::CudaTorch).find("DICE_PYTHON") !=
                std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestKernelBenchEvaluator)
#include "tst_kernelbench_evaluator.moc"
