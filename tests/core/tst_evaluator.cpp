// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/file_util.h"
#include "core/common/sanitizer.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/eval/native_evaluator.h"
#include "core/tasks/task.h"
#include "core/worker/evaluation_handlers.h"
#include "core/worker/evaluation_request.h"
#include "core/worker/evaluator.h"
#include "core/worker/worker_protocol.h"
#include "core/worker/worker_service.h"

#include "process_state.h"
#include <QProcess>
#include <QTemporaryDir>

#include <QtTest>

#include <signal.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <thread>

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
        // The workers inherit this: kernels compile and are never run, on any machine.
        qputenv("CUDA_VISIBLE_DEVICES", "");
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
    }

    // A batch request's pool sizes come from the owner; a worker refuses ones out of range
    // before it compiles anything.
    void batchRequestRejectsBadCompilePools() {
        NativeEvaluator evaluator;
        WorkerService service;
        addEvaluationHandlers(service, evaluator);
        const nlohmann::json item = toJson(EvaluationRequest{
            task("relu"), resource("solutions/relu.dice"), "relu.dice", EvalOptions()});
        const std::vector<std::pair<nlohmann::json, std::string>> bad = {
            {{{"lookahead", 0}}, "\"lookahead\" must be a whole number from 1 to 4096"},
            {{{"lookahead", 4097}}, "\"lookahead\" must be a whole number from 1 to 4096"},
            {{{"lookahead", "8"}}, "\"lookahead\" must be a whole number from 1 to 4096"},
            {{{"compile_threads", 65}}, "\"compile_threads\" must be a whole number from 1 to 64"},
        };
        int id = 1;
        for (const auto& [fields, message] : bad) {
            nlohmann::json request = protocol::makeRequest(id++, "evaluate_batch");
            request["items"] = nlohmann::json::array({item});
            for (const auto& [key, value] : fields.items())
                request[key] = value;
            std::vector<nlohmann::json> out;
            service.handleLine(request.dump(), [&](const nlohmann::json& m) { out.push_back(m); });
            QCOMPARE(out.size(), std::size_t(1));
            QCOMPARE(out[0]["type"].get<std::string>(), std::string("error"));
            const std::string said = out[0]["message"].get<std::string>();
            QVERIFY2(said.find(message) != std::string::npos, said.c_str());
        }
    }

    void workersOnOneGpuSplitItsMemory() {
        // Each worker's caching allocator keeps what it used: four on one GPU at the default
        // share each would ask for 3.2 times its memory (out-of-memory verdicts seen on an H200).
        EvaluatorOptions options = workerOptions();
        options.devices = {0, 0, 0, 1};
        Evaluator evaluator(options);
        QCOMPARE(evaluator.hello(0)["gpu_memory_share"].get<double>(),
                 NativeEvaluator::kDefaultGpuMemoryShare / 3);
        QCOMPARE(evaluator.hello(2)["gpu_memory_share"].get<double>(),
                 NativeEvaluator::kDefaultGpuMemoryShare / 3);
        QCOMPARE(evaluator.hello(3)["gpu_memory_share"].get<double>(),
                 NativeEvaluator::kDefaultGpuMemoryShare);
    }

    void workersTakeTheCpuThreadsTheyAreGiven() {
        EvaluatorOptions options = workerOptions();
        options.devices = {0, 0};
        options.cpuThreadsPerWorker = 1;
        Evaluator evaluator(options);
        QCOMPARE(evaluator.hello(0)["cpu_threads"].get<int>(), 1);
        QCOMPARE(evaluator.hello(1)["cpu_threads"].get<int>(), 1);
        // Without a count, LibTorch keeps its own (at least one).
        Evaluator plain(workerOptions());
        QVERIFY(plain.hello(0)["cpu_threads"].get<int>() >= 1);
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
        QVERIFY2(compiled.workerState == WorkerState::Ok, toString(compiled.workerState).c_str());

        const auto invalid =
            evaluator.evaluate(task("relu"), resource("hacks/host_print.dice"), "host_print.dice");
        QVERIFY2(invalid.verdict == Verdict::InvalidCandidate, invalid.message.c_str());
        QVERIFY2(invalid.message.find("print()") != std::string::npos, invalid.message.c_str());

        const auto fallback = evaluator.evaluate(
            task("relu"), resource("hacks/fallback_torch_ops.dice"), "fallback_torch_ops.dice");
        QVERIFY2(fallback.verdict == Verdict::InvalidCandidate, fallback.message.c_str());
        QVERIFY(fallback.hasFlag("fallback"));
        QVERIFY(!fallback.countsAsCorrect(true));
        QCOMPARE(evaluator.starts(), 1);
    }

    // Host code that grows a list past the worker's memory cap (RLIMIT_DATA) fails inside the
    // request: runtime_error, and the same worker serves the next candidate.
    void workerCapsItsMemory() {
        if (dice::kAddressSanitizer)
            QSKIP("an AddressSanitizer build's worker runs without a data limit");
        qputenv("DICE_EVALD_MEMORY_LIMIT", "2G");
        Evaluator evaluator(workerOptions());
        const auto hello = evaluator.hello();
        qunsetenv("DICE_EVALD_MEMORY_LIMIT");
        QCOMPARE(hello["memory"]["data_limit_bytes"].get<long long>(), 2LL << 30);
        QCOMPARE(hello["memory"]["source"].get<std::string>(),
                 std::string("DICE_EVALD_MEMORY_LIMIT"));
        const auto bomb = evaluator.compile(task("relu"), resource("hacks/host_memory_bomb.dice"),
                                            "host_memory_bomb.dice");
        QVERIFY2(bomb.verdict == Verdict::RuntimeError, bomb.message.c_str());
        QVERIFY2(bomb.workerState == WorkerState::Ok, toString(bomb.workerState).c_str());
        const auto next =
            evaluator.compile(task("relu"), resource("solutions/relu.dice"), "relu.dice");
        QVERIFY2(next.verdict == Verdict::NotRun, next.message.c_str());
        QCOMPARE(evaluator.starts(), 1);
    }

    // `dice eval` without a GPU dry-runs the host code on meta tensors: an output of the wrong
    // shape is incorrect, not "compiled, not run".
    void cliFindsWrongOutputsWithoutAGpu() {
        QProcess p;
        p.start(QStringLiteral(DICE_BIN_DIR "/dice"),
                {"eval", "sum_dim", DICE_SOURCE_DIR "/resources/hacks/wrong_output_shape.dice",
                 "--no-store", "--json"});
        QVERIFY(p.waitForFinished(180000));
        const auto out = nlohmann::json::parse(p.readAllStandardOutput().toStdString());
        QCOMPARE(out["verdict"].get<std::string>(), std::string("incorrect"));
        QVERIFY2(out["message"].get<std::string>().find("expected [128, 1, 4095]") !=
                     std::string::npos,
                 out["message"].get<std::string>().c_str());
        QCOMPARE(p.exitCode(), 1);
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
        o.compileTimeoutMs = 5000;
        Evaluator evaluator(o);
        const auto pid = evaluator.hello()["pid"].get<long long>();
        ::kill(static_cast<pid_t>(pid), SIGSTOP);
        QVERIFY(dice::test::waitUntilStopped(static_cast<pid_t>(pid)));
        const auto r =
            evaluator.evaluate(task("relu"), resource("solutions/relu.dice"), "relu.dice");
        QVERIFY2(r.verdict == Verdict::Timeout, r.message.c_str());
        QVERIFY2(r.workerState == WorkerState::RestartedAfterTimeout,
                 toString(r.workerState).c_str());
        const auto next =
            evaluator.compile(task("relu"), resource("solutions/relu.dice"), "relu.dice");
        QVERIFY2(next.compiled, next.message.c_str());
        QCOMPARE(evaluator.starts(), 2);
    }

    void idleWorkerKilledCostsNothing() {
        Evaluator evaluator(workerOptions());
        const auto pid = static_cast<pid_t>(evaluator.hello()["pid"].get<long long>());
        ::kill(pid, SIGKILL);
        QVERIFY(dice::test::waitUntilEnded(pid));
        const auto r =
            evaluator.evaluate(task("relu"), resource("solutions/relu.dice"), "relu.dice");
        QVERIFY2(r.verdict == Verdict::NotRun && r.compiled, r.message.c_str());
        QVERIFY2(r.workerState == WorkerState::StartedAgain, toString(r.workerState).c_str());
        QCOMPARE(evaluator.starts(), 2);
    }

    void workerKilledDuringARequestIsARuntimeError() {
        Evaluator evaluator(workerOptions());
        const auto pid = static_cast<pid_t>(evaluator.hello()["pid"].get<long long>());
        const auto r = evaluator.evaluate(
            task("relu"), resource("solutions/relu.dice"), "relu.dice", {},
            [pid](const std::string&, double, const std::string&) { ::kill(pid, SIGKILL); });
        QVERIFY2(r.verdict == Verdict::RuntimeError, r.message.c_str());
        QVERIFY2(r.workerState == WorkerState::RestartedAfterCrash,
                 toString(r.workerState).c_str());
        const auto next =
            evaluator.evaluate(task("relu"), resource("solutions/relu.dice"), "relu.dice");
        QVERIFY2(next.compiled, next.message.c_str());
    }

    void deeplyNestedHostCodeIsACompileError() {
        Evaluator evaluator(workerOptions());
        const std::string relu = resource("solutions/relu.dice");
        const auto withHostLine = [&relu](const std::string& line) {
            std::string source = relu;
            source.insert(source.find("    return y\n"), "    z = " + line + "\n");
            return source;
        };
        const auto deep = evaluator.compile(
            task("relu"),
            withHostLine(std::string(10000, '(') + "x.numel()" + std::string(10000, ')')),
            "deep.dice");
        QVERIFY2(deep.verdict == Verdict::CompileError, deep.message.c_str());
        QVERIFY2(deep.message.find("brackets nest deeper than 200 levels") != std::string::npos,
                 deep.message.c_str());
        QVERIFY2(deep.workerState == WorkerState::Ok, toString(deep.workerState).c_str());
        // Nesting that real code could have compiles, and so does a long chain of operators,
        // which recurses as deeply without a bracket.
        const auto nested = evaluator.compile(
            task("relu"), withHostLine(std::string(150, '(') + "n" + std::string(150, ')')),
            "nested.dice");
        QVERIFY2(nested.compiled, nested.message.c_str());
        const auto chain = evaluator.compile(
            task("relu"), withHostLine(std::string(30000, '-') + "n"), "chain.dice");
        QVERIFY2(chain.compiled, chain.message.c_str());
        const auto huge = evaluator.compile(
            task("relu"), withHostLine("n" + std::string(70000, ' ') + "+ 1"), "huge.dice");
        QVERIFY2(huge.verdict == Verdict::CompileError, huge.message.c_str());
        QVERIFY2(huge.message.find("longer than 64 KiB") != std::string::npos,
                 huge.message.c_str());
        QCOMPARE(evaluator.starts(), 1);
    }

    void cliEvaluatesStoresAndLists() {
        QTemporaryDir dir;
        const QString store = dir.filePath("runs.sqlite3");
        const QString dice = QStringLiteral(DICE_BIN_DIR "/dice");
        auto run = [&](const QStringList& args) {
            QProcess p;
            p.start(dice, args);
            p.waitForFinished(180000);
            return std::make_pair(p.exitCode(), p.readAllStandardOutput().toStdString());
        };
        const auto [evalCode, evalOut] =
            run({"eval", "relu", DICE_SOURCE_DIR "/resources/solutions/relu.dice", "--store", store,
                 "--json", "--tag", "nightly"});
        const auto result = nlohmann::json::parse(evalOut);
        // 0: judged correct; 1: not judged here, for lack of a GPU.
        QCOMPARE(evalCode, result["verdict"] == "not_run" ? 1 : 0);
        QCOMPARE(result["task"].get<std::string>(), std::string("relu"));
        QVERIFY(result["compiled"].get<bool>());
        const long long id = result["run_id"].get<long long>();
        const auto [listCode, listOut] = run({"runs", "--store", store, "--json"});
        QCOMPARE(listCode, 0);
        const auto list = nlohmann::json::parse(listOut);
        QCOMPARE(list.size(), size_t(1));
        QCOMPARE(list[0]["id"].get<long long>(), id);
        QCOMPARE(list[0]["tags"][0].get<std::string>(), std::string("nightly"));
        QCOMPARE(run({"runs", "pin", QString::number(id), "--store", store}).first, 0);
        const auto [baseCode, baseOut] =
            run({"runs", "baseline", "relu", "--store", store, "--json"});
        QCOMPARE(baseCode, 0);
        QCOMPARE(nlohmann::json::parse(baseOut)["id"].get<long long>(), id);
        QCOMPARE(run({"runs", "delete", QString::number(id), "--store", store}).first, 0);
        QCOMPARE(run({"runs", "show", QString::number(id), "--store", store}).first, 1);
        QCOMPARE(run({"eval", "relu"}).first, 2);
        // Compiling and the dry run are all --compile-only asks for; malformed values are usage
        // errors like unknown options.
        QCOMPARE(run({"eval", "relu", DICE_SOURCE_DIR "/resources/solutions/relu.dice",
                      "--compile-only", "--no-store"})
                     .first,
                 0);
        QCOMPARE(run({"eval", "relu", DICE_SOURCE_DIR "/resources/solutions/relu.dice", "--trials",
                      "many", "--no-store"})
                     .first,
                 2);
        QCOMPARE(run({"eval", "relu", DICE_SOURCE_DIR "/resources/solutions/relu.dice",
                      "--compiler-options", "-I/etc", "--no-store"})
                     .first,
                 2);
    }

    void cliEvaluatesASuite() {
        QTemporaryDir dir;
        QDir root(dir.path());
        root.mkdir("tasks");
        root.mkdir("candidates");
        for (const char* t : {"relu", "softmax"})
            QVERIFY(QFile::copy(QString(DICE_SOURCE_DIR "/resources/tasks/%1.json").arg(t),
                                dir.filePath(QString("tasks/%1.json").arg(t))));
        QVERIFY(QFile::copy(DICE_SOURCE_DIR "/resources/solutions/relu.dice",
                            dir.filePath("candidates/relu.dice")));
        QProcess p;
        p.start(QStringLiteral(DICE_BIN_DIR "/dice"),
                {"eval", "--suite", dir.filePath("tasks"), "--candidates",
                 dir.filePath("candidates"), "--no-store", "--json", "--no-timing"});
        QVERIFY(p.waitForFinished(180000));
        // softmax has no candidate: it counts as a failure.
        QCOMPARE(p.exitCode(), 1);
        const auto out = nlohmann::json::parse(p.readAllStandardOutput().toStdString());
        QCOMPARE(out["results"].size(), size_t(1));
        QCOMPARE(out["missing"][0].get<std::string>(), std::string("softmax"));
        const auto& all = out["metrics"]["raw"].back();
        QCOMPARE(all["scope"].get<std::string>(), std::string("all"));
        QCOMPARE(all["tasks"].get<int>(), 2);
        QCOMPARE(all["compile_rate"].get<double>(), 0.5);

        // --compile-only inspects one candidate; with a suite it used to evaluate in full.
        QProcess compileOnly;
        compileOnly.start(QStringLiteral(DICE_BIN_DIR "/dice"),
                          {"eval", "--suite", dir.filePath("tasks"), "--candidates",
                           dir.filePath("candidates"), "--no-store", "--compile-only"});
        QVERIFY(compileOnly.waitForFinished(60000));
        QCOMPARE(compileOnly.exitCode(), 2);
        QVERIFY(compileOnly.readAllStandardError().contains("--compile-only"));
    }

    void cliReportsInvalidUtf8() {
        QTemporaryDir dir;
        QDir root(dir.path());
        root.mkdir("tasks");
        root.mkdir("candidates");
        for (const char* t : {"relu", "softmax"})
            QVERIFY(QFile::copy(QString(DICE_SOURCE_DIR "/resources/tasks/%1.json").arg(t),
                                dir.filePath(QString("tasks/%1.json").arg(t))));
        // One byte that is not UTF-8, on line 2 of each candidate, as a model might write it.
        for (const char* t : {"relu", "softmax"}) {
            std::string source = resource(std::string("solutions/") + t + ".dice");
            source.insert(source.find('\n') + 4, "\xFF");
            QFile out(dir.filePath(QString("candidates/%1.dice").arg(t)));
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(source.data(), static_cast<qint64>(source.size()));
        }
        const auto flagOf = [](const nlohmann::json& result) {
            for (const auto& f : result["flags"])
                if (f["code"] == "invalid_utf8")
                    return f["message"].get<std::string>();
            return std::string();
        };

        QProcess one;
        one.start(QStringLiteral(DICE_BIN_DIR "/dice"),
                  {"eval", "relu", dir.filePath("candidates/relu.dice"), "--store",
                   dir.filePath("runs.sqlite3"), "--json", "--no-timing"});
        QVERIFY(one.waitForFinished(180000));
        const auto result = nlohmann::json::parse(one.readAllStandardOutput().toStdString());
        QCOMPARE(one.exitCode(), result["verdict"] == "not_run" ? 1 : 0);
        QVERIFY(result["compiled"].get<bool>());
        const std::string flag = flagOf(result);
        QVERIFY2(flag.find("1 byte sequence(s) that are not UTF-8, the first on line 2") !=
                     std::string::npos,
                 result["flags"].dump().c_str());
        // The stored run holds the source that was judged, which JSON can carry.
        QProcess show;
        show.start(QStringLiteral(DICE_BIN_DIR "/dice"),
                   {"runs", "show", QString::number(result["run_id"].get<long long>()), "--store",
                    dir.filePath("runs.sqlite3"), "--json"});
        QVERIFY(show.waitForFinished(60000));
        QCOMPARE(show.exitCode(), 0);
        QVERIFY(show.readAllStandardOutput().contains("\xEF\xBF\xBD"));

        QProcess suite;
        suite.start(QStringLiteral(DICE_BIN_DIR "/dice"),
                    {"eval", "--suite", dir.filePath("tasks"), "--candidates",
                     dir.filePath("candidates"), "--no-store", "--json", "--no-timing"});
        QVERIFY(suite.waitForFinished(180000));
        const auto out = nlohmann::json::parse(suite.readAllStandardOutput().toStdString());
        QCOMPARE(out["results"].size(), size_t(2));
        for (const auto& r : out["results"]) {
            QVERIFY2(r["compiled"].get<bool>(), r.dump().c_str());
            QVERIFY2(flagOf(r).find("the first on line 2") != std::string::npos,
                     r["flags"].dump().c_str());
        }
        QCOMPARE(suite.exitCode(), out["results"][0]["verdict"] == "not_run" ? 1 : 0);
    }
};

QTEST_GUILESS_MAIN(TestEvaluator)
#include "tst_evaluator.moc"
