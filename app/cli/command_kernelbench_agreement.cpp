// SPDX-License-Identifier: GPL-3.0-or-later
// dice kernelbench agreement: do the two evaluators agree? Hand-written solutions of a few
// KernelBench problems exist in both dialects with the same device code; the Python evaluator runs
// the KernelBench files, the native evaluator (dice eval) runs the .dice files against the imported
// tasks, and the result file puts verdicts, speedups and the time per evaluation side by side.
#include "app/cli/arguments.h"
#include "core/common/child_process.h"
#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/eval/evaluation.h"
#include "core/kernelbench/importer.h"
#include "core/kernelbench/python_evaluator.h"
#include "core/kernelbench/python_runtime.h"
#include "core/system/result_file.h"
#include "core/system/sandbox.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <thread>

namespace dice::cli {

namespace {

namespace fs = std::filesystem;

struct Entry {
    std::string name; // "level1/19_ReLU"
    int level = 1;
    std::string problem;  // the KernelBench problem file
    std::string solution; // ModelNew with load_inline
    std::string native;   // the same kernels as a .dice file ("" when there is none)
    kernelbench::PythonEvaluator::Prebuilt prebuild;
    std::optional<EvaluationResult> python;
    std::string pythonError;
    std::string taskFile;
    std::optional<EvaluationResult> nativeResult;
    std::string nativeError;
    double nativeWallMs = 0;
};

double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

std::vector<Entry> findSolutions(const std::string& solutions, const std::string& problems,
                                 int onlyLevel) {
    std::vector<Entry> entries;
    for (int level = 1; level <= 3; ++level) {
        if (onlyLevel != 0 && level != onlyLevel)
            continue;
        const fs::path dir = fs::path(solutions) / ("level" + std::to_string(level));
        std::error_code ec;
        if (!fs::is_directory(dir, ec))
            continue;
        std::vector<fs::path> files;
        for (const auto& f : fs::directory_iterator(dir, ec))
            if (f.path().extension() == ".py")
                files.push_back(f.path());
        std::sort(files.begin(), files.end());
        for (const auto& file : files) {
            Entry e;
            e.level = level;
            e.name = "level" + std::to_string(level) + "/" + file.stem().string();
            e.solution = file.string();
            e.problem =
                (fs::path(problems) / ("level" + std::to_string(level)) / file.filename()).string();
            if (!fs::exists(e.problem))
                throw FileError(e.problem, "no KernelBench problem for the solution " + e.solution);
            const fs::path native = fs::path(file).replace_extension(".dice");
            if (fs::exists(native))
                e.native = native.string();
            entries.push_back(std::move(e));
        }
    }
    if (entries.empty())
        throw FileError(solutions, onlyLevel != 0
                                       ? "no solutions (level" + std::to_string(onlyLevel) +
                                             "/NAME.py) in this folder"
                                       : "no solutions (levelN/NAME.py) in this folder");
    return entries;
}

// `dice eval` prints one evaluation result, or a list of them under "results".
std::optional<EvaluationResult> parseNative(const std::string& out) {
    const auto j = nlohmann::json::parse(out);
    if (j.is_object() && j.contains("verdict"))
        return evaluationFromJson(j);
    if (j.is_object() && j.contains("evaluation"))
        return evaluationFromJson(j["evaluation"]);
    if (j.is_object() && j.contains("results") && j["results"].is_array() && !j["results"].empty())
        return evaluationFromJson(j["results"][0]);
    return std::nullopt;
}

nlohmann::json brief(const EvaluationResult& r) {
    nlohmann::json j = toJson(r);
    for (const char* key : {"candidate_time", "reference_time"})
        if (j.contains(key))
            j[key].erase("samples_ms");
    return j;
}

} // namespace

int kernelBenchAgreement(const std::vector<std::string>& argv,
                         const std::vector<std::string>& rest) {
    const Arguments args(rest, {"help"},
                         {"solutions", "problems", "output", "work", "timeout", "python", "level"});
    if (!args.ok() || !args.has("solutions") || !args.has("problems") || !args.has("output")) {
        std::cerr << "dice kernelbench agreement: "
                  << (args.ok() ? "give --solutions, --problems and --output" : args.error())
                  << "\n";
        return 2;
    }
    const int timeoutS = args.integer("timeout", 600);
    if (timeoutS < 10)
        throw UsageError("--timeout must be at least 10 seconds");
    const int level = args.integer("level", 0);
    if (level < 0 || level > 3)
        throw UsageError("--level must be 1, 2 or 3");
    const fs::path work =
        args.value("work", (fs::temp_directory_path() / "dice-kb-bench").string());
    fs::create_directories(work / "build");
    fs::create_directories(work / "tasks");
    std::vector<Entry> entries =
        findSolutions(args.value("solutions"), args.value("problems"), level);

    kernelbench::PythonEvaluator::Config config;
    config.python = args.value("python");
    kernelbench::PythonEvaluator evaluator(config);
    if (!evaluator.canEvaluate())
        throw Error(evaluator.unavailableReason());
    const std::string python = evaluator.python().executable;

    // load_inline takes about a minute per extension: all of them compile at once, before any
    // evaluation, into the folders the evaluations will load them from.
    std::cout << "compiling " << entries.size() << " extensions at once...\n" << std::flush;
    {
        std::vector<std::string> sources;
        for (const auto& e : entries)
            sources.push_back(readTextFile(e.solution, limits::kKernelBenchSource));
        const auto built = evaluator.prebuild(sources, (work / "build").string(),
                                              static_cast<int>(entries.size()), timeoutS * 1000);
        for (std::size_t i = 0; i < entries.size(); ++i)
            entries[i].prebuild = built[i];
    }

    kernelbench::KernelBenchOptions options;
    options.timeoutMs = timeoutS * 1000;
    options.buildDirectory = (work / "build").string();
    for (auto& e : entries) {
        std::cout << e.name << ": Python evaluator...\n" << std::flush;
        try {
            kernelbench::KernelBenchJob job{e.name, e.level,
                                            readTextFile(e.problem, limits::kKernelBenchSource),
                                            readTextFile(e.solution, limits::kKernelBenchSource)};
            e.python = evaluator.evaluate(job, options);
        } catch (const Error& error) {
            e.pythonError = error.what();
        }
    }

    std::vector<std::string> problems;
    for (const auto& e : entries)
        problems.push_back(e.problem);
    kernelbench::ImportOptions importOptions;
    importOptions.outputDirectory = (work / "tasks").string();
    importOptions.python = python;
    const auto imported = kernelbench::importKernelBench(problems, importOptions);
    for (auto& e : entries)
        for (const auto& p : imported.problems)
            if (p.source == e.problem) {
                if (p.converted)
                    e.taskFile = p.taskFile;
                else
                    e.nativeError = "the problem does not import: " + p.reason;
            }

    const std::string dice = (fs::path(executableDirectory()) / "dice").string();
    for (auto& e : entries) {
        if (e.native.empty()) {
            e.nativeError = "no native solution";
            continue;
        }
        if (e.taskFile.empty())
            continue;
        std::cout << e.name << ": native evaluator...\n" << std::flush;
        const auto started = std::chrono::steady_clock::now();
        ChildRunOptions limit;
        limit.timeoutMs = timeoutS * 1000;
        const auto run =
            runChild({{dice, "eval", e.taskFile, e.native, "--json", "--no-store"}}, limit);
        e.nativeWallMs = millisecondsSince(started);
        if (run.exit.exitCode == 2 && run.err.find("unknown command") != std::string::npos) {
            e.nativeError = "this build has no native evaluator (dice eval)";
            continue;
        }
        try {
            e.nativeResult = parseNative(run.out);
            if (!e.nativeResult)
                e.nativeError = "dice eval printed no result: " + run.err;
        } catch (const std::exception& error) {
            e.nativeError = std::string("dice eval printed no readable result (") + error.what() +
                            "): " + run.err.substr(0, 2000);
        }
    }

    nlohmann::json file = resultFileHeader("kernelbench-agreement", argv);
    nlohmann::json list = nlohmann::json::array();
    int compared = 0;
    int verdictsAgree = 0;
    int speedupsClose = 0;
    int timed = 0;
    std::cout << "\n"
              << std::left << std::setw(30) << "problem" << std::setw(18) << "python"
              << std::setw(18) << "native" << std::setw(12) << "speedups"
              << "time per evaluation\n";
    for (const auto& e : entries) {
        nlohmann::json j = {{"problem", e.name},
                            {"prebuild_ms", e.prebuild.milliseconds},
                            {"prebuild_ok", e.prebuild.ok}};
        if (e.python)
            j["python"] = brief(*e.python);
        else
            j["python_error"] = e.pythonError;
        if (e.nativeResult) {
            j["native"] = brief(*e.nativeResult);
            j["native_wall_ms"] = e.nativeWallMs;
        } else {
            j["native_error"] = e.nativeError;
        }
        std::string speedups = "-";
        if (e.python && e.nativeResult) {
            ++compared;
            const bool agree = e.python->countsAsCorrect() == e.nativeResult->countsAsCorrect();
            verdictsAgree += agree ? 1 : 0;
            j["verdicts_agree"] = agree;
            if (e.python->speedup > 0 && e.nativeResult->speedup > 0) {
                ++timed;
                const double ratio = e.nativeResult->speedup / e.python->speedup;
                const bool close = std::abs(ratio - 1.0) <= 0.10;
                speedupsClose += close ? 1 : 0;
                j["speedup_ratio"] = ratio;
                j["speedups_within_10_percent"] = close;
                std::ostringstream text;
                text << std::fixed << std::setprecision(2) << e.python->speedup << "/"
                     << e.nativeResult->speedup;
                speedups = text.str();
            }
        }
        list.push_back(j);
        const auto verdict = [](const std::optional<EvaluationResult>& r) {
            return r ? toString(r->verdict) : std::string("-");
        };
        std::ostringstream times;
        times << std::fixed << std::setprecision(1) << (e.python ? e.python->wallMs / 1000 : 0.0)
              << " s + " << e.prebuild.milliseconds / 1000 << " s compile / "
              << (e.nativeResult ? e.nativeWallMs / 1000 : 0.0) << " s";
        std::cout << std::setw(30) << e.name << std::setw(18) << verdict(e.python) << std::setw(18)
                  << verdict(e.nativeResult) << std::setw(12) << speedups << times.str() << "\n";
    }
    file["problems"] = list;
    file["summary"] = {{"solutions", entries.size()},
                       {"compared", compared},
                       {"verdicts_agree", verdictsAgree},
                       {"timed_by_both", timed},
                       {"speedups_within_10_percent", speedupsClose}};
    writeFileAtomically(args.value("output"), file.dump(2) + "\n");
    std::cout << "\n"
              << verdictsAgree << " of " << compared << " verdicts agree; " << speedupsClose
              << " of " << timed << " speedups within 10%; written to " << args.value("output")
              << "\n";
    return compared == static_cast<int>(entries.size()) && verdictsAgree == compared &&
                   speedupsClose == timed
               ? 0
               : 1;
}

} // namespace dice::cli
