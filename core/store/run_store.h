// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/evaluation.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace dice {

// One evaluation as kept in the run store.
struct RunRecord {
    std::int64_t id = 0;
    std::string createdAt; // UTC, 2026-12-02T17:41:13Z
    std::string task;
    int level = 1;
    std::string dialect = "native";
    std::string source;                                // the candidate
    nlohmann::json options = nlohmann::json::object(); // EvalOptions as JSON
    std::string device;
    std::string driver;
    nlohmann::json result = nlohmann::json::object(); // EvaluationResult as JSON
    std::string verdict;
    double speedup = 0;
    std::vector<std::string> tags;
    bool baseline = false; // the pinned baseline of its task
};

struct RunQuery {
    std::string task; // empty: every task
    enum class Order { Newest, Oldest, Fastest, Task } order = Order::Newest;
    int limit = 0; // 0: all
};

// The history of evaluations in an SQLite database: WAL, every write in one transaction (a crash
// loses at most the run being written), a schema versioned with PRAGMA user_version and migrated
// step by step on open. Safe to share between threads; several processes (the CLI and the GUI)
// may open one file.
class RunStore {
public:
    static constexpr int kSchemaVersion = 2;

    // Opens or creates the database and migrates it. Throws FileError naming the file when it is
    // not a run store, is damaged, or was written by a newer version.
    explicit RunStore(const std::string& path);
    ~RunStore();
    RunStore(const RunStore&) = delete;
    RunStore& operator=(const RunStore&) = delete;

    // $XDG_DATA_HOME/dice-workbench/runs.sqlite3, else ~/.local/share/dice-workbench/...
    static std::string defaultPath();

    const std::string& path() const { return m_path; }
    int schemaVersion() const;

    // Adds a run (its id and creation time are filled in) and returns its id.
    std::int64_t add(RunRecord record);
    std::vector<RunRecord> list(const RunQuery& query = {}) const;
    std::optional<RunRecord> get(std::int64_t id) const;
    // Makes a run the baseline of its task (replacing the previous one).
    void pinBaseline(std::int64_t id);
    void unpinBaseline(const std::string& task);
    std::optional<RunRecord> baseline(const std::string& task) const;
    // Returns false when there was no such run.
    bool remove(std::int64_t id);

    // A record of an evaluation, ready for add().
    static RunRecord recordOf(const EvaluationResult& result, const std::string& source,
                              const nlohmann::json& options, const std::string& driver,
                              std::vector<std::string> tags = {});

private:
    void migrate();
    sqlite3* m_db = nullptr;
    std::string m_path;
    struct Lock;
    std::unique_ptr<Lock> m_lock;
};

} // namespace dice
