// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/store/run_store.h"

#include "core/common/error.h"
#include "core/common/utf8.h"
#include "core/system/result_file.h"

#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace dice {

struct RunStore::Lock {
    std::mutex mutex;
};

namespace {

// One prepared statement, finalised on scope exit.
class Statement {
public:
    Statement(sqlite3* db, const std::string& path, const char* sql)
        : m_db(db)
        , m_path(path) {
        if (sqlite3_prepare_v2(db, sql, -1, &m_stmt, nullptr) != SQLITE_OK)
            throw FileError(path, std::string("run store: ") + sqlite3_errmsg(db));
    }
    ~Statement() { sqlite3_finalize(m_stmt); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    void bind(int i, const std::string& text) {
        check(sqlite3_bind_text(m_stmt, i, text.c_str(), static_cast<int>(text.size()),
                                SQLITE_TRANSIENT));
    }
    void bind(int i, std::int64_t v) { check(sqlite3_bind_int64(m_stmt, i, v)); }
    void bind(int i, double v) { check(sqlite3_bind_double(m_stmt, i, v)); }
    // True while there is a row.
    bool step() {
        const int rc = sqlite3_step(m_stmt);
        if (rc == SQLITE_ROW)
            return true;
        if (rc == SQLITE_DONE)
            return false;
        throw FileError(m_path, std::string("run store: ") + sqlite3_errmsg(m_db));
    }
    std::string text(int column) const {
        const auto* p = sqlite3_column_text(m_stmt, column);
        return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
    }
    std::int64_t integer(int column) const { return sqlite3_column_int64(m_stmt, column); }
    double real(int column) const { return sqlite3_column_double(m_stmt, column); }

private:
    void check(int rc) {
        if (rc != SQLITE_OK)
            throw FileError(m_path, std::string("run store: ") + sqlite3_errmsg(m_db));
    }
    sqlite3* m_db;
    const std::string& m_path;
    sqlite3_stmt* m_stmt = nullptr;
};

void exec(sqlite3* db, const std::string& path, const char* sql) {
    char* message = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
        const std::string text = message ? message : sqlite3_errmsg(db);
        sqlite3_free(message);
        throw FileError(path, "run store: " + text);
    }
}

// Commits on commit(), rolls back otherwise.
class Transaction {
public:
    Transaction(sqlite3* db, const std::string& path)
        : m_db(db)
        , m_path(path) {
        exec(db, path, "BEGIN IMMEDIATE");
    }
    ~Transaction() {
        if (!m_done)
            sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    void commit() {
        exec(m_db, m_path, "COMMIT");
        m_done = true;
    }

private:
    sqlite3* m_db;
    const std::string& m_path;
    bool m_done = false;
};

// Version 1: one table of runs.
const char* const kSchemaV1 = R"(
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at TEXT NOT NULL,
    task TEXT NOT NULL,
    dialect TEXT NOT NULL,
    source TEXT NOT NULL,
    options TEXT NOT NULL,
    result TEXT NOT NULL
);
)";

// Version 2: level, device, driver, verdict and speedup as columns (filled from the result of
// older runs), tags, pinned baselines, indexes for the queries.
const char* const kSchemaV2 = R"(
ALTER TABLE runs ADD COLUMN level INTEGER NOT NULL DEFAULT 1;
ALTER TABLE runs ADD COLUMN device TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN driver TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN verdict TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN speedup REAL NOT NULL DEFAULT 0;
CREATE TABLE run_tags (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    tag TEXT NOT NULL,
    PRIMARY KEY (run_id, tag)
);
CREATE TABLE baselines (
    task TEXT PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE
);
CREATE INDEX runs_task ON runs(task, created_at);
CREATE INDEX runs_created ON runs(created_at);
)";

std::string homeDataDirectory() {
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg && xdg[0] == '/')
        return xdg;
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.local/share";
    return ".";
}

} // namespace

RunStore::RunStore(const std::string& path)
    : m_path(path)
    , m_lock(std::make_unique<Lock>()) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty())
        fs::create_directories(parent, ec);
    if (sqlite3_open_v2(path.c_str(), &m_db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        nullptr) != SQLITE_OK) {
        const std::string why = m_db ? sqlite3_errmsg(m_db) : "out of memory";
        sqlite3_close(m_db);
        m_db = nullptr;
        throw FileError(path, "cannot open the run store: " + why);
    }
    sqlite3_busy_timeout(m_db, 5000);
    try {
        {
            Statement check(m_db, m_path, "PRAGMA quick_check");
            if (check.step() && check.text(0) != "ok")
                throw FileError(path, "the run store is damaged: " + check.text(0));
        }
        exec(m_db, m_path, "PRAGMA journal_mode=WAL");
        exec(m_db, m_path, "PRAGMA synchronous=FULL");
        exec(m_db, m_path, "PRAGMA foreign_keys=ON");
        migrate();
    } catch (...) {
        sqlite3_close(m_db);
        m_db = nullptr;
        throw;
    }
}

