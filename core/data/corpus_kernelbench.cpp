// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/corpus_kernelbench.h"

#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/kernelbench/importer.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace dice {

namespace {

// "x float32, weight float32": what a solution's forward receives, in order.
std::string signature(const Task& task) {
    std::string out;
    for (const auto* list : {&task.inputs, &task.parameters})
        for (const auto& t : *list)
            out += (out.empty() ? "" : ", ") + t.name + " " + toString(t.dtype);
    return out;
}

} // namespace

std::vector<SynthTask> kernelbenchStyleTasks(const std::vector<SynthTask>& tasks,
                                             const KernelBenchStyleOptions& options,
                                             KernelBenchStyleReport* report) {
    namespace fs = std::filesystem;
    KernelBenchStyleReport local;
    KernelBenchStyleReport& r = report ? *report : local;
    r = {};
    const fs::path root(options.directory);
    // The importer takes a problem's level from its folder and its number from the file's name,
    // as KernelBench numbers its problems (19_ReLU.py): N_TASK.py, N counting from 1 per level.
    std::map<std::string, std::size_t> byFile;
    std::map<int, std::string> folders;
    std::map<int, int> numbers;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        const Task& task = tasks[i].task;
        if (task.pytorchModule.empty())
            continue;
        const fs::path folder = root / "problems" / ("level" + std::to_string(task.level));
        folders[task.level] = folder.string();
        std::error_code ec;
        fs::create_directories(folder, ec);
        if (ec)
            throw FileError(folder.string(), "cannot create the folder: " + ec.message());
        const fs::path file =
            folder / (std::to_string(++numbers[task.level]) + "_" + task.name + ".py");
        writeFileAtomically(file.string(), task.pytorchModule);
        byFile[file.string()] = i;
        ++r.problems;
    }
    std::vector<std::pair<std::size_t, SynthTask>> found;
    for (const auto& [level, folder] : folders) {
        kernelbench::ImportOptions import;
        import.outputDirectory = (root / "tasks").string();
        import.level = level;
        import.python = options.python;
        const auto imported = kernelbench::importKernelBench({folder}, import);
        r.python = imported.python;
        r.torchVersion = imported.torchVersion;
        for (const auto& problem : imported.problems) {
            const auto source = byFile.find(problem.source);
            if (source == byFile.end())
                throw Error(
                    "the KernelBench importer reported a problem the corpus did not write: " +
                    problem.source);
            const SynthTask& original = tasks[source->second];
            const std::string& name = original.task.name;
            if (!problem.converted) {
                r.skipped.emplace_back(name, problem.reason);
                continue;
            }
            ++r.converted;
            SynthTask t;
            t.task = loadTask(problem.taskFile);
            if (signature(t.task) != signature(original.task)) {
                r.skipped.emplace_back(name, "the converted task takes (" + signature(t.task) +
                                                 "), the solution (" + signature(original.task) +
                                                 ")");
                continue;
            }
            t.solution = original.solution;
            t.family = original.family;
            t.split = original.split;
            t.kernelbenchStyle = true;
            found.emplace_back(source->second, std::move(t));
        }
    }
    std::sort(found.begin(), found.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<SynthTask> out;
    out.reserve(found.size());
    for (auto& entry : found)
        out.push_back(std::move(entry.second));
    return out;
}

} // namespace dice
