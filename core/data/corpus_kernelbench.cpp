// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/corpus_kernelbench.h"

#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/kernelbench/importer.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <map>
#include <regex>

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

// A draw from the task's name alone (FNV-1a), so that a problem's surface is the same whichever
// other tasks the corpus has and on every platform.
std::uint64_t draw(const std::string& name, const char* what) {
    std::uint64_t h = 1469598103934665603ULL;
    for (const char c : name + "/" + what) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ULL;
    }
    // The low bits follow the parity of the name's bytes (relu_v0, relu_v1, ...); the high ones
    // are mixed.
    return h >> 32;
}

// "Bias and GELU (bfloat16)" -> "Bias_and_GELU_bfloat16": a file stem as KernelBench names its
// problems after the operator (19_ReLU.py, 47_Sum_reduction_over_a_dimension.py).
std::string operatorStem(const std::string& title) {
    std::string out;
    for (const char c : title) {
        if (std::isalnum(static_cast<unsigned char>(c)))
            out += c;
        else if (!out.empty() && out.back() != '_')
            out += '_';
    }
    while (!out.empty() && out.back() == '_')
        out.pop_back();
    return out.empty() ? "Model" : out;
}

// The module text with KernelBench's surface: its docstring rewritten as KernelBench's problems
// word theirs, and in half the tasks the size constants named as theirs are.
std::string kernelbenchSurface(const Task& task, std::string module) {
    const std::string open = "class Model(nn.Module):\n    \"\"\"";
    const auto start = module.find(open);
    const auto end =
        start == std::string::npos ? std::string::npos : module.find("\"\"\"", start + open.size());
    if (end != std::string::npos) {
        std::string title = task.title;
        if (const auto paren = title.find(" ("); paren != std::string::npos)
            title.erase(paren);
        std::string words;
        switch (draw(task.name, "docstring") % 4) {
        case 0:
            words = task.description;
            break;
        case 1:
            words = "Simple model that performs " + title + ".";
            break;
        case 2:
            words = "Simple model that performs a " + title + " operation.";
            break;
        default:
            words = "A model that computes " + title + ".";
            break;
        }
        module.replace(start + open.size(), end - start - open.size(), "\n    " + words + "\n    ");
    }
    // After the docstring only: its prose says "2-D".
    const auto code = end == std::string::npos ? 0 : module.find("\"\"\"", start + open.size());
    if (draw(task.name, "sizes") % 2 == 0) {
        static const std::pair<const char*, const char*> names[] = {
            {"B", "batch_size"}, {"D", "dim"},   {"C", "channels"}, {"L", "length"},
            {"H", "height"},     {"W", "width"}, {"N", "size"}};
        for (const auto& [from, to] : names)
            module.replace(code, std::string::npos,
                           std::regex_replace(module.substr(code),
                                              std::regex(std::string("\\b") + from + "\\b"), to));
    }
    return module;
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
        const bool operatorName = options.varySurface && draw(task.name, "stem") % 2 == 0;
        const fs::path file =
            folder / (std::to_string(++numbers[task.level]) + "_" +
                      (operatorName ? operatorStem(task.title) : task.name) + ".py");
        writeFileAtomically(file.string(), options.varySurface
                                               ? kernelbenchSurface(task, task.pytorchModule)
                                               : task.pytorchModule);
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