RunStore::~RunStore() {
    if (m_db)
        sqlite3_close(m_db);
}

std::string RunStore::defaultPath() {
    return homeDataDirectory() + "/dice-workbench/runs.sqlite3";
}

int RunStore::schemaVersion() const {
    std::lock_guard<std::mutex> lock(m_lock->mutex);
    Statement s(m_db, m_path, "PRAGMA user_version");
    return s.step() ? static_cast<int>(s.integer(0)) : 0;
}

void RunStore::migrate() {
    int version = 0;
    {
        Statement s(m_db, m_path, "PRAGMA user_version");
        if (s.step())
            version = static_cast<int>(s.integer(0));
    }
    if (version > kSchemaVersion)
        throw FileError(m_path, "the run store has schema version " + std::to_string(version) +
                                    "; this program reads up to version " +
                                    std::to_string(kSchemaVersion) +
                                    " (it was written by a newer "
                                    "version)");
    if (version == 0) {
        // A database with tables but no version is not ours.
        Statement s(m_db, m_path, "SELECT count(*) FROM sqlite_master WHERE type = 'table'");
        if (s.step() && s.integer(0) > 0)
            throw FileError(m_path, "not a run store (it has tables but no schema version)");
    }
    while (version < kSchemaVersion) {
        Transaction t(m_db, m_path);
        if (version == 0) {
            exec(m_db, m_path, kSchemaV1);
        } else if (version == 1) {
            exec(m_db, m_path, kSchemaV2);
            std::vector<std::tuple<std::int64_t, int, std::string, std::string, double>> rows;
            {
                Statement s(m_db, m_path, "SELECT id, result FROM runs");
                while (s.step()) {
                    nlohmann::json result;
                    try {
                        result = nlohmann::json::parse(s.text(1));
                    } catch (const nlohmann::json::exception&) {
                        result = nlohmann::json::object();
                    }
                    if (!result.is_object())
                        result = nlohmann::json::object();
                    rows.emplace_back(s.integer(0), result.value("level", 1),
                                      result.value("device", std::string()),
                                      result.value("verdict", std::string()),
                                      result.value("speedup", 0.0));
                }
            }
            for (const auto& [id, level, device, verdict, speedup] : rows) {
                Statement u(m_db, m_path,
                            "UPDATE runs SET level = ?1, device = ?2, verdict = ?3, speedup = ?4 "
                            "WHERE id = ?5");
                u.bind(1, static_cast<std::int64_t>(level));
                u.bind(2, device);
                u.bind(3, verdict);
                u.bind(4, speedup);
                u.bind(5, id);
                u.step();
            }
        }
        ++version;
        exec(m_db, m_path, ("PRAGMA user_version = " + std::to_string(version)).c_str());
        t.commit();
    }
}

