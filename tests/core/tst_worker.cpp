// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/error.h"
#include "core/worker/evaluation_request.h"
#include "core/worker/worker_process.h"
#include "core/worker/worker_protocol.h"
#include "core/worker/worker_service.h"

#include <QtTest>

#include <signal.h>

using nlohmann::json;

namespace {

// A task that sets every field, each init kind with the parameters it has, values that need all
// their digits (1/3, 0.1), a seed above 2^63 and text that must be escaped.
dice::Task taskWithEveryField() {
    using dice::DType;
    using dice::InitSpec;
    auto spec = [](std::string name, DType dtype, std::vector<std::string> dims, InitSpec init) {
        dice::TensorSpec s;
        s.name = std::move(name);
        s.dtype = dtype;
        for (auto& d : dims)
            s.shape.push_back({std::move(d)});
        s.init = std::move(init);
        return s;
    };
    auto init = [](InitSpec::Kind kind, double a = 0, double b = 1) {
        InitSpec i;
        i.kind = kind;
        i.a = a;
        i.b = b;
        return i;
    };
    dice::Task t;
    t.path = "imported/level2/gemm_scale.json";
    t.name = "gemm_scale";
    t.title = "GEMM, then a \"scale\"";
    t.level = 2;
    t.family = "gemm";
    t.description = "y = (x @ w^T + b) * s\n\tover B \u00d7 K";
    t.seed = 18446744073709551557ULL;
    t.inputs.push_back(
        spec("x", DType::Float16, {"B", "K"}, init(InitSpec::Kind::Normal, 0.25, 0.1)));
    t.inputs.push_back(spec("mask", DType::Bool, {"B"}, init(InitSpec::Kind::Bernoulli, 0.3)));
    t.inputs.push_back(spec("idx", DType::Int64, {"7"}, init(InitSpec::Kind::RandInt, -3, 11)));
    t.inputs.push_back(
        spec("u", DType::BFloat16, {"B * 2", "3"}, init(InitSpec::Kind::Uniform, -0.5, 1.0 / 3)));
    InitSpec fanIn = init(InitSpec::Kind::UniformFanIn);
    fanIn.fanIn = "K";
    t.parameters.push_back(spec("w", DType::Float32, {"N", "K"}, fanIn));
    t.parameters.push_back(spec("b", DType::Float64, {"N"}, init(InitSpec::Kind::Ones)));
    InitSpec file = init(InitSpec::Kind::File);
    file.file = "gemm_scale.safetensors";
    file.tensor = "scale";
    t.parameters.push_back(spec("s", DType::Int32, {"N"}, file));
    t.presets["small"] = {{"B", 2}, {"K", 4}, {"N", 3}};
    t.presets["bench"] = {{"B", 4096}, {"K", 8192}, {"N", 1024}};
    t.reference = "def reference(x: Tensor, mask: Tensor, idx: Tensor, u: Tensor, w: Tensor, "
                  "b: Tensor, s: Tensor) -> Tensor:\n    return (x.float() @ w.t() + b) * s\n";
    t.pytorchModule = "class Model(nn.Module):\n    pass\n";
    t.tolerances[DType::Float16] = {1e-2, 2e-3};
    t.tolerances[DType::BFloat16] = {3e-2, 1.0 / 7};
    t.flops = "2 * B * K * N";
    t.tags = {"imported", "level2"};
    return t;
}

std::string specDifference(const dice::TensorSpec& a, const dice::TensorSpec& b) {
    if (a.name != b.name || a.dtype != b.dtype)
        return a.name + ": name or dtype";
    if (a.shape.size() != b.shape.size())
        return a.name + ": rank";
    for (std::size_t i = 0; i < a.shape.size(); ++i)
        if (a.shape[i].text != b.shape[i].text)
            return a.name + ": dimension " + std::to_string(i);
    const auto& x = a.init;
    const auto& y = b.init;
    if (x.kind != y.kind || x.a != y.a || x.b != y.b || x.fanIn != y.fanIn || x.file != y.file ||
        x.tensor != y.tensor)
        return a.name + ": init";
    return {};
}

std::string specsDifference(const std::vector<dice::TensorSpec>& a,
                            const std::vector<dice::TensorSpec>& b) {
    if (a.size() != b.size())
        return "count";
    for (std::size_t i = 0; i < a.size(); ++i)
        if (const auto d = specDifference(a[i], b[i]); !d.empty())
            return d;
    return {};
}

// The first field in which two tasks differ, empty when they are equal in every field.
std::string taskDifference(const dice::Task& a, const dice::Task& b) {
    if (a.path != b.path)
        return "path";
    if (a.name != b.name || a.title != b.title || a.family != b.family ||
        a.description != b.description)
        return "name, title, family or description";
    if (a.level != b.level || a.seed != b.seed)
        return "level or seed";
    if (const auto d = specsDifference(a.inputs, b.inputs); !d.empty())
        return "inputs: " + d;
    if (const auto d = specsDifference(a.parameters, b.parameters); !d.empty())
        return "parameters: " + d;
    if (a.presets != b.presets)
        return "presets";
    if (a.reference != b.reference || a.pytorchModule != b.pytorchModule || a.flops != b.flops)
        return "reference, pytorch module or flops";
    if (a.tolerances.size() != b.tolerances.size())
        return "tolerances";
    for (const auto& [dtype, tol] : a.tolerances) {
        const auto other = b.tolerances.find(dtype);
        if (other == b.tolerances.end() || other->second.atol != tol.atol ||
            other->second.rtol != tol.rtol)
            return "tolerance of " + dice::toString(dtype);
    }
    if (a.tags != b.tags)
        return "tags";
    return {};
}

// The way a request travels: its fields into a protocol line, the line parsed and read back.
dice::EvaluationRequest overTheProtocol(const dice::EvaluationRequest& request) {
    const std::string line = dice::protocol::makeRequest(9, "evaluate", toJson(request)).dump();
    return dice::evaluationRequestFromJson(dice::protocol::parseRequest(line).body);
}

} // namespace

