// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/kernelbench/importer.h"

#include "core/common/child_process.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/kernelbench/python_runtime.h"
#include "core/system/sandbox.h"
#include "core/tasks/task.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>

namespace dice::kernelbench {

int ImportReport::converted() const {
    return static_cast<int>(std::count_if(problems.begin(), problems.end(),
                                          [](const ImportedProblem& p) { return p.converted; }));
}

namespace {

std::vector<std::string> expand(const std::vector<std::string>& paths) {
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    for (const auto& path : paths) {
        std::error_code ec;
        if (fs::is_directory(path, ec)) {
            std::vector<std::string> inside;
            for (const auto& entry : fs::directory_iterator(path, ec))
                if (entry.is_regular_file() && entry.path().extension() == ".py")
                    inside.push_back(entry.path().string());
            std::sort(inside.begin(), inside.end());
            if (inside.empty())
                throw FileError(path, "no KernelBench problem files (*.py) in this folder");
            files.insert(files.end(), inside.begin(), inside.end());
        } else if (fs::is_regular_file(path, ec)) {
            files.push_back(path);
        } else {
            throw FileError(path, "no such file or folder");
        }
    }
    return files;
}

// A task the importer wrote counts as converted only if the workbench loads it: its own checks
// (presets, sizes, the bytes a preset may hold) are the word on what a task is. One it refuses is
// removed with its parameters, and the problem says why.
void checkWrittenTask(ImportedProblem& problem) {
    if (!problem.converted || problem.taskFile.empty())
        return;
    try {
        loadTask(problem.taskFile);
    } catch (const Error& e) {
        problem.converted = false;
        problem.reason = std::string("the task it made does not load: ") + e.what();
        std::error_code ec;
        const std::filesystem::path task(problem.taskFile);
        std::filesystem::remove(task, ec);
        std::filesystem::remove(task.parent_path() / (task.stem().string() + ".safetensors"), ec);
        problem.taskFile.clear();
    }
}

ImportedProblem problemFromJson(const nlohmann::json& j) {
    ImportedProblem p;
    p.source = j.value("source", std::string());
    p.converted = j.value("converted", false);
    p.task = j.value("task", std::string());
    p.taskFile = j.value("task_file", std::string());
    p.reason = j.value("reason", std::string());
    p.maxError = j.value("max_error", 0.0);
    for (const auto& note : j.value("notes", nlohmann::json::array()))
        if (note.is_string())
            p.notes.push_back(note.get<std::string>());
    return p;
}

// Why the importer ended while it converted a problem, in words a user can act on.
std::string lostProblemReason(const ChildResult& run, int problemTimeoutMs,
                              std::int64_t memoryLimit) {
    const std::string limit = std::to_string(memoryLimit >> 20) + " MiB";
    std::string reason;
    if (run.silent)
        reason = "the conversion took longer than " + std::to_string(problemTimeoutMs / 1000) +
                 " s and was stopped";
    else if (run.exit.signal == SIGKILL)
        reason = "the importer was killed (signal 9) while converting it: the machine ran out of "
                 "memory, or something else ended it";
    else
        reason = "the importer " + run.exit.describe() + " while converting it";
    // The last words of Python, when it left some: a MemoryError names the cap.
    std::string last = run.err;
    while (!last.empty() && (last.back() == '\n' || last.back() == '\r'))
        last.pop_back();
    const std::size_t cut = last.rfind('\n');
    last = cut == std::string::npos ? last : last.substr(cut + 1);
    if (last.find("MemoryError") != std::string::npos ||
        last.find("Cannot allocate memory") != std::string::npos)
        reason += " (it needed more than the importer's " + limit + " of memory)";
    else if (!last.empty())
        reason += ": " + last.substr(0, 300);
    return reason;
}

} // namespace

std::int64_t defaultImportMemoryLimit() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGE_SIZE);
    const std::int64_t half =
        pages > 0 && pageSize > 0 ? static_cast<std::int64_t>(pages) * pageSize / 2 : 0;
    const std::int64_t most = std::int64_t(32) << 30;
    return half > 0 ? std::min(half, most) : most;
}

