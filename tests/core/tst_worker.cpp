// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/error.h"
#include "core/eval/worker_process.h"
#include "core/eval/worker_protocol.h"
#include "core/eval/worker_service.h"

#include <QtTest>

#include <signal.h>

using nlohmann::json;

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