class TestWorker : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void protocolRejectsBadRequests_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not json") << "hello"
                                  << "not valid JSON";
        QTest::newRow("array") << "[1]"
                               << "not a JSON object";
        QTest::newRow("protocol") << R"({"protocol":"x","version":1,"id":1,"type":"hello"})"
                                  << "does not name the protocol";
        QTest::newRow("version") << R"({"protocol":"dice-evald","version":2,"id":1,"type":"hello"})"
                                 << "version 2, this program speaks version 1";
        QTest::newRow("id") << R"({"protocol":"dice-evald","version":1,"id":"a","type":"hello"})"
                            << "no integer \"id\"";
        QTest::newRow("type") << R"({"protocol":"dice-evald","version":1,"id":1})"
                              << "no \"type\"";
    }

    void protocolRejectsBadRequests() {
        QFETCH(QString, line);
        QFETCH(QString, expected);
        try {
            dice::protocol::parseRequest(line.toStdString());
            QFAIL("accepted a bad request");
        } catch (const dice::Error& e) {
            QVERIFY2(std::string(e.what()).find(expected.toStdString()) != std::string::npos,
                     e.what());
        }
    }

    void requestCarriesTheTaskExactly() {
        dice::EvaluationRequest request;
        request.task = taskWithEveryField();
        request.source = "#pragma dice device\n__global__ void k() {}\n";
        request.name = "gemm_scale.dice";
        request.options.preset = "small";
        request.options.tolerance = 0.125;
        request.options.seed = 77;
        request.options.timing = false;
        const dice::EvaluationRequest back = overTheProtocol(request);
        const std::string difference = taskDifference(request.task, back.task);
        QVERIFY2(difference.empty(), difference.c_str());
        QCOMPARE(back.source, request.source);
        QCOMPARE(back.name, request.name);
        QCOMPARE(back.options.preset, std::string("small"));
        QVERIFY(back.options.tolerance && *back.options.tolerance == 0.125);
        QCOMPARE(back.options.seed, std::uint64_t(77));
        QVERIFY(!back.options.timing);

        // The comparison sees a change in a field buried deep in the task.
        dice::Task changed = request.task;
        changed.parameters[2].init.tensor = "other";
        QVERIFY(!taskDifference(request.task, changed).empty());
    }

    void requestCarriesEveryBuiltinTask() {
        const auto suite = dice::loadTaskSuite(DICE_SOURCE_DIR "/resources/tasks");
        QVERIFY(suite.problems.empty());
        QVERIFY(!suite.tasks.empty());
        for (const auto& task : suite.tasks) {
            dice::EvaluationRequest request;
            request.task = task;
            request.source = "source";
            const std::string difference = taskDifference(task, overTheProtocol(request).task);
            QVERIFY2(difference.empty(), (task.name + ": " + difference).c_str());
        }
    }

    void requestRejectsBadFields_data() {
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("expected");
        const json task = toJson(taskWithEveryField());
        QTest::newRow("no task") << R"({"candidate":{"source":"x"}})"
                                 << "\"task\" must be a task object";
        QTest::newRow("task as text")
            << QString::fromStdString(
                   json{{"task", task.dump()}, {"candidate", {{"source", "x"}}}}.dump())
            << "\"task\" must be a task object";
        json badTask = task;
        badTask["inputs"][0]["dtype"] = "float8";
        QTest::newRow("bad task") << QString::fromStdString(json{
                                         {"task", badTask},
                                         {"task_path", "t.json"},
                                         {"candidate",
                                          {{"source", "x"}}}}.dump())
                                  << "t.json: inputs[0].dtype: unknown dtype \"float8\"";
        QTest::newRow("no candidate") << QString::fromStdString(json{{"task", task}}.dump())
                                      << "\"candidate\" must be an object";
        QTest::newRow("no source")
            << QString::fromStdString(
                   json{{"task", task}, {"candidate", {{"name", "a.dice"}}}}.dump())
            << "\"candidate.source\" must be a string";
        QTest::newRow("bad options")
            << QString::fromStdString(json{
                   {"task", task}, {"candidate", {{"source", "x"}}}, {"options", {{"warmups", -1}}}}
                                          .dump())
            << "\"warmups\" must be between";
    }

    void requestRejectsBadFields() {
        QFETCH(QString, body);
        QFETCH(QString, expected);
        try {
            dice::evaluationRequestFromJson(json::parse(body.toStdString()));
            QFAIL("accepted a bad request");
        } catch (const dice::Error& e) {
            QVERIFY2(std::string(e.what()).find(expected.toStdString()) != std::string::npos,
                     e.what());
        }
    }

    void serviceAnswersInProcess() {
        dice::WorkerService service;
        std::vector<json> out;
        const auto send = [&](const json& m) { out.push_back(m); };
        QVERIFY(service.handleLine(dice::protocol::makeRequest(5, "device_info").dump(), send));
        QCOMPARE(out.size(), size_t(1));
        QCOMPARE(out[0]["id"].get<int>(), 5);
        QCOMPARE(out[0]["type"].get<std::string>(), std::string("result"));
        QVERIFY(out[0]["system"].contains("libtorch"));
        QVERIFY(service.handleLine(dice::protocol::makeRequest(6, "frobnicate").dump(), send));
        QCOMPARE(out[1]["type"].get<std::string>(), std::string("error"));
        QVERIFY(out[1]["message"].get<std::string>().find("frobnicate") != std::string::npos);
        QVERIFY(service.handleLine("garbage", send));
        QCOMPARE(out[2]["id"].get<int>(), -1);
        QVERIFY(!service.handleLine(dice::protocol::makeRequest(7, "shutdown").dump(), send));
    }

    void processAnswersHelloAndDeviceInfo() {
        dice::WorkerProcess worker(DICE_BIN_DIR "/dice-evald");
        const auto hello = worker.call("hello", json::object(), 30000);
        QCOMPARE(dice::toString(hello.status), std::string("ok"));
        QCOMPARE(hello.message["worker"]["name"].get<std::string>(), std::string("dice-evald"));
        QCOMPARE(hello.message["pid"].get<long long>(), static_cast<long long>(worker.pid()));
        const auto info = worker.call("device_info", json::object(), 30000);
        QCOMPARE(dice::toString(info.status), std::string("ok"));
        QVERIFY(info.message["system"]["cuda"].contains("driver_available"));
        const auto bad = worker.call("no_such_request", json::object(), 30000);
        QCOMPARE(dice::toString(bad.status), std::string("error"));
        QCOMPARE(worker.starts(), 1);
        worker.stop();
        QVERIFY(!worker.running());
    }

    void crashedWorkerIsRestarted() {
        dice::WorkerProcess worker(DICE_BIN_DIR "/dice-evald");
        QCOMPARE(dice::toString(worker.call("hello", json::object(), 30000).status),
                 std::string("ok"));
        const pid_t first = worker.pid();
        ::kill(first, SIGSEGV);
        const auto reply = worker.call("hello", json::object(), 30000);
        // The dead worker is detected and reaped; the call reports it.
        QCOMPARE(dice::toString(reply.status), std::string("crashed"));
        QVERIFY2(reply.detail.find("signal") != std::string::npos, reply.detail.c_str());
        const auto next = worker.call("hello", json::object(), 30000);
        QCOMPARE(dice::toString(next.status), std::string("ok"));
        QVERIFY(worker.pid() != first);
        QCOMPARE(worker.starts(), 2);
    }

    void hungWorkerTimesOut() {
        dice::WorkerProcess worker(DICE_BIN_DIR "/dice-evald");
        QCOMPARE(dice::toString(worker.call("hello", json::object(), 30000).status),
                 std::string("ok"));
        ::kill(worker.pid(), SIGSTOP);
        QElapsedTimer timer;
        timer.start();
        const auto reply = worker.call("hello", json::object(), 300);
        QCOMPARE(dice::toString(reply.status), std::string("timeout"));
        QVERIFY(timer.elapsed() < 5000);
        QVERIFY(!worker.running());
        QCOMPARE(dice::toString(worker.call("hello", json::object(), 30000).status),
                 std::string("ok"));
    }

    void missingExecutableIsReported() {
        dice::WorkerProcess worker("/nonexistent/dice-evald");
        const auto reply = worker.call("hello", json::object(), 5000);
        QVERIFY(reply.status == dice::WorkerReply::Status::NotStarted);
        QCOMPARE(reply.detail,
                 std::string("cannot start /nonexistent/dice-evald: No such file or directory"));
        QVERIFY(!worker.running());
        QCOMPARE(worker.starts(), 0);
    }
};

QTEST_GUILESS_MAIN(TestWorker)
#include "tst_worker.moc"
