// SPDX-License-Identifier: GPL-3.0-or-later
// dice bench reward: the reward service on an RL step's worth of native candidates.
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/bench/reward_bench.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/common/number_format.h"
#include "core/system/result_file.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <iostream>
#include <sstream>

namespace dice::cli {

namespace {

const char* const kUsage =
    "usage: dice bench reward [options]\n\n"
    "Judges an RL step's worth of native candidates made from the built-in tasks (60% honest,\n"
    "the rest wrong values, syntax errors, fallbacks, out-of-bounds writes, faults and hangs) in\n"
    "one call of the reward service, and again one by one to check every verdict agrees\n"
    "(docs/reward.md).\n\n"
    "options:\n"
    "  --candidates N        how many (default 1024)\n"
    "  --seed N              which (default 1)\n"
    "  --workers N           warm workers on the GPU (default 4)\n"
    "  --device N            the GPU (default 0)\n"
    "  --compile-threads N   per worker (default 4)\n"
    "  --worker-cpu-threads N  LibTorch's CPU threads per worker (default: LibTorch's count)\n"
    "  --chunk N             candidates per worker request (default 32)\n"
    "  --guided-chunks       a request takes half an even share of what is left, at least\n"
    "                        --chunk: few long requests, then short ones at the end\n"
    "  --compile-lookahead N candidates a worker compiles ahead of its GPU (default twice\n"
    "                        --compile-threads)\n"
    "  --no-spare-workers    no started spare beside each worker to take over after a\n"
    "                        fault or a hang\n"
    "  --longest-first       hand the longest candidates to the workers first, not in the\n"
    "                        batch's order\n"
    "  --idle-timeout S      a kernel silent this long hangs (default 2)\n"
    "  --mode MODE           correctness (default) or timed\n"
    "  --preset NAME         the tasks' sizes to judge at: bench (default) or small\n"
    "  --fast-compile LEVEL  NVRTC's --Ofast-compile in correctness mode: off (default),\n"
    "                        min, mid or max\n"
    "  --no-alone            skip the one-by-one check\n"
    "  --alone-workers N     workers of the one-by-one check, one candidate per request\n"
    "                        (default 1)\n"
    "  --save-candidates F   write the candidates to F as a dice eval --batch file\n"
    "  --output FILE         write the result file (JSON) here\n\n"
    "KernelBench answers instead (made from DIR/levelN/NAME.py, ten in sixteen honest, the rest\n"
    "wrong values, syntax errors and failing forwards), built in parallel and then evaluated:\n"
    "  --kernelbench DIR     the solutions     --problems DIR   their problem files\n"
    "  --build-threads N     builds at once (default 16)\n"
    "  --sequential-builds N answers built one at a time for the comparison (default 1)\n"
    "  (--candidates defaults to 64 here)\n";

// Runs a benchmark with its progress on stderr; writes its result file where --output says.
nlohmann::json runAndWrite(const Invocation& in, const Arguments& args, const std::string& kind,
                           const std::function<nlohmann::json(const RewardBenchProgress&)>& run) {
    nlohmann::json report = resultFileHeader(kind, in.argv);
    report["results"] = run([](const std::string& line) { std::cerr << line << std::endl; });
    if (args.has("output"))
        writeFileAtomically(args.value("output"), report.dump(2) + "\n");
    return report;
}

void printVerdictsByKind(const nlohmann::json& byKind) {
    for (const auto& [kind, verdicts] : byKind.items()) {
        std::cout << "  " << kind << ":";
        for (const auto& [verdict, count] : verdicts.items())
            std::cout << " " << verdict << " " << count.get<int>();
        std::cout << "\n";
    }
}

// The sizes the candidates are judged at, for both dialects.
std::string parsePreset(const Arguments& args) {
    const std::string preset = args.value("preset", "bench");
    if (preset != "bench" && preset != "small")
        throw UsageError("--preset must be bench or small");
    return preset;
}

int benchRewardKernelBench(const Invocation& in, const Arguments& args) {
    if (!args.has("problems"))
        throw UsageError("--kernelbench needs --problems DIR (the problem files of the solutions)");
    KernelBenchRewardBenchOptions options;
    options.solutions = args.value("kernelbench");
    options.problems = args.value("problems");
    options.candidates = args.integer("candidates", 64);
    options.seed = static_cast<std::uint64_t>(args.integer("seed", 1));
    options.buildThreads = args.integer("build-threads", 16);
    options.sequentialBuilds = args.integer("sequential-builds", 1);
    if (options.candidates < 1 || options.candidates > 4096 || options.buildThreads < 1 ||
        options.buildThreads > 256 || options.sequentialBuilds < 0)
        throw UsageError("--candidates must be from 1 to 4096, --build-threads from 1 to 256");
    options.service.evaluator.devices = {args.integer("device", 0)};
    options.service.reward.mode = parseJudgeMode(args.value("mode", "correctness"));
    options.service.reward.preset = parsePreset(args);

    const nlohmann::json report =
        runAndWrite(in, args, "bench-reward-kernelbench", [&](const RewardBenchProgress& say) {
            return runKernelBenchRewardBenchmark(options, say);
        });
    const auto& r = report["results"];
    std::cout << r["answers"].get<int>() << " KernelBench answers, " << options.buildThreads
              << " builds at once: " << formatFixed(r["wall_seconds"].get<double>(), 1)
              << " s (builds " << formatFixed(r["build_phase_seconds"].get<double>(), 1)
              << " s, evaluations " << formatFixed(r["evaluation_seconds"].get<double>(), 1)
              << " s); one at a time about "
              << formatFixed(r["one_at_a_time_estimate_seconds"].get<double>(), 0) << " s ("
              << formatFixed(r["speedup_over_one_at_a_time"].get<double>(), 1) << "x)\n";
    printVerdictsByKind(r["verdicts_by_kind"]);
    return r["verdicts_against_kind"].empty() ? 0 : 1;
}

} // namespace

int benchReward(const Invocation& in) {
    const std::vector<std::string> rest(in.args.begin() + 1, in.args.end());
    const Arguments args(rest,
                         {"help", "no-alone", "no-spare-workers", "longest-first", "guided-chunks"},
                         {"candidates", "seed", "workers", "device", "compile-threads", "chunk",
                          "idle-timeout", "mode", "preset", "output", "kernelbench", "problems",
                          "worker-cpu-threads", "build-threads", "sequential-builds",
                          "save-candidates", "fast-compile", "alone-workers", "compile-lookahead"});
    if (!args.ok() || !args.positionals().empty()) {
        std::cerr << "dice bench reward: " << (args.ok() ? "" : args.error() + "\n") << kUsage;
        return 2;
    }
    if (args.flag("help")) {
        std::cout << kUsage;
        return 0;
    }
    if (args.has("kernelbench"))
        return benchRewardKernelBench(in, args);
    RewardBenchOptions options;
    options.candidates = args.integer("candidates", 1024);
    options.seed = static_cast<std::uint64_t>(args.integer("seed", 1));
    options.checkAlone = !args.flag("no-alone");
    options.candidatesFile = args.value("save-candidates", "");
    options.aloneWorkers = args.integer("alone-workers", 1);
    if (options.aloneWorkers < 1 || options.aloneWorkers > 64)
        throw UsageError("--alone-workers must be from 1 to 64");
    const int workers = args.integer("workers", 4);
    const int device = args.integer("device", 0);
    if (options.candidates < 10 || options.candidates > 65536)
        throw UsageError("--candidates must be from 10 to 65536");
    if (workers < 1 || workers > 64 || device < 0)
        throw UsageError("--workers must be from 1 to 64 and --device a GPU index");
    options.service.evaluator.devices.assign(static_cast<std::size_t>(workers), device);
    options.service.evaluator.idleTimeoutMs = args.integer("idle-timeout", 2) * 1000;
    options.service.evaluator.compileTimeoutMs = 30000;
    options.service.batch.compileThreads = args.integer("compile-threads", 4);
    options.service.evaluator.spareWorkers = !args.flag("no-spare-workers");
    options.service.batch.longestFirst = args.flag("longest-first");
    options.service.batch.guidedChunks = args.flag("guided-chunks");
    options.service.batch.compileLookahead = args.integer("compile-lookahead", 0);
    if (options.service.batch.compileLookahead < 0 || options.service.batch.compileLookahead > 4096)
        throw UsageError("--compile-lookahead must be from 0 to 4096 (0: twice --compile-threads)");
    options.service.evaluator.cpuThreadsPerWorker = args.integer("worker-cpu-threads", 0);
    if (options.service.evaluator.cpuThreadsPerWorker < 0 ||
        options.service.evaluator.cpuThreadsPerWorker > 4096)
        throw UsageError("--worker-cpu-threads must be from 0 to 4096");
    options.service.batch.chunk = static_cast<std::size_t>(std::max(1, args.integer("chunk", 32)));
    options.service.reward.mode = parseJudgeMode(args.value("mode", "correctness"));
    options.service.reward.preset = parsePreset(args);
    options.service.reward.fastCompile =
        rewardOptionsFromJson({{"fast_compile", args.value("fast-compile", "off")}}).fastCompile;

    const nlohmann::json report =
        runAndWrite(in, args, "bench-reward", [&](const RewardBenchProgress& say) {
            return runRewardBenchmark(options, say);
        });
    const auto& r = report["results"];
    std::cout << r["candidates"].get<int>() << " candidates on " << workers
              << " worker(s): " << formatFixed(r["wall_seconds"].get<double>(), 1) << " s, "
              << formatFixed(r["candidates_per_second"].get<double>(), 1)
              << " per second; GPU busy " << formatFixed(100 * r["gpu_busy_share"].get<double>(), 0)
              << "%, compile " << formatFixed(r["compile_seconds"].get<double>(), 1)
              << " s of thread time; " << r["worker_restarts"].get<int>() << " worker restarts ("
              << r["spare_takeovers"].get<int>() << " by a spare)";
    if (r["judged_with_more_memory"].get<int>() > 0)
        std::cout << "; " << r["judged_with_more_memory"].get<int>()
                  << " judged again with more memory in the last "
                  << formatFixed(r["more_memory_seconds"].get<double>(), 1) << " s";
    std::cout << "\n";
    printVerdictsByKind(r["verdicts_by_kind"]);
    if (r.contains("agreement"))
        std::cout << "alone: " << r["agreement"]["same_verdict"].get<int>() << " of "
                  << r["agreement"]["of"].get<int>() << " verdicts the same ("
                  << r["alone_workers"].get<int>() << " worker(s), "
                  << formatFixed(r["alone_wall_seconds"].get<double>(), 1) << " s)\n";
    return 0;
}

} // namespace dice::cli