ImportReport importKernelBench(const std::vector<std::string>& paths, const ImportOptions& options,
                               const std::function<void(const ImportedProblem&)>& onProblem) {
    const std::vector<std::string> files = expand(paths);
    PythonInfo python;
    if (!options.python.empty()) {
        python = probePython(options.python);
        if (!python.error.empty() || !python.torch)
            throw Error("python " + options.python + " cannot import KernelBench problems: " +
                        (python.error.empty() ? std::string("PyTorch is missing") : python.error));
    } else {
        std::vector<PythonInfo> tried;
        auto found = findPython(PythonNeed::Torch, &tried);
        if (!found)
            throw Error(explainMissingPython(tried, PythonNeed::Torch));
        python = *found;
    }
    ImportReport report;
    report.python = python.executable;
    report.torchVersion = python.torchVersion;

    // A problem file is a program: it runs inside the sandbox, reading only its own files and
    // writing only the output folder, and what it prints is data (docs/sandbox.md).
    std::vector<std::string> argv = {python.executable, pythonScript("kernelbench_sandbox.py"),
                                     "--sandbox-program", sandboxProgram()};
    for (const auto& file : files)
        argv.insert(argv.end(), {"--read", file});
    // The problem's code and PyTorch need a home and a temporary folder that go with the import
    // (the first folder given is that); only an import that writes tasks may write the output.
    const TemporaryFolder scratch("dice-import");
    argv.insert(argv.end(), {"--write", scratch.path()});
    if (!options.dryRun && !options.verifyBench)
        argv.insert(argv.end(), {"--write", options.outputDirectory});
    const std::int64_t memoryLimit =
        options.memoryLimitBytes > 0 ? options.memoryLimitBytes : defaultImportMemoryLimit();
    argv.insert(argv.end(), {"--data-limit", std::to_string(memoryLimit)});
    if (options.device.rfind("cuda", 0) == 0)
        argv.push_back("--gpu");
    argv.insert(argv.end(),
                {"--", python.executable, pythonScript("kernelbench_import.py"), "--jsonl"});
    if (options.verifyBench) {
        argv.push_back("--verify-bench");
        if (options.fastInit)
            argv.push_back("--fast-init");
    } else if (!options.dryRun) {
        std::error_code ec;
        std::filesystem::create_directories(options.outputDirectory, ec);
        if (ec)
            throw FileError(options.outputDirectory, "cannot create the folder: " + ec.message());
        argv.push_back("--output");
        argv.push_back(options.outputDirectory);
    } else {
        argv.push_back("--dry-run");
        if (options.fastInit)
            argv.push_back("--fast-init");
    }
    if (!options.device.empty()) {
        argv.push_back("--device");
        argv.push_back(options.device);
    }
    if (options.level > 0) {
        argv.push_back("--level");
        argv.push_back(std::to_string(options.level));
    }
    std::string protocolError;
    ChildRunOptions runOptions;
    runOptions.idleTimeoutMs = options.problemTimeoutMs;
    // The reports come one per file, in the order the files were given: a problem file that
    // manages to print a report of its own breaks that order and the import fails.
    runOptions.onStdoutLine = [&](const std::string& line) {
        if (line.empty() || line[0] != '{' || !protocolError.empty())
            return;
        try {
            const auto j = nlohmann::json::parse(line);
            if (!j.is_object() || !j.contains("source"))
                return;
            const std::size_t next = report.problems.size();
            if (!j["source"].is_string() || next >= files.size() ||
                j["source"].get<std::string>() != files[next]) {
                protocolError = "the importer reported a problem out of turn (expected " +
                                (next < files.size() ? files[next] : std::string("no more")) +
                                "): a problem file printed a report of its own?";
                return;
            }
            ImportedProblem problem = problemFromJson(j);
            checkWrittenTask(problem);
            if (onProblem)
                onProblem(problem);
            report.problems.push_back(std::move(problem));
        } catch (const nlohmann::json::exception& e) {
            protocolError = std::string("the importer printed an unreadable line: ") + e.what();
        }
    };
    // One importer for the files left: a problem that ends it costs that problem only.
    while (report.problems.size() < files.size()) {
        const std::size_t first = report.problems.size();
        std::vector<std::string> command = argv;
        command.insert(command.end(), files.begin() + static_cast<std::ptrdiff_t>(first),
                       files.end());
        const ChildResult run = runChild({command}, runOptions);
        if (!run.exit.started())
            throw Error("cannot run the KernelBench importer: " + run.exit.startError);
        if (!protocolError.empty())
            throw Error(protocolError);
        std::string tail = run.err;
        if (tail.size() > 2000)
            tail = tail.substr(tail.size() - 2000);
        const bool killed = run.exit.timedOut || run.exit.signal != 0;
        if (report.problems.size() == files.size()) {
            // Status 1: some problems did not convert, which the report says one by one.
            if (!killed && run.exit.exitCode != 0 && run.exit.exitCode != 1)
                throw Error("the KernelBench importer failed (" + run.exit.describe() +
                            "): " + tail);
            break;
        }
        // An importer that ends of itself before its first report is broken as a whole; one that
        // is killed, or ends after some reports, was ended by the problem in hand.
        if (!killed && report.problems.size() == first)
            throw Error("the KernelBench importer failed (" + run.exit.describe() + "): " + tail);
        ImportedProblem lost;
        lost.source = files[report.problems.size()];
        lost.reason = lostProblemReason(run, options.problemTimeoutMs, memoryLimit);
        if (onProblem)
            onProblem(lost);
        report.problems.push_back(std::move(lost));
    }
    return report;
}

} // namespace dice::kernelbench
