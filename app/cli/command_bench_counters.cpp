// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/common/number_format.h"
#include "core/cuda/nsight_compute.h"
#include "core/system/result_file.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>
#include <sstream>

namespace dice::cli {

namespace {

const char* const kUsage =
    "usage: dice bench counters [options]\n\n"
    "Reads the hardware counters of built-in solutions' kernels and of their references' with\n"
    "Nsight Compute (ncu), each kernel at its longest launch, as dice eval --profile does\n"
    "(docs/counters.md).\n\n"
    "options:\n"
    "  --tasks LIST          built-in tasks whose solutions to profile, comma-separated\n"
    "                        (default relu,softmax,layer_norm,matmul)\n"
    "  --preset NAME         bench (default) or small\n"
    "  --keep-pages DIR      also keep ncu's raw pages, "
    "DIR/TASK/{DiceCandidate,DiceReference}.csv\n"
    "  --output FILE         write the result file (JSON) here\n";

} // namespace

int benchCounters(const Invocation& in) {
    const std::vector<std::string> rest(in.args.begin() + 1, in.args.end());
    const Arguments args(rest, {"help"}, {"tasks", "preset", "keep-pages", "output"});
    if (!args.ok() || !args.positionals().empty()) {
        std::cerr << "dice bench counters: " << (args.ok() ? "" : args.error() + "\n") << kUsage;
        return 2;
    }
    if (args.flag("help")) {
        std::cout << kUsage;
        return 0;
    }
    const auto tasks = splitList(args.value("tasks", "relu,softmax,layer_norm,matmul"));
    const std::string preset = args.value("preset", "bench");
    if (tasks.empty() || (preset != "bench" && preset != "small"))
        throw UsageError("--tasks must name tasks and --preset be bench or small");
    const std::string solutions = (std::filesystem::path(dataDirectory()) / "solutions").string();

    nlohmann::json report = resultFileHeader("bench-counters", in.argv);
    nlohmann::json results = nlohmann::json::array();
    bool all = true;
    for (const auto& task : tasks) {
        const std::string solution = solutions + "/" + task + ".dice";
        if (!std::filesystem::is_regular_file(solution))
            throw UsageError("no built-in solution for task " + task + " (" + solution + ")");
        std::cerr << "profiling " << task << std::endl;
        std::string pages;
        if (args.has("keep-pages")) {
            pages = args.value("keep-pages") + "/" + task;
            std::filesystem::create_directories(pages);
        }
        const CounterReport counters =
            collectCounters(profiledEvaluation(executablePath(), task, solution, preset), pages);
        all = all && counters.ok();
        if (!counters.ok())
            std::cerr << task << ": " << counters.error << std::endl;
        for (const auto& k : counters.candidate)
            std::cout << task << " " << k.kernel << ": memory "
                      << (k.memoryThroughputPct ? formatFixed(*k.memoryThroughputPct, 0) : "-")
                      << "%, compute "
                      << (k.computeThroughputPct ? formatFixed(*k.computeThroughputPct, 0) : "-")
                      << "%, " << (k.limiter().empty() ? "-" : k.limiter()) << "\n";
        results.push_back({{"task", task}, {"preset", preset}, {"counters", toJson(counters)}});
    }
    report["results"] = results;
    if (args.has("output"))
        writeFileAtomically(args.value("output"), report.dump(2) + "\n");
    return all ? 0 : 1;
}

} // namespace dice::cli
