// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/reward/reward_batch.h"

#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <memory>

namespace dice {

namespace {

constexpr FileLimit kBatchFile{"a batch file", limits::kGiB};
constexpr std::size_t kMaxItems = 1u << 20;

class BatchReader {
public:
    BatchReader(std::string origin, std::string base)
        : m_origin(std::move(origin))
        , m_base(std::move(base)) {}

    RewardItem read(const nlohmann::json& line, int number) {
        m_line = number;
        if (!line.is_object())
            fail("", "each line must be a JSON object");
        for (const auto& field : line.items())
            if (field.key() != "task" && field.key() != "candidate" &&
                field.key() != "candidate_file" && field.key() != "name" &&
                field.key() != "dialect" && field.key() != "reference" &&
                field.key() != "reference_file" && field.key() != "level")
                fail(field.key(), "is not a field of a batch line");
        RewardItem item;
        item.dialect = text(line, "dialect", "native");
        if (item.dialect != "native" && item.dialect != "kernelbench")
            fail("dialect", "must be \"native\" or \"kernelbench\"");
        if (line.contains("candidate") == line.contains("candidate_file"))
            fail("candidate", "give the candidate's source or \"candidate_file\", one of them");
        if (line.contains("candidate")) {
            item.source = text(line, "candidate", "");
            item.name = text(line, "name", "candidate");
        } else {
            const std::string path = resolve(text(line, "candidate_file", ""));
            item.source = readTextFile(path, item.dialect == "native" ? limits::kCandidate
                                                                      : limits::kKernelBenchSource);
            item.name = text(line, "name", std::filesystem::path(path).filename().string());
        }
        if (item.dialect == "native") {
            if (!line.contains("task"))
                fail("task", "a native candidate needs its task (a built-in name, a file, or "
                             "the task itself)");
            item.task = task(line["task"]);
        } else {
            if (line.contains("reference") == line.contains("reference_file"))
                fail("reference", "a KernelBench answer needs its problem: \"reference\" or "
                                  "\"reference_file\", one of them");
            item.reference = line.contains("reference")
                                 ? text(line, "reference", "")
                                 : readTextFile(resolve(text(line, "reference_file", "")),
                                                limits::kKernelBenchSource);
            item.task.name = text(line, "task", "problem");
            if (line.contains("level")) {
                if (!line["level"].is_number_integer() || line["level"].get<long long>() < 1 ||
                    line["level"].get<long long>() > 4)
                    fail("level", "must be 1, 2, 3 or 4");
                item.task.level = static_cast<int>(line["level"].get<long long>());
            }
        }
        return item;
    }

private:
    [[noreturn]] void fail(const std::string& field, const std::string& message) const {
        throw Error(m_origin + ":" + std::to_string(m_line) + ": " +
                    (field.empty() ? "" : "\"" + field + "\" ") + message);
    }

    std::string text(const nlohmann::json& line, const char* key, const std::string& fallback) {
        if (!line.contains(key))
            return fallback;
        if (!line[key].is_string())
            fail(key, "must be a string");
        return line[key].get<std::string>();
    }

    std::string resolve(const std::string& path) const {
        const std::filesystem::path p(path);
        return p.is_absolute() || m_base.empty() ? path
                                                 : (std::filesystem::path(m_base) / p).string();
    }

    Task task(const nlohmann::json& value) {
        if (value.is_object()) {
            try {
                return taskFromJson(value, m_origin + ":" + std::to_string(m_line));
            } catch (const Error& e) {
                fail("task", e.what());
            }
        }
        if (!value.is_string())
            fail("task", "must be a built-in task's name, a task file or a task object");
        const std::string name = value.get<std::string>();
        auto cached = m_tasks.find(name);
        if (cached != m_tasks.end())
            return cached->second;
        std::error_code ec;
        const std::string path = resolve(name);
        Task t;
        if (std::filesystem::is_regular_file(path, ec)) {
            t = loadTask(path);
        } else {
            if (!m_builtin)
                m_builtin = std::make_unique<TaskSuite>(loadTaskSuite(builtinTaskDirectory()));
            const Task* found = m_builtin->find(name);
            if (!found)
                fail("task", "\"" + name + "\" is neither a built-in task nor a task file");
            t = *found;
        }
        m_tasks.emplace(name, t);
        return t;
    }

    std::string m_origin;
    std::string m_base;
    int m_line = 0;
    std::map<std::string, Task> m_tasks;
    std::unique_ptr<TaskSuite> m_builtin;
};

} // namespace

std::vector<RewardItem> parseRewardBatch(const std::string& text, const std::string& origin,
                                         const std::string& baseDirectory) {
    BatchReader reader(origin, baseDirectory);
    std::vector<RewardItem> items;
    std::size_t start = 0;
    int number = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        const std::string line = text.substr(start, end - start);
        start = end + 1;
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        nlohmann::json value;
        try {
            value = nlohmann::json::parse(line);
        } catch (const nlohmann::json::exception& e) {
            throw Error(origin + ":" + std::to_string(number) + ": not valid JSON: " + e.what());
        }
        if (items.size() >= kMaxItems)
            throw Error(origin + ": more than " + std::to_string(kMaxItems) + " candidates");
        items.push_back(reader.read(value, number));
    }
    if (items.empty())
        throw Error(origin + ": no candidates");
    return items;
}

std::vector<RewardItem> readRewardBatch(const std::string& path) {
    return parseRewardBatch(readTextFile(path, kBatchFile), path,
                            std::filesystem::path(path).parent_path().string());
}

} // namespace dice
