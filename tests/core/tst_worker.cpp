// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/child_process.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/common/sanitizer.h"
#include "core/common/utf8.h"
#include "core/worker/evaluation_request.h"
#include "core/worker/line_reader.h"
#include "core/worker/worker_process.h"
#include "core/worker/worker_protocol.h"
#include "core/worker/worker_service.h"

#include "process_state.h"

#include <QtTest>

#include <poll.h>
#include <signal.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <thread>

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

// A request line as text, with the fields of the envelope given as written.
std::string requestLine(const std::string& id, const std::string& type,
                        const std::string& version = "1") {
    return R"({"protocol":"dice-evald","version":)" + version + R"(,"id":)" + id + R"(,"type":")" +
           type + "\"}";
}

// dice-evald over raw pipes, for lines that no well-behaved client would send.
class RawWorker {
public:
    RawWorker() {
        std::string error;
        m_started = m_child.start(dice::ChildCommand({DICE_BIN_DIR "/dice-evald"}),
                                  dice::ChildStart(), &error);
        if (!m_started)
            qWarning("%s", error.c_str());
    }
    bool started() const { return m_started; }
    pid_t pid() const { return m_child.pid(); }
    bool send(const std::string& bytes) { return m_child.write(bytes); }

    // The next reply line, parsed; null when none came within the time.
    json next(int timeoutMs = 60000) {
        QElapsedTimer timer;
        timer.start();
        for (;;) {
            const std::size_t newline = m_out.find('\n');
            if (newline != std::string::npos) {
                const std::string line = m_out.substr(0, newline);
                m_out.erase(0, newline + 1);
                return json::parse(line);
            }
            if (timer.elapsed() > timeoutMs)
                return nullptr;
            pollfd fds[2] = {{m_child.stdoutFd(), POLLIN, 0}, {m_child.stderrFd(), POLLIN, 0}};
            ::poll(fds, 2, 100);
            m_child.readStdout(m_out);
            // Drained so that the worker never blocks on a full stderr.
            std::string err;
            m_child.readStderr(err);
        }
    }

    // Whether the worker still answers: a hello with this id gets its result.
    bool answersHello(const std::string& id) {
        if (!send(requestLine(id, "hello") + "\n"))
            return false;
        const json reply = next();
        return reply.is_object() && reply["id"].dump() == id && reply["type"] == "result";
    }

private:
    dice::ChildProcess m_child;
    std::string m_out;
    bool m_started = false;
};

// The peak resident memory of a process, in KiB (VmHWM in /proc/PID/status); -1 when unknown.
long long peakResidentKiB(pid_t pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string key;
    while (status >> key) {
        if (key == "VmHWM:") {
            long long kib = -1;
            status >> kib;
            return kib;
        }
    }
    return -1;
}

// A compile request for the relu task with this candidate source, as a protocol line.
std::string compileRequestLine(std::int64_t id, const std::string& source) {
    dice::EvaluationRequest request;
    request.task = dice::loadTask(DICE_SOURCE_DIR "/resources/tasks/relu.json");
    request.source = source;
    request.name = "relu.dice";
    return dice::protocol::encodeLine(dice::protocol::makeRequest(id, "compile", toJson(request)));
}

} // namespace

