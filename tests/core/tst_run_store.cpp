// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/store/run_import.h"
#include "core/store/run_store.h"

#include <sqlite3.h>

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

using namespace dice;

namespace {

RunRecord sample(const std::string& task, double speedup, std::vector<std::string> tags = {}) {
    EvaluationResult r;
    r.task = task;
    r.level = 2;
    r.verdict = Verdict::Correct;
    r.speedup = speedup;
    r.device = "NVIDIA H200";
    r.message = "correct";
    return RunStore::recordOf(r, "#pragma dice device\n...", {{"preset", "bench"}}, "13.0",
                              std::move(tags));
}

} // namespace

class TestRunStore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void addListGetDelete() {
        QTemporaryDir dir;
        RunStore store(dir.filePath("runs.sqlite3").toStdString());
        QCOMPARE(store.schemaVersion(), RunStore::kSchemaVersion);
        const auto a = store.add(sample("relu", 1.5, {"nightly", "h200"}));
        const auto b = store.add(sample("softmax", 3.0));
        const auto c = store.add(sample("relu", 0.8));
        QVERIFY(a < b && b < c);
        QCOMPARE(store.list().size(), size_t(3));
        const auto relu = store.list({"relu", RunQuery::Order::Newest, 0});
        QCOMPARE(relu.size(), size_t(2));
        QCOMPARE(relu[0].id, c);
        const auto fastest = store.list({"", RunQuery::Order::Fastest, 1});
        QCOMPARE(fastest.size(), size_t(1));
        QCOMPARE(fastest[0].task, std::string("softmax"));
        const auto got = store.get(a);
        QVERIFY(got.has_value());
        QCOMPARE(got->tags, (std::vector<std::string>{"h200", "nightly"}));
        QCOMPARE(got->level, 2);
        QCOMPARE(got->driver, std::string("13.0"));
        QCOMPARE(got->verdict, std::string("correct"));
        QCOMPARE(got->result["message"].get<std::string>(), std::string("correct"));
        QCOMPARE(got->options["preset"].get<std::string>(), std::string("bench"));
        QVERIFY(got->createdAt.size() == 20 && got->createdAt.back() == 'Z');
        QVERIFY(store.remove(b));
        QVERIFY(!store.remove(b));
        QVERIFY(!store.get(b).has_value());
    }

    void baselines() {
        QTemporaryDir dir;
        RunStore store(dir.filePath("runs.sqlite3").toStdString());
        const auto a = store.add(sample("relu", 1.5));
        const auto b = store.add(sample("relu", 2.5));
        QVERIFY(!store.baseline("relu").has_value());
        store.pinBaseline(a);
        QCOMPARE(store.baseline("relu")->id, a);
        store.pinBaseline(b);
        QCOMPARE(store.baseline("relu")->id, b);
        QVERIFY(store.get(b)->baseline);
        QVERIFY(!store.get(a)->baseline);
        store.unpinBaseline("relu");
        QVERIFY(!store.baseline("relu").has_value());
        store.pinBaseline(a);
        QVERIFY(store.remove(a));
        QVERIFY(!store.baseline("relu").has_value());
        QVERIFY_EXCEPTION_THROWN(store.pinBaseline(9999), dice::Error);
    }

    void migratesVersionOne() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("old.sqlite3").toStdString();
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        const std::string sql = readTextFile(DICE_TEST_FIXTURES "/store/runs-v1.sql");
        QCOMPARE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);

        RunStore store(path);
        QCOMPARE(store.schemaVersion(), 2);
        const auto runs = store.list({"", RunQuery::Order::Oldest, 0});
        QCOMPARE(runs.size(), size_t(4));
        QCOMPARE(runs[0].task, std::string("relu"));
        QCOMPARE(runs[0].verdict, std::string("correct"));
        QCOMPARE(runs[0].speedup, 1.02);
        QCOMPARE(runs[0].device, std::string("NVIDIA H200"));
        QCOMPARE(runs[2].level, 2);
        QCOMPARE(runs[2].dialect, std::string("kernelbench"));
        QCOMPARE(runs[2].verdict, std::string("fallback"));
        // Version 1 recorded no worker state.
        QVERIFY(evaluationFromJson(runs[0].result).workerState == WorkerState::Unrecorded);
        // A damaged result survives the migration with defaults.
        QCOMPARE(runs[3].verdict, std::string(""));
        QCOMPARE(runs[3].level, 1);
        // The new tables work on the migrated file.
        store.pinBaseline(runs[0].id);
        QCOMPARE(store.baseline("relu")->id, runs[0].id);
        const auto added = store.add(sample("relu", 4.0, {"after-migration"}));
        QCOMPARE(store.get(added)->tags.size(), size_t(1));
    }

    void rejectsForeignFiles() {
        QTemporaryDir dir;
        const std::string text = dir.filePath("text.sqlite3").toStdString();
        writeFileAtomically(text, "this is not a database, it is a text file of some length\n");
        try {
            RunStore store(text);
            QFAIL("opened a text file");
        } catch (const FileError& e) {
            QVERIFY2(std::string(e.what()).rfind(text, 0) == 0, e.what());
        }
        const std::string newer = dir.filePath("newer.sqlite3").toStdString();
        sqlite3* db = nullptr;
        sqlite3_open(newer.c_str(), &db);
        sqlite3_exec(db, "CREATE TABLE x (a); PRAGMA user_version = 99;", nullptr, nullptr,
                     nullptr);
        sqlite3_close(db);
        try {
            RunStore store(newer);
            QFAIL("opened a newer schema");
        } catch (const FileError& e) {
            QVERIFY2(std::string(e.what()).find("schema version 99") != std::string::npos,
                     e.what());
        }
        const std::string other = dir.filePath("other.sqlite3").toStdString();
        sqlite3_open(other.c_str(), &db);
        sqlite3_exec(db, "CREATE TABLE notes (a);", nullptr, nullptr, nullptr);
        sqlite3_close(db);
        QVERIFY_EXCEPTION_THROWN(RunStore{other}, FileError);
    }

    void killedWriterLosesOnlyTheRunInFlight() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("crash.sqlite3").toStdString();
        { RunStore create(path); }
        int fds[2];
        QCOMPARE(pipe(fds), 0);
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            ::close(fds[0]);
            try {
                RunStore store(path);
                const std::string big(256 * 1024, 'x');
                for (int i = 0;; ++i) {
                    RunRecord r = sample("relu", i);
                    r.source = big;
                    const std::int64_t id = store.add(r);
                    if (::write(fds[1], &id, sizeof(id)) != sizeof(id))
                        ::_exit(3);
                }
            } catch (...) {
                ::_exit(2);
            }
        }
        ::close(fds[1]);
        std::set<std::int64_t> committed;
        std::int64_t id = 0;
        while (committed.size() < 25 && ::read(fds[0], &id, sizeof(id)) == sizeof(id))
            committed.insert(id);
        ::kill(child, SIGKILL);
        int status = 0;
        ::waitpid(child, &status, 0);
        QVERIFY(WIFSIGNALED(status));
        while (::read(fds[0], &id, sizeof(id)) == sizeof(id))
            committed.insert(id);
        ::close(fds[0]);
        QVERIFY(committed.size() >= 25);

        RunStore store(path);
        std::set<std::int64_t> present;
        for (const auto& r : store.list())
            present.insert(r.id);
        for (const auto c : committed)
            QVERIFY2(present.count(c), ("run " + std::to_string(c) + " was lost").c_str());
        // At most the run in flight is missing from what the writer reported.
        QVERIFY(present.size() <= committed.size() + 1);
        QVERIFY(store.add(sample("relu", 1.0)) > 0);
    }

    void defaultPathFollowsXdg() {
        QTemporaryDir dir;
        qputenv("XDG_DATA_HOME", dir.path().toUtf8());
        QCOMPARE(RunStore::defaultPath(),
                 dir.path().toStdString() + "/dice-workbench/runs.sqlite3");
        qunsetenv("XDG_DATA_HOME");
        qputenv("HOME", "/home/someone");
        QCOMPARE(RunStore::defaultPath(),
                 std::string("/home/someone/.local/share/dice-workbench/runs.sqlite3"));
    }

    // The GPU machine's self-test result, committed under bench/results, imports as real runs:
    // one per evaluator check, with the candidate's source from the data folder, the file's date,
    // device and driver, and its timings intact.
    void importsTheH200SelfTest() {
        const std::string path = DICE_TEST_FIXTURES "/store/selftest-nvidia-h200.json";
        const ImportedRuns imported = importRuns(readTextFile(path), "selftest-nvidia-h200.json",
                                                 DICE_SOURCE_DIR "/resources");
        QCOMPARE(imported.runs.size(), std::size_t(17));    // 3 solutions and 14 hacks
        QCOMPARE(imported.skipped.size(), std::size_t(11)); // the checks without an evaluation
        const RunRecord* matmul = nullptr;
        for (const auto& r : imported.runs)
            if (std::find(r.tags.begin(), r.tags.end(), "eval.matmul") != r.tags.end())
                matmul = &r;
        QVERIFY(matmul);
        QCOMPARE(matmul->device, std::string("NVIDIA H200"));
        QCOMPARE(matmul->driver, std::string("580.159.04"));
        QCOMPARE(matmul->verdict, std::string("correct"));
        QCOMPARE(matmul->createdAt,
                 nlohmann::json::parse(readTextFile(path))["date"].get<std::string>());
        QCOMPARE(matmul->source, readTextFile(DICE_SOURCE_DIR "/resources/solutions/matmul.dice"));
        const EvaluationResult result = evaluationFromJson(matmul->result);
        QVERIFY(result.candidateKernelTime);
        QCOMPARE(result.candidateKernelTime->samplesMs.size(), std::size_t(100));
        int incorrect = 0;
        for (const auto& r : imported.runs)
            incorrect += r.verdict != "correct" ? 1 : 0;
        QCOMPARE(incorrect, 14);
        // The hung kernel's worker was killed and the faulting one's lost its context; the file
        // names the fault in the wording of the version that wrote it.
        std::map<std::string, WorkerState> states;
        for (const auto& r : imported.runs)
            states[r.tags.empty() ? std::string() : r.tags.back()] =
                evaluationFromJson(r.result).workerState;
        QCOMPARE(states.size(), imported.runs.size());
        QVERIFY2(states["hack.infinite_loop"] == WorkerState::RestartedAfterTimeout,
                 toString(states["hack.infinite_loop"]).c_str());
        QVERIFY2(states["hack.illegal_address"] == WorkerState::RestartedAfterFault,
                 toString(states["hack.illegal_address"]).c_str());
        QVERIFY2(states["eval.matmul"] == WorkerState::Ok, toString(states["eval.matmul"]).c_str());
        QCOMPARE(std::count_if(states.begin(), states.end(),
                               [](const auto& s) { return s.second == WorkerState::Ok; }),
                 std::ptrdiff_t(15));

        QTemporaryDir dir;
        RunStore store(dir.filePath("runs.sqlite3").toStdString());
        for (const auto& r : imported.runs)
            store.add(r);
        RunQuery query;
        query.task = "matmul";
        QCOMPARE(store.list(query).size(), std::size_t(1));
    }

    // Every state is written as text and read back; the text is what the CLI shows and what
    // earlier versions wrote, and anything else is refused with the text named.
    void workerStatesKeepTheirText() {
        const std::pair<WorkerState, const char*> states[] = {
            {WorkerState::Unrecorded, ""},
            {WorkerState::Ok, "ok"},
            {WorkerState::StartedAgain, "ok (started again)"},
            {WorkerState::RestartedAfterFault, "restarted after a fault"},
            {WorkerState::RestartedAfterTimeout, "restarted after a timeout"},
            {WorkerState::RestartedAfterCrash, "restarted after a crash"},
            {WorkerState::NotStarted, "not started"},
            {WorkerState::Unavailable, "unavailable"},
        };
        for (const auto& [state, text] : states) {
            QCOMPARE(toString(state), std::string(text));
            EvaluationResult r;
            r.task = "relu";
            r.workerState = state;
            const nlohmann::json j = toJson(r);
            QCOMPARE(j["worker_state"].get<std::string>(), std::string(text));
            QVERIFY2(evaluationFromJson(j).workerState == state, text);
        }
        QVERIFY(parseWorkerState("restarted after a fault (the CUDA context was lost)") ==
                WorkerState::RestartedAfterFault);
        QVERIFY(!parseWorkerState("OK").has_value());
        try {
            evaluationFromJson({{"task", "relu"}, {"worker_state", "sleeping"}});
            QFAIL("accepted an unknown worker state");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("unknown worker state \"sleeping\"") !=
                         std::string::npos,
                     e.what());
        }
    }

    void bothSpeedupsAreKeptAndReadBack() {
        dice::EvaluationResult r;
        r.task = "relu";
        r.speedup = 1.5;
        r.speedupOfMeans = 1.25;
        const nlohmann::json j = dice::toJson(r);
        QCOMPARE(j["speedup_of_means"].get<double>(), 1.25);
        const dice::EvaluationResult back = dice::evaluationFromJson(j);
        QCOMPARE(back.speedup, 1.5);
        QCOMPARE(back.speedupOfMeans, 1.25);
        // Results written before the field existed read as not measured.
        QCOMPARE(dice::evaluationFromJson({{"task", "relu"}, {"speedup", 2.0}}).speedupOfMeans,
                 0.0);
    }

    // The KernelBench worker's record of its round trips comes through to the result (the
    // agreement benchmark keeps it: a short answer's time is mostly round-trip noise).
    void roundTripTimingIsKeptAndReadBack() {
        const nlohmann::json worker = {{"task", "relu"},
                                       {"dialect", "kernelbench"},
                                       {"timing_check",
                                        {{"method", "worker_round_trip"},
                                         {"pings", 24},
                                         {"ping_median_ms", 0.05},
                                         {"ping_p90_ms", 0.08},
                                         {"allowance_ms", 0.08},
                                         {"raised_calls", 3},
                                         {"underreported_calls", 0},
                                         {"ping_workload", "reference"},
                                         {"ping_overheads_ms", {0.04, 0.06}},
                                         {"copy_bytes", 4096},
                                         {"reported_ms", {0.2, 0.21}},
                                         {"round_trip_ms", {0.3, 0.5}},
                                         {"exchange", "device"}}},
                                       {"stages_ms", {{"reference", 812.5}, {"load", 40.0}}}};
        const dice::EvaluationResult r = dice::evaluationFromJson(worker);
        QVERIFY(r.roundTripCheck.has_value());
        QCOMPARE(r.roundTripCheck->raisedCalls, 3);
        QCOMPARE(r.roundTripCheck->roundTripMs, (std::vector<double>{0.3, 0.5}));
        const nlohmann::json j = dice::toJson(r);
        QCOMPARE(j["timing_check"]["allowance_ms"].get<double>(), 0.08);
        QCOMPARE(j["timing_check"]["reported_ms"].size(), std::size_t(2));
        QCOMPARE(j["timing_check"]["ping_workload"].get<std::string>(), std::string("reference"));
        QCOMPARE(j["timing_check"]["ping_overheads_ms"][1].get<double>(), 0.06);
        QCOMPARE(j["timing_check"]["copy_bytes"].get<double>(), 4096.0);
        QCOMPARE(j["timing_check"]["exchange"].get<std::string>(), std::string("device"));
        QCOMPARE(r.stagesMs.at("reference"), 812.5);
        QCOMPARE(j["stages_ms"]["load"].get<double>(), 40.0);
        QVERIFY(!dice::toJson(dice::evaluationFromJson({{"task", "relu"}})).contains("stages_ms"));
        QVERIFY(!dice::evaluationFromJson({{"task", "relu"}}).roundTripCheck);
        for (const nlohmann::json& bad :
             {nlohmann::json{{"task", "relu"}, {"timing_check", 7}},
              nlohmann::json{{"task", "relu"}, {"timing_check", {{"raised_calls", "many"}}}},
              nlohmann::json{{"task", "relu"}, {"timing_check", {{"reported_ms", {"x"}}}}},
              nlohmann::json{{"task", "relu"}, {"timing_check", {{"ping_workload", 3}}}},
              nlohmann::json{{"task", "relu"}, {"timing_check", {{"ping_overheads_ms", "x"}}}},
              nlohmann::json{{"task", "relu"}, {"timing_check", {{"exchange", 1}}}},
              nlohmann::json{{"task", "relu"}, {"stages_ms", {1, 2}}},
              nlohmann::json{{"task", "relu"}, {"stages_ms", {{"load", "slow"}}}}}) {
            try {
                dice::evaluationFromJson(bad);
                QFAIL(bad.dump().c_str());
            } catch (const dice::Error& e) {
                QVERIFY2(std::string(e.what()).find("timing_check") != std::string::npos ||
                             std::string(e.what()).find("stages_ms") != std::string::npos ||
                             std::string(e.what()).find("malformed") != std::string::npos,
                         e.what());
            }
        }
    }

    void importRejectsWhatIsNotARunFile() {
        for (const char* text :
             {"", "{", "[1, 2]", "{\"checks\": 3}", "{\"other\": 1}", "{\"checks\": [7]}",
              "{\"verdict\": \"maybe\", \"task\": \"x\"}"}) {
            try {
                importRuns(text, "bad.json", ".");
                QFAIL(text);
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find("bad.json") != std::string::npos, e.what());
            }
        }
        // A self-test file whose check data nests 200,000 levels: refused with a message (its
        // import crashed with a segmentation fault when the data was copied).
        const std::string deep =
            "{\"checks\": [{\"name\": \"eval.relu\", \"data\": " + std::string(200000, '[') +
            std::string(200000, ']') + "}]}";
        try {
            importRuns(deep, "deep.json", ".");
            QFAIL("a file nested 200,000 levels deep was imported");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("deep.json: nests arrays and objects deeper") !=
                         std::string::npos,
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestRunStore)
#include "tst_run_store.moc"
