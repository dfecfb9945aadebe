// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/common/number_format.h"
#include "core/cuda/cuda_driver.h"
#include "core/cuda/device_info.h"
#include "core/cuda/nsight_compute.h"
#include "core/eval/candidate.h"
#include "core/eval/metrics.h"
#include "core/eval/native_evaluator.h"
#include "core/store/run_store.h"
#include "core/suite/suite_evaluation.h"
#include "core/tasks/task.h"
#include "core/worker/evaluator.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

namespace dice::cli {

namespace {

const char* const kUsage =
    "usage: dice eval TASK CANDIDATE [options]\n"
    "       dice eval --suite DIR --candidates DIR [options]\n"
    "       dice eval --batch FILE.jsonl [options]   (dice eval --batch --help)\n\n"
    "Evaluates a native candidate (.dice) against a task: compiles it, checks correctness over\n"
    "poisoned and guarded memory, times it against the reference and flags what looks wrong.\n"
    "TASK is a built-in task's name or a task file. With --suite, every task of DIR is\n"
    "evaluated with the candidate DIR/<task>.dice (a missing one counts as a failure) and the\n"
    "paper's metrics are printed per level, raw and strict.\n\n"
    "options:\n"
    "  --preset NAME         bench (default) or small\n"
    "  --tolerance X         atol = rtol = X for every floating dtype (the paper used 1e-2)\n"
    "  --trials N            correctness trials (default 5)\n"
    "  --warmups N           warm-up calls before timing (default 3)\n"
    "  --timing-trials N     timed calls (default 100)\n"
    "  --no-timing           check correctness only\n"
    "  --only-preset         run only at --preset's sizes: no small-preset trials after the\n"
    "                        bench preset's (what --profile runs, so that its counters are\n"
    "                        the preset's)\n"
    "  --compile-only        compile and inspect, run nothing\n"
    "  --compiler-options \"...\"\n"
    "                        NVRTC options for the device part, from an allow-list:\n"
    "                        --use_fast_math, -maxrregcount=N, -DNAME[=VALUE], -UNAME, --ftz=,\n"
    "                        --prec-div=, --prec-sqrt=, --fmad=, --restrict, -G, ...\n"
    "  --lenient             count a fallback that computes the right values as correct\n"
    "  --idle-timeout S      give up on a kernel that shows no progress for S seconds (60)\n"
    "  --repeat N            with --suite: evaluate the suite N times with one warm worker\n"
    "  --devices LIST        GPUs to spread a suite over: all, or indices such as 0,1 (default 0)\n"
    "  --profile             then read the hardware counters of the candidate's kernels and\n"
    "                        the reference's with Nsight Compute (ncu), each at its longest\n"
    "                        launch\n"
    "  --in-process          evaluate in this process, not in a worker (what --profile runs\n"
    "                        under ncu)\n"
    "  --json                print JSON\n"
    "  --store DB            keep the run in this database\n"
    "  --no-store            keep nothing (the default store is\n"
    "                        $XDG_DATA_HOME/dice-workbench/runs.sqlite3)\n"
    "  --tag TAG             tag the stored run\n\n"
    "Exit status: 0 when every candidate is correct (with --compile-only: compiles and passes\n"
    "the dry run), 1 when one is not or could not run here (no GPU), 2 for a usage error.\n";

void printResult(const EvaluationResult& r, std::ostream& out) {
    out << r.task << " (level " << r.level << ", preset " << r.preset << ")";
    if (!r.device.empty())
        out << " on " << r.device;
    out << "\n";
    out << "verdict: " << toString(r.verdict) << " - " << r.message << "\n";
    if (r.compiled) {
        out << "compile: NVRTC " << formatFixed(r.compileMs, 1) << " ms, " << r.launchesPerCall
            << " launch(es) per call\n";
        for (const auto& u : r.resources)
            out << "  " << u.function << ": " << u.registers << " registers, " << u.sharedBytes
                << " B shared, " << u.spillStoreBytes << " B spilled\n";
    }
    for (const auto& d : r.diagnostics)
        out << d.file << ":" << d.line << (d.column ? ":" + std::to_string(d.column) : "") << ": "
            << toString(d.severity) << ": " << d.message << "\n";
    if (!r.trials.empty()) {
        int passed = 0;
        double worst = 0;
        for (const auto& t : r.trials) {
            passed += t.passed ? 1 : 0;
            worst = std::max(worst, t.maxAbsError);
        }
        out << "correctness: " << passed << "/" << r.trials.size() << " trials passed, max |error| "
            << worst << "\n";
    }
    if (r.candidateTime && r.referenceTime) {
        out << "timing (CUDA events, " << r.candidateTime->trials << " trials after "
            << r.candidateTime->warmups << " warm-ups, L2 flushed):\n"
            << "  candidate median " << formatFixed(r.candidateTime->medianMs, 4) << " ms (mean "
            << formatFixed(r.candidateTime->meanMs, 4) << ", std "
            << formatFixed(r.candidateTime->stdMs, 4) << ")\n"
            << "  reference median " << formatFixed(r.referenceTime->medianMs, 4) << " ms (mean "
            << formatFixed(r.referenceTime->meanMs, 4) << ", std "
            << formatFixed(r.referenceTime->stdMs, 4) << ")\n";
        if (r.candidateKernelTime && r.referenceKernelTime)
            out << "  CUPTI, every kernel on every stream: candidate "
                << formatFixed(r.candidateKernelTime->medianMs, 4) << " ms, reference "
                << formatFixed(r.referenceKernelTime->medianMs, 4) << " ms\n";
        out << "speedup: " << formatFixed(r.speedup, 3) << "x (medians; "
            << formatFixed(r.speedupOfMeans, 3) << "x of means, as KernelBench reports)";
        if (r.physicalBoundMs > 0)
            out << "   physical bound: " << formatFixed(r.physicalBoundMs, 4) << " ms";
        out << "\n";
    }
    for (const auto& f : r.flags)
        out << "flag " << f.code << ": " << f.message << "\n";
    const std::string worker = toString(r.workerState);
    out << (worker.empty() ? std::string("in this process") : "worker: " + worker) << ", "
        << formatFixed(r.wallMs / 1000.0, 2) << " s\n";
}

// Exit status 0 means judged and correct; a candidate that could not run here (no GPU) was not
// judged, except under --compile-only, where compiling and the dry run are all that was asked.
bool acceptable(const EvaluationResult& r, bool strict, bool compileOnly) {
    return (compileOnly && r.verdict == Verdict::NotRun) || r.countsAsCorrect(strict);
}

// Reads the counters of a candidate that ran: the same evaluation, in a process of its own under
// ncu, with one correctness trial and no timing (docs/counters.md).
CounterReport profileCandidate(const EvaluationResult& r, const Arguments& args,
                               const EvalOptions& options, int device) {
    if (r.verdict == Verdict::NotRun || r.verdict == Verdict::CompileError ||
        r.verdict == Verdict::InvalidCandidate || r.verdict == Verdict::Timeout) {
        // A candidate that hung would hang again under the profiler.
        CounterReport none;
        none.error = "the candidate did not run to the end on a GPU here (" + toString(r.verdict) +
                     "), so it has no counters to read";
        return none;
    }
    std::vector<std::string> more = {"--devices", std::to_string(device)};
    if (options.tolerance)
        more.insert(more.end(), {"--tolerance", formatFixed(*options.tolerance, 12)});
    if (!options.compilerOptions.empty())
        more.insert(more.end(), {"--compiler-options", options.compilerOptions});
    if (!options.strict)
        more.push_back("--lenient");
    return collectCounters(profiledEvaluation(executablePath(), args.positionals()[0],
                                              args.positionals()[1], options.preset, more));
}

std::string figure(const std::optional<double>& v, int digits, const std::string& unit) {
    return v ? formatFixed(*v, digits) + unit : std::string("-");
}

std::optional<double> scaled(const std::optional<double>& v, double by) {
    return v ? std::optional<double>(*v * by) : std::nullopt;
}

void printCounters(const CounterReport& c, std::ostream& out) {
    if (!c.ok()) {
        out << "counters: " << c.error << "\n";
        return;
    }
    out << "counters (" << (c.version.empty() ? c.tool : c.version)
        << "), each kernel at its longest launch:\n";
    for (const auto* side : {&c.candidate, &c.reference})
        for (const auto& k : *side)
            out << "  " << (side == &c.candidate ? "candidate " : "reference ") << k.kernel << ": "
                << figure(scaled(k.durationNs, 1e-6), 4, " ms") << ", compute "
                << figure(k.computeThroughputPct, 0, "%") << ", memory "
                << figure(k.memoryThroughputPct, 0, "%") << ", occupancy "
                << figure(k.achievedOccupancyPct, 0, "%") << ", DRAM "
                << figure(scaled(k.dramBytes(), 1e-6), 1, " MB") << ", "
                << figure(k.arithmeticIntensity(), 2, " FLOP/byte")
                << (k.limiter().empty() ? std::string() : ", " + k.limiter() + "-bound") << "\n";
}

} // namespace

int commandEval(const Invocation& in) {
    for (const auto& a : in.args)
        if (a == "--batch" || a.rfind("--batch=", 0) == 0)
            return evalBatch(in);
    const Arguments args(in.args,
                         {"json", "help", "no-store", "no-timing", "compile-only", "lenient",
                          "profile", "in-process", "only-preset"},
                         {"preset", "tolerance", "trials", "warmups", "timing-trials", "store",
                          "tag", "suite", "candidates", "idle-timeout", "repeat", "devices",
                          "compiler-options"});
    if (!args.ok()) {
        std::cerr << "dice eval: " << args.error() << "\n";
        return 2;
    }
    if (args.flag("help")) {
        std::cout << kUsage;
        return 0;
    }
    const bool suiteMode = args.has("suite") || args.has("candidates");
    if (suiteMode ? (!args.has("suite") || !args.has("candidates") || !args.positionals().empty())
                  : args.positionals().size() != 2) {
        std::cerr << kUsage;
        return 2;
    }
    if (suiteMode && (args.flag("profile") || args.flag("in-process"))) {
        std::cerr << "dice eval: --profile and --in-process take one candidate\n";
        return 2;
    }
    if (args.flag("compile-only") && args.flag("profile")) {
        std::cerr << "dice eval: --profile runs the candidate; --compile-only runs nothing\n";
        return 2;
    }
    if (suiteMode && args.flag("compile-only")) {
        std::cerr << "dice eval: --compile-only inspects one candidate; a suite is evaluated "
                     "in full\n";
        return 2;
    }
    EvalOptions options;
    options.preset = args.value("preset", "bench");
    options.correctnessTrials = args.integer("trials", options.correctnessTrials);
    options.warmups = args.integer("warmups", options.warmups);
    options.timingTrials = args.integer("timing-trials", options.timingTrials);
    options.timing = !args.flag("no-timing");
    options.checkSmallPreset = !args.flag("only-preset");
    options.strict = !args.flag("lenient");
    if (args.has("tolerance"))
        options.tolerance = args.number("tolerance", 1e-4);
    options.compilerOptions = args.value("compiler-options");
    // Validates the numbers (and the compiler options) the same way the worker will.
    try {
        options = evalOptionsFromJson(toJson(options));
    } catch (const Error& e) {
        throw UsageError(e.what());
    }

    EvaluatorOptions evaluatorOptions;
    evaluatorOptions.idleTimeoutMs = args.integer("idle-timeout", 60) * 1000;
    if (args.has("devices")) {
        const std::string list = args.value("devices");
        evaluatorOptions.devices.clear();
        if (list == "all") {
            for (const auto& d : queryDevices())
                evaluatorOptions.devices.push_back(d.index);
        } else {
            evaluatorOptions.devices = gpuIndexList(list);
        }
        if (evaluatorOptions.devices.empty())
            evaluatorOptions.devices.push_back(0);
    }
    Evaluator evaluator(evaluatorOptions);
    std::unique_ptr<RunStore> store;
    if (!args.flag("no-store"))
        store = std::make_unique<RunStore>(args.value("store", RunStore::defaultPath()));
    const std::string driver = cu::formatCudaVersion(cu::Driver::instance().version());
    std::vector<std::string> tags;
    if (args.has("tag"))
        tags.push_back(args.value("tag"));
    const bool json = args.flag("json");
    auto keep = [&](const EvaluationResult& r, const std::string& source) -> std::int64_t {
        if (!store || args.flag("compile-only"))
            return 0;
        return store->add(RunStore::recordOf(r, source, toJson(options), driver, tags));
    };

    if (!suiteMode) {
        const Task task = findTask(args.positionals()[0]);
        const std::string candidatePath = args.positionals()[1];
        const std::string source = readCandidateFile(candidatePath);
        const std::string name = std::filesystem::path(candidatePath).filename().string();
        EvaluationResult r;
        const auto progress = [&](const std::string&, double, const std::string& message) {
            if (!json && !message.empty() && progressShown())
                std::cerr << "\r" << std::left << std::setw(40) << message << std::flush;
        };
        if (args.flag("in-process")) {
            NativeEvaluator here(evaluatorOptions.devices.front());
            r = args.flag("compile-only") ? here.compile(task, source, name, options)
                                          : here.evaluate(task, source, name, options, progress);
        } else if (args.flag("compile-only")) {
            r = evaluator.compile(task, source, name, options);
        } else {
            r = evaluator.evaluate(task, source, name, options, progress);
        }
        if (!json && progressShown() && !args.flag("compile-only"))
            std::cerr << "\r" << std::string(40, ' ') << "\r" << std::flush;
        std::optional<CounterReport> counters;
        if (args.flag("profile"))
            counters = profileCandidate(r, args, options, evaluatorOptions.devices.front());
        const std::int64_t id = keep(r, source);
        if (json) {
            nlohmann::json out = toJson(r);
            if (id > 0)
                out["run_id"] = id;
            if (counters)
                out["counters"] = toJson(*counters);
            std::cout << out.dump(2) << "\n";
        } else {
            printResult(r, std::cout);
            if (counters)
                printCounters(*counters, std::cout);
            if (id > 0)
                std::cout << "stored as run " << id << " in " << store->path() << "\n";
        }
        return acceptable(r, options.strict, args.flag("compile-only")) ? 0 : 1;
    }

    const std::string suiteDir = args.value("suite");
    const TaskSuite suite = loadTaskSuite(suiteDir);
    for (const auto& p : suite.problems)
        std::cerr << "warning: " << p.path << ": " << p.message << "\n";
    if (suite.tasks.empty())
        throw Error("no tasks in " + suiteDir);
    SuiteEvaluationOptions suiteOptions;
    suiteOptions.candidateDirectory = args.value("candidates");
    suiteOptions.eval = options;
    suiteOptions.repeats = args.integer("repeat", 1);
    if (suiteOptions.repeats < 1 || suiteOptions.repeats > 1000)
        throw UsageError("--repeat must be between 1 and 1000");
    const SuiteEvaluation evaluation = evaluateSuite(
        evaluator, suite, suiteOptions, [&](const EvaluationResult& r, std::size_t, std::size_t) {
            if (!json)
                std::cerr << "  " << std::left << std::setw(28) << r.task << toString(r.verdict)
                          << (r.speedup > 0 ? "  " + formatFixed(r.speedup, 2) + "x" : "") << "\n";
        });
    nlohmann::json list = nlohmann::json::array();
    bool allGood = evaluation.missing().empty();
    for (const SuiteRun& run : evaluation.runs) {
        const std::int64_t id = keep(run.result, run.source);
        nlohmann::json entry = toJson(run.result);
        if (id > 0)
            entry["run_id"] = id;
        entry["round"] = run.round;
        list.push_back(entry);
        allGood = allGood && acceptable(run.result, options.strict, false);
    }
    if (json)
        std::cout << nlohmann::json{{"results", list},
                                    {"missing", evaluation.missing()},
                                    {"metrics", toJson(evaluation.metrics)}}
                         .dump(2)
                  << "\n";
    else
        std::cout << formatSuiteEvaluation(evaluation);
    return allGood ? 0 : 1;
}

} // namespace dice::cli