class TestWorker : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        // The workers inherit this: kernels compile and are never run, on any machine.
        qputenv("CUDA_VISIBLE_DEVICES", "");
    }

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
        // 4294967297 is 2^32 + 1: cast to an int it would read as version 1.
        QTest::newRow("version past int")
            << QString::fromStdString(requestLine("1", "hello", "4294967297"))
            << "version 4294967297, this program speaks version 1";
        QTest::newRow("version past int64")
            << QString::fromStdString(requestLine("1", "hello", "18446744073709551617"))
            << "has no integer protocol version";
        QTest::newRow("id past int64")
            << QString::fromStdString(requestLine("9223372036854775808", "hello"))
            << "no integer \"id\" from 0 to 9223372036854775807";
        QTest::newRow("negative id")
            << QString::fromStdString(requestLine("-5", "hello")) << "no integer \"id\" from 0";
        QTest::newRow("fractional id")
            << QString::fromStdString(requestLine("1.5", "hello")) << "no integer \"id\"";
        QTest::newRow("deep array")
            << QString::fromStdString(std::string(200000, '[') + std::string(200000, ']'))
            << "nests arrays and objects deeper than 64 levels";
        QTest::newRow("deep inside a string is no nesting")
            << QString::fromStdString(R"({"protocol":"dice-evald","version":1,"id":1,"x":")" +
                                      std::string(1000, '[') + R"("})")
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

    void utf8IsRepairedOnePerMaximalSubpart() {
        std::string valid = "caf\xC3\xA9 \xF0\x9F\x98\x80";
        const auto untouched = dice::repairUtf8(valid);
        QCOMPARE(untouched.replaced, std::size_t(0));
        QCOMPARE(valid, std::string("caf\xC3\xA9 \xF0\x9F\x98\x80"));
        const std::string fffd = "\xEF\xBF\xBD";
        struct Case {
            std::string in;
            std::string out;
            std::size_t replaced;
            std::size_t first;
        };
        const std::vector<Case> cases = {
            {"a\xFF"
             "b",
             "a" + fffd + "b", 1, 1},
            // An overlong form: no start of a well-formed sequence, so each byte on its own.
            {"\xE0\x80\x80", fffd + fffd + fffd, 3, 0},
            // A truncated four-byte sequence is one maximal subpart.
            {"x\xF0\x9F\x98", "x" + fffd, 1, 1},
            // A surrogate and a code point above U+10FFFF.
            {"\xED\xA0\x80"
             "ok\xF4\x90\x80\x80",
             fffd + fffd + fffd + "ok" + fffd + fffd + fffd + fffd, 7, 0},
            {"\xC3\xA9\x80", "\xC3\xA9" + fffd, 1, 2},
        };
        for (const Case& c : cases) {
            std::string text = c.in;
            const auto repair = dice::repairUtf8(text);
            QCOMPARE(text, c.out);
            QCOMPARE(repair.replaced, c.replaced);
            QCOMPARE(repair.firstOffset, c.first);
            QCOMPARE(dice::firstInvalidUtf8(text), std::string_view::npos);
        }
    }

    void requestWithInvalidUtf8IsReadRepaired() {
        const std::string line = R"({"protocol":"dice-evald","version":1,"id":4,"type":"compile",)"
                                 R"("candidate":{"source":"x = 1 # caf)"
                                 "\xE9"
                                 R"("}})";
        const auto request = dice::protocol::parseRequest(line);
        QCOMPARE(request.utf8Replaced, std::size_t(1));
        QCOMPARE(request.body["candidate"]["source"].get<std::string>(),
                 std::string("x = 1 # caf\xEF\xBF\xBD"));
        // What cannot be written as JSON is written with U+FFFD in its place, never thrown.
        const json bad = {{"message", "a\xFF"}};
        QCOMPARE(dice::protocol::encodeLine(bad), std::string("{\"message\":\"a\xEF\xBF\xBD\"}\n"));
    }

    void lineReaderRefusesLongLinesAsTheyStream() {
        dice::LineReader reader(10);
        dice::LineReader::Line line;
        reader.feed("short\nlonger th", 15);
        QVERIFY(reader.next(line));
        QCOMPARE(line.text, std::string("short"));
        QVERIFY(!line.tooLong);
        QVERIFY(!reader.next(line));
        // The eleventh byte of a line is refused at once, before its newline has arrived.
        reader.feed("an", 2);
        QVERIFY(reader.next(line));
        QVERIFY(line.tooLong);
        QVERIFY(line.text.empty());
        for (int i = 0; i < 1000; ++i)
            reader.feed("more of the same line ", 22);
        QVERIFY(!reader.next(line));
        reader.feed(" end\nnext\n", 10);
        QVERIFY(reader.next(line));
        QCOMPARE(line.text, std::string("next"));
        QVERIFY(!reader.next(line));
        // A line of exactly the limit is a line.
        reader.feed("0123456789\n", 11);
        QVERIFY(reader.next(line));
        QCOMPARE(line.text, std::string("0123456789"));
    }

    void requestIdsAreRandom() {
        std::set<std::int64_t> ids;
        bool above32Bits = false;
        for (int i = 0; i < 1000; ++i) {
            const std::int64_t id = dice::protocol::newRequestId();
            QVERIFY(id >= 1);
            above32Bits = above32Bits || id > (std::int64_t(1) << 32);
            ids.insert(id);
        }
        QCOMPARE(ids.size(), std::size_t(1000));
        QVERIFY(above32Bits);
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
        // A request may not hand the compiler a path of the worker's machine.
        QTest::newRow("compiler options with a path")
            << QString::fromStdString(json{{"task", task},
                                           {"candidate", {{"source", "x"}}},
                                           {"options", {{"compiler_options", "-DN=4 -I/etc"}}}}
                                          .dump())
            << "evaluation options: compiler option \"-I/etc\": headers come from the CUDA toolkit";
        QTest::newRow("unknown fast-compile level")
            << QString::fromStdString(json{{"task", task},
                                           {"candidate", {{"source", "x"}}},
                                           {"options", {{"fast_compile", "-O0"}}}}
                                          .dump())
            << "\"fast_compile\" must be \"\", \"min\", \"mid\" or \"max\"";
        // 4294967297 is 2^32 + 1: cast to an int it would read as 1.
        QTest::newRow("options past int")
            << QString::fromStdString(json{{"task", task},
                                           {"candidate", {{"source", "x"}}},
                                           {"options", {{"warmups", 4294967297ULL}}}}
                                          .dump())
            << "\"warmups\" must be between 0 and 1000";
        json levelPastInt = task;
        levelPastInt["level"] = 4294967297ULL;
        QTest::newRow("level past int") << QString::fromStdString(json{
                                               {"task", levelPastInt},
                                               {"task_path", "t.json"},
                                               {"candidate",
                                                {{"source", "x"}}}}.dump())
                                        << "t.json: level: must be 1, 2 or 3";
        json presetPastInt64 = task;
        presetPastInt64["presets"]["small"]["B"] = 18446744073709551615ULL;
        QTest::newRow("preset past int64")
            << QString::fromStdString(json{
                   {"task", presetPastInt64},
                   {"task_path", "t.json"},
                   {"candidate",
                    {{"source", "x"}}}}.dump())
            << "t.json: presets.small.B: must be an integer below 2^63";
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
        // An invalid byte in a request is read as U+FFFD, and the reply says how many were.
        QVERIFY(service.handleLine(requestLine("8", "frob\xFF"), send));
        QCOMPARE(out[3]["id"].get<int>(), 8);
        QCOMPARE(out[3]["type"].get<std::string>(), std::string("error"));
        QVERIFY(out[3]["message"].get<std::string>().find("frob\xEF\xBF\xBD") != std::string::npos);
        QCOMPARE(out[3]["utf8_replaced"].get<int>(), 1);
        QVERIFY(!service.handleLine(dice::protocol::makeRequest(7, "shutdown").dump(), send));
    }

    // An owner that is gone mid-request (killed, or ended by a time limit) is noticed at once:
    // on an H100, workers of a killed reward benchmark went on judging their batches and held
    // the GPU's memory while the next program ran out of it. Between requests, the end of the
    // input is only the end.
    void serviceNoticesItsOwnerGoneMidRequest() {
        int fds[2];
        QCOMPARE(::pipe(fds), 0);
        dice::WorkerService service;
        std::mutex mutex;
        std::condition_variable changed;
        bool started = false;
        bool gone = false;
        service.addHandler(
            "slow", [&](const dice::protocol::Request&, const dice::WorkerService::Emit&) {
                std::unique_lock<std::mutex> lock(mutex);
                started = true;
                changed.notify_all();
                changed.wait_for(lock, std::chrono::seconds(20), [&] { return gone; });
            });
        service.setOwnerGoneAction([&] {
            std::lock_guard<std::mutex> lock(mutex);
            gone = true;
            changed.notify_all();
        });
        std::thread serving([&] { service.serve(fds[0], [](const json&) {}); });
        const std::string line = dice::protocol::makeRequest(1, "slow").dump() + "\n";
        QCOMPARE(::write(fds[1], line.data(), line.size()), static_cast<ssize_t>(line.size()));
        {
            std::unique_lock<std::mutex> lock(mutex);
            QVERIFY(changed.wait_for(lock, std::chrono::seconds(20), [&] { return started; }));
        }
        const auto closed = std::chrono::steady_clock::now();
        ::close(fds[1]);
        {
            std::unique_lock<std::mutex> lock(mutex);
            QVERIFY(changed.wait_for(lock, std::chrono::seconds(20), [&] { return gone; }));
        }
        QVERIFY(std::chrono::steady_clock::now() - closed < std::chrono::seconds(2));
        serving.join();
        ::close(fds[0]);

        // Closed between requests (after the reply): serve returns, and nothing calls the action.
        QCOMPARE(::pipe(fds), 0);
        dice::WorkerService quiet;
        std::atomic<bool> called{false};
        std::atomic<int> replies{0};
        quiet.setOwnerGoneAction([&] { called = true; });
        std::thread serving2([&] { quiet.serve(fds[0], [&](const json&) { ++replies; }); });
        const std::string hello = dice::protocol::makeRequest(2, "hello").dump() + "\n";
        QCOMPARE(::write(fds[1], hello.data(), hello.size()), static_cast<ssize_t>(hello.size()));
        QTRY_COMPARE_WITH_TIMEOUT(replies.load(), 1, 20000);
        ::close(fds[1]);
        serving2.join();
        ::close(fds[0]);
        QVERIFY(!called.load());
    }

    void workerSurvivesHostileLines() {
        RawWorker worker;
        QVERIFY(worker.started());
        QVERIFY(worker.answersHello("1"));

        // An invalid byte in a line: an error that names the request, and the worker lives.
        QVERIFY(worker.send(requestLine("2", "frob\xFF") + "\n"));
        json reply = worker.next();
        QCOMPARE(reply["id"].get<int>(), 2);
        QCOMPARE(reply["type"].get<std::string>(), std::string("error"));
        QCOMPARE(reply["utf8_replaced"].get<int>(), 1);
        QVERIFY(worker.answersHello("3"));

        // An invalid byte inside a candidate: the candidate is judged with U+FFFD in its place,
        // and the evaluation says so.
        const std::string relu =
            dice::readTextFile(DICE_SOURCE_DIR "/resources/solutions/relu.dice");
        std::string line = compileRequestLine(4, relu);
        const std::size_t comment = line.find("ReLU over");
        QVERIFY(comment != std::string::npos);
        line.insert(comment, "\xC3");
        QVERIFY(worker.send(line));
        reply = worker.next();
        QCOMPARE(reply["id"].get<int>(), 4);
        QCOMPARE(reply["type"].get<std::string>(), std::string("result"));
        QCOMPARE(reply["utf8_replaced"].get<int>(), 1);
        QVERIFY(reply["evaluation"]["compiled"].get<bool>());
        QVERIFY2(reply["evaluation"]["flags"].dump().find("invalid_utf8") != std::string::npos,
                 reply["evaluation"]["flags"].dump().c_str());

        // 200,000 nested arrays: refused before any parser sees them.
        QVERIFY(worker.send(std::string(200000, '[') + std::string(200000, ']') + "\n"));
        reply = worker.next();
        QCOMPARE(reply["id"].get<int>(), -1);
        QVERIFY2(reply["message"].get<std::string>().find("deeper than 64") != std::string::npos,
                 reply.dump().c_str());
        QVERIFY(worker.answersHello("5"));

        // Numbers that a cast would wrap are refused as written.
        QVERIFY(worker.send(requestLine("6", "hello", "4294967297") + "\n"));
        reply = worker.next();
        QCOMPARE(reply["id"].get<int>(), -1);
        QVERIFY(reply["message"].get<std::string>().find("4294967297") != std::string::npos);
        QVERIFY(worker.send(requestLine("18446744073709551617", "hello") + "\n"));
        reply = worker.next();
        QCOMPARE(reply["id"].get<int>(), -1);
        QVERIFY(reply["message"].get<std::string>().find("no integer \"id\"") != std::string::npos);
        QVERIFY(worker.answersHello("9223372036854775807"));
    }

    void overlongLineIsRefusedWhileItStreams() {
        RawWorker worker;
        QVERIFY(worker.started());
        QVERIFY(worker.answersHello("1"));
        const long long before = peakResidentKiB(worker.pid());
        QVERIFY(before > 0);
        const std::string mebibyte(std::size_t(1) << 20, 'a');
        const std::size_t limitMiB = dice::protocol::kMaxLineBytes >> 20;
        for (std::size_t i = 0; i <= limitMiB; ++i)
            QVERIFY(worker.send(mebibyte));
        // The refusal comes while the line is still arriving: its newline has not been sent.
        json reply = worker.next();
        QCOMPARE(reply["id"].get<int>(), -1);
        QVERIFY2(reply["message"].get<std::string>().find("longer than") != std::string::npos,
                 reply.dump().c_str());
        for (std::size_t i = 0; i < 3 * limitMiB; ++i)
            QVERIFY(worker.send(mebibyte));
        QVERIFY(worker.send("\n"));
        QVERIFY(worker.answersHello("2"));
        // A line of four times the limit has cost at most the limit and some slack. Under
        // AddressSanitizer freed buffers stay resident in its quarantine (256 MiB), so the peak
        // says nothing of what the worker holds there; the other builds measure it.
        if (dice::kAddressSanitizer)
            return;
        const long long grown = peakResidentKiB(worker.pid()) - before;
        QVERIFY2(grown < static_cast<long long>(limitMiB + 32) * 1024,
                 (std::to_string(grown) + " KiB").c_str());
    }

    void forgedReplyWithAGuessedIdIsNotTaken() {
        QTemporaryDir dir;
        const QString script = dir.filePath("forger.sh");
        {
            std::ofstream out(script.toStdString());
            // Answers every request twice: first with the ids a counter would have used, then
            // with the request's own id.
            out << "while IFS= read -r line; do\n"
                   "  id=$(printf '%s\\n' \"$line\" | sed -n 's/.*\"id\":\\([0-9-]*\\).*/\\1/p')\n"
                   "  for guess in 0 1 2 3; do\n"
                   "    printf '{\"protocol\":\"dice-evald\",\"version\":1,\"id\":%s,"
                   "\"type\":\"result\",\"forged\":true}\\n' \"$guess\"\n"
                   "  done\n"
                   "  printf '{\"protocol\":\"dice-evald\",\"version\":1,\"id\":%s,"
                   "\"type\":\"result\",\"forged\":false,\"seen\":%s}\\n' \"$id\" \"$id\"\n"
                   "done\n";
        }
        dice::WorkerProcess worker("sh", {script.toStdString()});
        const auto first = worker.call("hello", json::object(), 10000);
        QCOMPARE(dice::toString(first.status), std::string("ok"));
        QCOMPARE(first.message["forged"].get<bool>(), false);
        QCOMPARE(first.ignoredLines, std::size_t(4));
        QVERIFY(first.firstIgnoredLine.find("\"forged\":true") != std::string::npos);
        const auto second = worker.call("hello", json::object(), 10000);
        QCOMPARE(second.message["forged"].get<bool>(), false);
        QVERIFY(second.message["seen"].get<std::int64_t>() !=
                first.message["seen"].get<std::int64_t>());
    }

    void environmentReachesTheWorkerOnly() {
        // The worker gets its variables at its start; this process's environment stays as it was
        // (a process with threads may not change it).
        QTemporaryDir dir;
        const QString script = dir.filePath("echo-environment.sh");
        {
            std::ofstream out(script.toStdString());
            out << "while IFS= read -r line; do\n"
                   "  id=$(printf '%s\\n' \"$line\" | sed -n 's/.*\"id\":\\([0-9-]*\\).*/\\1/p')\n"
                   "  printf '{\"protocol\":\"dice-evald\",\"version\":1,\"id\":%s,"
                   "\"type\":\"result\",\"value\":\"%s\"}\\n' \"$id\" \"$DICE_WORKER_TEST_VALUE\"\n"
                   "done\n";
        }
        dice::WorkerProcess worker("sh", {script.toStdString()});
        worker.setEnvironment({{"DICE_WORKER_TEST_VALUE", "given-at-start"}});
        const auto reply = worker.call("hello", json::object(), 10000);
        QCOMPARE(dice::toString(reply.status), std::string("ok"));
        QCOMPARE(reply.message["value"].get<std::string>(), std::string("given-at-start"));
        QVERIFY(std::getenv("DICE_WORKER_TEST_VALUE") == nullptr);
    }

    void spareTakesOverWhenTheWorkerEnds() {
        const auto alive = [](pid_t pid) { return pid > 0 && ::kill(pid, 0) == 0; };
        pid_t stale = -1;
        {
            dice::WorkerProcess worker(DICE_BIN_DIR "/dice-evald", {"--warm"});
            worker.keepSpare(true);
            const auto first = worker.call("hello", json::object(), 30000);
            QCOMPARE(dice::toString(first.status), std::string("ok"));
            // A worker started with --warm says how its GPU set-up went before it answers.
            QVERIFY(first.message.contains("gpu"));
            const pid_t spare = worker.sparePid();
            QVERIFY(alive(spare));
            QVERIFY(spare != worker.pid());

            // As after a hang: the worker is killed, and the spare answers the next request.
            worker.kill();
            const auto second = worker.call("hello", json::object(), 30000);
            QCOMPARE(dice::toString(second.status), std::string("ok"));
            QCOMPARE(second.message["pid"].get<long long>(), static_cast<long long>(spare));
            QCOMPARE(worker.spareTakeovers(), 1);
            QCOMPARE(worker.starts(), 2);
            QVERIFY(alive(worker.sparePid()));
            QVERIFY(worker.sparePid() != spare);

            // A spare started with other arguments never stands in: it is replaced.
            stale = worker.sparePid();
            worker.setArguments({"--warm", "--cpu-threads", "1"});
            worker.kill();
            const auto third = worker.call("hello", json::object(), 30000);
            QCOMPARE(dice::toString(third.status), std::string("ok"));
            QVERIFY(third.message["pid"].get<long long>() != static_cast<long long>(stale));
            QCOMPARE(third.message["cpu_threads"].get<int>(), 1);
            QCOMPARE(worker.spareTakeovers(), 1);
            QVERIFY(!alive(stale));
            stale = worker.sparePid();
            QVERIFY(alive(stale));
        }
        // The spare ends with its owner.
        QVERIFY(!alive(stale));
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

    void workerThatDiedWhileIdleIsReplaced() {
        dice::WorkerProcess worker(DICE_BIN_DIR "/dice-evald");
        QCOMPARE(dice::toString(worker.call("hello", json::object(), 30000).status),
                 std::string("ok"));
        const pid_t first = worker.pid();
        ::kill(first, SIGSEGV);
        QVERIFY(dice::test::waitUntilEnded(first));
        // The death is noticed before the request is sent: a fresh worker answers it.
        const auto reply = worker.call("hello", json::object(), 30000);
        QCOMPARE(dice::toString(reply.status), std::string("ok"));
        QVERIFY(worker.pid() != first);
        QCOMPARE(worker.starts(), 2);
    }

    void requestTheWorkerNeverReadIsSentAgain() {
        dice::WorkerProcess worker(DICE_BIN_DIR "/dice-evald");
        QCOMPARE(dice::toString(worker.call("hello", json::object(), 30000).status),
                 std::string("ok"));
        const pid_t first = worker.pid();
        // Stopped, the worker is alive when the request goes out and cannot read it; it is
        // killed while the request waits in the pipe. The wait is long enough for the request
        // to be written first on a loaded machine (with 0.5 s, two parallel builds beside the
        // suite let the kill come first, and the request then went to a fresh worker unsent).
        ::kill(first, SIGSTOP);
        QVERIFY(dice::test::waitUntilStopped(first));
        std::thread killer([first] {
            std::this_thread::sleep_for(std::chrono::milliseconds(3000));
            ::kill(first, SIGKILL);
        });
        const auto reply = worker.call("hello", json::object(), 30000);
        killer.join();
        QCOMPARE(dice::toString(reply.status), std::string("ok"));
        QVERIFY(reply.resent);
        QVERIFY(worker.pid() != first);
        QCOMPARE(worker.starts(), 2);
    }

    void workerThatDiesDuringARequestIsACrash() {
        dice::WorkerProcess worker(DICE_BIN_DIR "/dice-evald");
        QCOMPARE(dice::toString(worker.call("hello", json::object(), 30000).status),
                 std::string("ok"));
        dice::EvaluationRequest request;
        request.task = dice::loadTask(DICE_SOURCE_DIR "/resources/tasks/relu.json");
        request.source = dice::readTextFile(DICE_SOURCE_DIR "/resources/solutions/relu.dice");
        const pid_t first = worker.pid();
        // Killed once it has read the request and started on it: that is the request's death,
        // and it is not sent again.
        const auto reply = worker.call("evaluate", toJson(request), 60000,
                                       [first](const json&) { ::kill(first, SIGKILL); });
        QCOMPARE(dice::toString(reply.status), std::string("crashed"));
        QVERIFY2(reply.detail.find("signal 9") != std::string::npos, reply.detail.c_str());
        QVERIFY(!reply.resent);
        QCOMPARE(worker.starts(), 1);
        const auto next = worker.call("hello", json::object(), 30000);
        QCOMPARE(dice::toString(next.status), std::string("ok"));
        QCOMPARE(worker.starts(), 2);
    }

    void hungWorkerTimesOut() {
        dice::WorkerProcess worker(DICE_BIN_DIR "/dice-evald");
        QCOMPARE(dice::toString(worker.call("hello", json::object(), 30000).status),
                 std::string("ok"));
        ::kill(worker.pid(), SIGSTOP);
        QVERIFY(dice::test::waitUntilStopped(worker.pid()));
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