std::int64_t RunStore::add(RunRecord r) {
    std::lock_guard<std::mutex> lock(m_lock->mutex);
    if (r.createdAt.empty())
        r.createdAt = utcTimestamp();
    Transaction t(m_db, m_path);
    Statement s(m_db, m_path,
                "INSERT INTO runs (created_at, task, dialect, source, options, result, level, "
                "device, driver, verdict, speedup) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                "?10, ?11)");
    s.bind(1, r.createdAt);
    s.bind(2, r.task);
    s.bind(3, r.dialect);
    s.bind(4, r.source);
    // Model output may hold bytes that are not UTF-8; they are stored replaced, never refused.
    s.bind(5, r.options.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    s.bind(6, r.result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    s.bind(7, static_cast<std::int64_t>(r.level));
    s.bind(8, r.device);
    s.bind(9, r.driver);
    s.bind(10, r.verdict);
    s.bind(11, r.speedup);
    s.step();
    const std::int64_t id = sqlite3_last_insert_rowid(m_db);
    for (const auto& tag : r.tags) {
        Statement tagInsert(m_db, m_path,
                            "INSERT OR IGNORE INTO run_tags (run_id, tag) VALUES (?1, ?2)");
        tagInsert.bind(1, id);
        tagInsert.bind(2, tag);
        tagInsert.step();
    }
    t.commit();
    return id;
}

namespace {

const char* const kSelect =
    "SELECT r.id, r.created_at, r.task, r.level, r.dialect, r.source, r.options, r.device, "
    "r.driver, r.result, r.verdict, r.speedup, "
    "(SELECT group_concat(tag, char(31)) FROM run_tags WHERE run_id = r.id), "
    "EXISTS (SELECT 1 FROM baselines b WHERE b.run_id = r.id) FROM runs r ";

RunRecord readRow(const Statement& s) {
    RunRecord r;
    r.id = s.integer(0);
    r.createdAt = s.text(1);
    r.task = s.text(2);
    r.level = static_cast<int>(s.integer(3));
    r.dialect = s.text(4);
    r.source = s.text(5);
    auto parse = [](const std::string& text) {
        try {
            return nlohmann::json::parse(text);
        } catch (const nlohmann::json::exception&) {
            return nlohmann::json::object();
        }
    };
    r.options = parse(s.text(6));
    r.device = s.text(7);
    r.driver = s.text(8);
    r.result = parse(s.text(9));
    r.verdict = s.text(10);
    r.speedup = s.real(11);
    const std::string tags = s.text(12);
    std::size_t start = 0;
    while (!tags.empty() && start <= tags.size()) {
        const std::size_t sep = tags.find('\x1f', start);
        r.tags.push_back(
            tags.substr(start, sep == std::string::npos ? std::string::npos : sep - start));
        if (sep == std::string::npos)
            break;
        start = sep + 1;
    }
    r.baseline = s.integer(13) != 0;
    return r;
}

} // namespace

std::vector<RunRecord> RunStore::list(const RunQuery& query) const {
    std::lock_guard<std::mutex> lock(m_lock->mutex);
    std::string sql = kSelect;
    if (!query.task.empty())
        sql += "WHERE r.task = ?1 ";
    switch (query.order) {
    case RunQuery::Order::Newest:
        sql += "ORDER BY r.created_at DESC, r.id DESC";
        break;
    case RunQuery::Order::Oldest:
        sql += "ORDER BY r.created_at ASC, r.id ASC";
        break;
    case RunQuery::Order::Fastest:
        sql += "ORDER BY r.speedup DESC, r.id DESC";
        break;
    case RunQuery::Order::Task:
        sql += "ORDER BY r.task ASC, r.created_at DESC, r.id DESC";
        break;
    }
    if (query.limit > 0)
        sql += " LIMIT " + std::to_string(query.limit);
    Statement s(m_db, m_path, sql.c_str());
    if (!query.task.empty())
        s.bind(1, query.task);
    std::vector<RunRecord> out;
    while (s.step())
        out.push_back(readRow(s));
    return out;
}

std::optional<RunRecord> RunStore::get(std::int64_t id) const {
    std::lock_guard<std::mutex> lock(m_lock->mutex);
    Statement s(m_db, m_path, (std::string(kSelect) + "WHERE r.id = ?1").c_str());
    s.bind(1, id);
    if (!s.step())
        return std::nullopt;
    return readRow(s);
}

void RunStore::pinBaseline(std::int64_t id) {
    std::lock_guard<std::mutex> lock(m_lock->mutex);
    Transaction t(m_db, m_path);
    std::string task;
    {
        Statement s(m_db, m_path, "SELECT task FROM runs WHERE id = ?1");
        s.bind(1, id);
        if (!s.step())
            throw Error("run store: there is no run " + std::to_string(id));
        task = s.text(0);
    }
    Statement s(m_db, m_path, "INSERT OR REPLACE INTO baselines (task, run_id) VALUES (?1, ?2)");
    s.bind(1, task);
    s.bind(2, id);
    s.step();
    t.commit();
}

void RunStore::unpinBaseline(const std::string& task) {
    std::lock_guard<std::mutex> lock(m_lock->mutex);
    Transaction t(m_db, m_path);
    Statement s(m_db, m_path, "DELETE FROM baselines WHERE task = ?1");
    s.bind(1, task);
    s.step();
    t.commit();
}

std::optional<RunRecord> RunStore::baseline(const std::string& task) const {
    std::lock_guard<std::mutex> lock(m_lock->mutex);
    Statement s(
        m_db, m_path,
        (std::string(kSelect) + "WHERE r.id = (SELECT run_id FROM baselines WHERE task = ?1)")
            .c_str());
    s.bind(1, task);
    if (!s.step())
        return std::nullopt;
    return readRow(s);
}

bool RunStore::remove(std::int64_t id) {
    std::lock_guard<std::mutex> lock(m_lock->mutex);
    Transaction t(m_db, m_path);
    Statement s(m_db, m_path, "DELETE FROM runs WHERE id = ?1");
    s.bind(1, id);
    s.step();
    const bool removed = sqlite3_changes(m_db) > 0;
    t.commit();
    return removed;
}

RunRecord RunStore::recordOf(const EvaluationResult& result, const std::string& source,
                             const nlohmann::json& options, const std::string& driver,
                             std::vector<std::string> tags) {
    RunRecord r;
    r.task = result.task;
    r.level = result.level;
    r.dialect = result.dialect;
    // What the evaluator judged: bytes that are not UTF-8 went to it as U+FFFD, and a record
    // that keeps them could not be written out as JSON.
    r.source = source;
    repairUtf8(r.source);
    r.options = options;
    r.device = result.device;
    r.driver = driver;
    r.result = toJson(result);
    r.verdict = toString(result.verdict);
    r.speedup = result.speedup;
    r.tags = std::move(tags);
    return r;
}

} // namespace dice
