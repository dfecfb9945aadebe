// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/file_util.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/eval/evaluator.h"
#include "core/tasks/task.h"

#include <QtTest>

#include <signal.h>

using namespace dice;

namespace {

std::string resource(const std::string& relative) {
    return readTextFile(std::string(DICE_SOURCE_DIR) + "/resources/" + relative);
}

Task task(const std::string& name) {
    return loadTask(std::string(DICE_SOURCE_DIR) + "/resources/tasks/" + name + ".json");
}

EvaluatorOptions workerOptions() {
    EvaluatorOptions o;
    o.workerExecutable = DICE_BIN_DIR "/dice-evald";
    return o;
}

} // namespace

class TestEvaluator : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
    }

    void helloReportsTheSandbox() {
        Evaluator evaluator(workerOptions());
        const auto hello = evaluator.hello();
        QVERIFY(hello.contains("sandbox"));
        const auto& s = hello["sandbox"];
        QCOMPARE(s["core_dumps"].get<std::string>(), std::string("off"));
        QVERIFY(s["no_new_privs"].get<bool>());
        const std::string network = s["network"].get<std::string>();
        QVERIFY2(network.rfind("isolated", 0) == 0 || network.rfind("not isolated", 0) == 0,
                 network.c_str());
        QVERIFY(hello["requests"].dump().find("evaluate") != std::string::npos);
    }

    void compilesAndEvaluatesThroughTheWorker() {
        Evaluator evaluator(workerOptions());
        std::string ptx;
        const auto compiled = evaluator.compile(task("softmax"), resource("solutions/softmax.dice"),
                                                "softmax.dice", {}, &ptx);
        QVERIFY2(compiled.verdict == Verdict::NotRun, compiled.message.c_str());
        QVERIFY(compiled.compiled);
        QVERIFY(ptx.find(".entry") != std::string::npos);
        QCOMPARE(compiled.workerState, std::string("ok"));

        const auto invalid =
            evaluator.evaluate(task("relu"), resource("hacks/host_print.dice"), "host_print.dice");
        QVERIFY2(invalid.verdict == Verdict::InvalidCandidate, invalid.message.c_str());
        QVERIFY2(invalid.message.find("print()") != std::string::npos, invalid.message.c_str());

        const auto fallback = evaluator.evaluate(
            task("relu"), resource("hacks/fallback_torch_ops.dice"), "fallback_torch_ops.dice");
        QVERIFY2(fallback.verdict == Verdict::Fallback, fallback.message.c_str());
        QVERIFY(fallback.hasFlag("fallback"));
        QVERIFY(!fallback.countsAsCorrect(true));
        QCOMPARE(evaluator.starts(), 1);
    }

    void spreadsJobsOverAPool() {
        EvaluatorOptions o = workerOptions();
        o.devices = {0, 0};
        Evaluator evaluator(o);
        QCOMPARE(evaluator.workerCount(), size_t(2));
        const Task relu = task("relu");
        const Task softmax = task("softmax");
        std::vector<Evaluator::Job> jobs;
        for (int i = 0; i < 4; ++i) {
            Evaluator::Job job;
            job.task = i % 2 ? &softmax : &relu;
            job.source = resource(i % 2 ? "solutions/softmax.dice" : "solutions/relu.dice");
            job.candidateName = i % 2 ? "softmax.dice" : "relu.dice";
            jobs.push_back(job);
        }
        int reported = 0;
        const auto results =
            evaluator.evaluateAll(jobs, [&](std::size_t, const EvaluationResult&) { ++reported; });
        QCOMPARE(reported, 4);
        QCOMPARE(results.size(), size_t(4));
        for (std::size_t i = 0; i < results.size(); ++i) {
            QCOMPARE(results[i].task, std::string(i % 2 ? "softmax" : "relu"));
            QVERIFY2(results[i].compiled, results[i].message.c_str());
        }
    }

    void hungWorkerBecomesATimeout() {
        EvaluatorOptions o = workerOptions();
        o.idleTimeoutMs = 1500;
        o.compileTimeoutMs = 1500;
        Evaluator evaluator(o);
        const auto pid = evaluator.hello()["pid"].get<long long>();
        ::kill(static_cast<pid_t>(pid), SIGSTOP);
        const auto r =
            evaluator.evaluate(task("relu"), resource("solutions/relu.dice"), "relu.dice");
        QVERIFY2(r.verdict == Verdict::Timeout, r.message.c_str());
        QCOMPARE(r.workerState, std::string("restarted after a timeout"));
        const auto next =
            evaluator.compile(task("relu"), resource("solutions/relu.dice"), "relu.dice");
        QVERIFY2(next.compiled, next.message.c_str());
        QCOMPARE(evaluator.starts(), 2);
    }

    void crashedWorkerBecomesARuntimeError() {
        Evaluator evaluator(workerOptions());
        const auto pid = evaluator.hello()["pid"].get<long long>();
        ::kill(static_cast<pid_t>(pid), SIGKILL);
        const auto r =
            evaluator.evaluate(task("relu"), resource("solutions/relu.dice"), "relu.dice");
        QVERIFY2(r.verdict == Verdict::RuntimeError, r.message.c_str());
        QCOMPARE(r.workerState, std::string("restarted after a crash"));
        const auto next =
            evaluator.evaluate(task("relu"), resource("solutions/relu.dice"), "relu.dice");
        QVERIFY2(next.compiled, next.message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestEvaluator)
#include "tst_evaluator.moc"
