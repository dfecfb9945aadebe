// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/store/run_import.h"

#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/common/json_depth.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace dice {

namespace {

using nlohmann::json;

std::string sourceFor(const std::string& check, const std::string& dataDirectory) {
    std::filesystem::path path;
    if (check.rfind("eval.", 0) == 0)
        path = std::filesystem::path(dataDirectory) / "solutions" / (check.substr(5) + ".dice");
    else if (check.rfind("hack.", 0) == 0)
        path = std::filesystem::path(dataDirectory) / "hacks" / (check.substr(5) + ".dice");
    std::error_code ec;
    if (path.empty() || !std::filesystem::is_regular_file(path, ec))
        return {};
    try {
        return readTextFile(path.string());
    } catch (const Error&) {
        return {};
    }
}

RunRecord recordFrom(const json& evaluation, const std::string& where, const std::string& source,
                     const std::string& driver, const std::string& date,
                     std::vector<std::string> tags) {
    EvaluationResult result;
    try {
        result = evaluationFromJson(evaluation);
    } catch (const std::exception& e) {
        throw Error(where + ": not an evaluation: " + e.what());
    }
    if (result.task.empty())
        throw Error(where + ": the evaluation names no task");
    RunRecord record = RunStore::recordOf(result, source, json::object(), driver, std::move(tags));
    record.createdAt = date;
    return record;
}

} // namespace

ImportedRuns importRuns(const std::string& text, const std::string& origin,
                        const std::string& dataDirectory) {
    // Deeper than any result file the workbench writes (eight levels); a value nested hundreds of
    // thousands of levels deep would exhaust the stack when a part of it is copied.
    json doc = parseJsonWithin(text, 64, origin);
    ImportedRuns out;
    if (doc.is_object() && doc.contains("checks")) {
        if (!doc["checks"].is_array())
            throw Error(origin + ": \"checks\" is not a list");
        std::string driver;
        if (doc.contains("system") && doc["system"].is_object()) {
            const json& cuda = doc["system"].value("cuda", json::object());
            if (cuda.is_object())
                driver = cuda.value("driver_release", std::string());
        }
        const std::string date = doc.value("date", std::string());
        for (std::size_t i = 0; i < doc["checks"].size(); ++i) {
            const json& check = doc["checks"][i];
            if (!check.is_object())
                throw Error(origin + ": check " + std::to_string(i + 1) + " is not an object");
            const std::string name = check.value("name", std::string());
            const json data = check.value("data", json::object());
            if (!data.is_object() || !data.contains("evaluation")) {
                out.skipped.push_back(name + ": no evaluation in this check");
                continue;
            }
            out.runs.push_back(recordFrom(data["evaluation"], origin + ": check " + name,
                                          sourceFor(name, dataDirectory), driver, date,
                                          {"imported", "selftest", name}));
        }
        return out;
    }
    if (doc.is_object() && doc.contains("verdict")) {
        out.runs.push_back(recordFrom(doc, origin, {}, {}, {}, {"imported"}));
        return out;
    }
    if (doc.is_array()) {
        for (std::size_t i = 0; i < doc.size(); ++i)
            out.runs.push_back(recordFrom(doc[i], origin + ": entry " + std::to_string(i + 1), {},
                                          {}, {}, {"imported"}));
        return out;
    }
    throw Error(origin + ": neither a self-test result file (\"checks\") nor an evaluation "
                         "(\"verdict\") nor a list of evaluations");
}

} // namespace dice
