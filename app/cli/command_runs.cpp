// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/store/run_import.h"
#include "core/store/run_store.h"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>

namespace dice::cli {

namespace {

const char* const kUsage =
    "usage: dice runs [list] [--task NAME] [--sort newest|oldest|fastest|task] [--limit N]\n"
    "       dice runs show ID | pin ID | unpin TASK | baseline TASK | delete ID\n"
    "       dice runs import FILE    (a self-test result file or evaluations as JSON)\n"
    "options: --store DB (default $XDG_DATA_HOME/dice-workbench/runs.sqlite3), --json\n\n"
    "Lists and manages the stored evaluations. 'pin' makes a run the baseline of its task.\n";

nlohmann::json recordJson(const RunRecord& r, bool withSource) {
    nlohmann::json j = {{"id", r.id},         {"created_at", r.createdAt}, {"task", r.task},
                        {"level", r.level},   {"dialect", r.dialect},      {"device", r.device},
                        {"driver", r.driver}, {"verdict", r.verdict},      {"speedup", r.speedup},
                        {"tags", r.tags},     {"baseline", r.baseline},    {"options", r.options}};
    if (withSource) {
        j["source"] = r.source;
        j["result"] = r.result;
    }
    return j;
}

std::int64_t runId(const std::string& text) {
    char* end = nullptr;
    const long long id = std::strtoll(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '\0' || id <= 0)
        throw Error("'" + text + "' is not a run id");
    return id;
}

void printRecord(const RunRecord& r) {
    std::cout << "run " << r.id << " (" << r.createdAt << ")" << (r.baseline ? ", baseline" : "")
              << "\ntask " << r.task << ", level " << r.level << ", " << r.dialect << "\nverdict "
              << r.verdict << ", speedup " << r.speedup << "\ndevice "
              << (r.device.empty() ? "none" : r.device) << ", driver " << r.driver << "\n";
    if (!r.tags.empty()) {
        std::cout << "tags";
        for (const auto& t : r.tags)
            std::cout << " " << t;
        std::cout << "\n";
    }
    std::cout << "message " << r.result.value("message", std::string()) << "\n\n" << r.source;
}

} // namespace

int commandRuns(const Invocation& in) {
    const Arguments args(in.args, {"json", "help"}, {"task", "store", "sort", "limit"});
    if (!args.ok()) {
        std::cerr << "dice runs: " << args.error() << "\n";
        return 2;
    }
    if (args.flag("help")) {
        std::cout << kUsage;
        return 0;
    }
    const auto& pos = args.positionals();
    const std::string action = pos.empty() ? "list" : pos[0];
    const bool json = args.flag("json");
    RunStore store(args.value("store", RunStore::defaultPath()));
    if (action == "list" && pos.size() <= 1) {
        RunQuery query;
        query.task = args.value("task");
        query.limit = args.integer("limit", 0);
        const std::string sort = args.value("sort", "newest");
        if (sort == "newest")
            query.order = RunQuery::Order::Newest;
        else if (sort == "oldest")
            query.order = RunQuery::Order::Oldest;
        else if (sort == "fastest")
            query.order = RunQuery::Order::Fastest;
        else if (sort == "task")
            query.order = RunQuery::Order::Task;
        else
            throw UsageError("--sort takes newest, oldest, fastest or task, not '" + sort + "'");
        const auto runs = store.list(query);
        if (json) {
            nlohmann::json list = nlohmann::json::array();
            for (const auto& r : runs)
                list.push_back(recordJson(r, false));
            std::cout << list.dump(2) << "\n";
            return 0;
        }
        std::cout << std::left << std::setw(6) << "id" << std::setw(22) << "time" << std::setw(26)
                  << "task" << std::setw(18) << "verdict" << std::setw(10) << "speedup"
                  << "device\n";
        for (const auto& r : runs)
            std::cout << std::left << std::setw(6) << r.id << std::setw(22) << r.createdAt
                      << std::setw(26) << (r.task + (r.baseline ? " *" : "")) << std::setw(18)
                      << r.verdict << std::setw(10) << r.speedup
                      << (r.device.empty() ? "-" : r.device) << "\n";
        std::cout << runs.size() << " run(s) in " << store.path() << " (* baseline)\n";
        return 0;
    }
    if (pos.size() != 2) {
        std::cerr << kUsage;
        return 2;
    }
    if (action == "import") {
        const ImportedRuns imported =
            importRuns(readTextFile(pos[1], limits::kResultFile), pos[1], dataDirectory());
        for (const auto& why : imported.skipped)
            std::cerr << "skipped " << why << "\n";
        for (const auto& run : imported.runs) {
            const auto id = store.add(run);
            std::cout << "run " << id << ": " << run.task << ", " << run.verdict
                      << (run.device.empty() ? std::string() : ", " + run.device) << "\n";
        }
        std::cout << imported.runs.size() << " run(s) imported into " << store.path() << "\n";
        return 0;
    }
    if (action == "show") {
        const auto r = store.get(runId(pos[1]));
        if (!r)
            throw Error("there is no run " + pos[1]);
        if (json)
            std::cout << recordJson(*r, true).dump(2) << "\n";
        else
            printRecord(*r);
        return 0;
    }
    if (action == "baseline") {
        const auto r = store.baseline(pos[1]);
        if (!r) {
            std::cerr << "task " << pos[1] << " has no baseline\n";
            return 1;
        }
        if (json)
            std::cout << recordJson(*r, true).dump(2) << "\n";
        else
            printRecord(*r);
        return 0;
    }
    if (action == "pin") {
        store.pinBaseline(runId(pos[1]));
        std::cout << "run " << pos[1] << " is now its task's baseline\n";
        return 0;
    }
    if (action == "unpin") {
        store.unpinBaseline(pos[1]);
        std::cout << "task " << pos[1] << " has no baseline now\n";
        return 0;
    }
    if (action == "delete") {
        if (!store.remove(runId(pos[1])))
            throw Error("there is no run " + pos[1]);
        std::cout << "deleted run " << pos[1] << "\n";
        return 0;
    }
    std::cerr << kUsage;
    return 2;
}

} // namespace dice::cli
