// SPDX-License-Identifier: GPL-3.0-or-later
// dice bench kernelbench: the paper's KernelBench table with a loaded model.
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/bench/paper_bench.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/cuda/torch_cuda_bridge.h"
#include "core/store/run_store.h"
#include "core/system/result_file.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace dice::cli {

namespace {

std::atomic<bool> g_stop{false};

void onSignal(int) {
    g_stop = true;
}

const char* const kUsage =
    "usage: dice bench kernelbench --model DIR --problems DIR [--level N[,N...]] [--limit N]\n"
    "       [--preset eval|rollout] [--seed N] [--tolerance X]\n"
    "       [--tasks DIR] [--store DB] [--output FILE] [--device cpu|cuda]\n"
    "       [--dtype bf16|fp16|fp32] [--threads N]\n\n"
    "Generates one answer per KernelBench problem (PROBLEMS/levelN/*.py) with the model and\n"
    "the decoding preset (default: the paper's evaluation, block 4, 4 steps, greedy, 4096\n"
    "tokens), takes the first code block, evaluates it in the dialect it is written in\n"
    "(KernelBench answers with the Python evaluator; native answers against the tasks of\n"
    "--tasks, made by 'dice import kernelbench'), keeps every run in the run store and prints\n"
    "Exec, fast_p and the geometric-mean speedup per level, raw and with fallbacks filtered.\n"
    "Ctrl+C stops after the answer in progress; running the same command again resumes.\n"
    "The tolerance defaults to the paper's 1e-2; --tolerance 1e-4 is KernelBench's current.\n";

} // namespace

int benchKernelBench(const Invocation& in) {
    const Arguments args(std::vector<std::string>(in.args.begin() + 1, in.args.end()), {"help"},
                         {"model", "problems", "level", "limit", "preset", "seed", "tolerance",
                          "tasks", "store", "output", "device", "dtype", "threads"});
    if (!args.ok()) {
        std::cerr << "dice bench kernelbench: " << args.error() << "\n";
        return 2;
    }
    if (args.flag("help")) {
        std::cout << kUsage;
        return 0;
    }
    if (!args.has("model") || !args.has("problems")) {
        std::cerr << "dice bench kernelbench: --model and --problems are needed\n\n" << kUsage;
        return 2;
    }
    kernelbench::PaperBenchOptions options;
    options.model = args.value("model");
    options.problems = args.value("problems");
    options.levels.clear();
    std::istringstream levels(args.value("level", "1"));
    for (std::string level; std::getline(levels, level, ',');) {
        if (level != "1" && level != "2" && level != "3" && level != "4")
            throw UsageError("--level takes 1, 2, 3 or 4 (or a list such as 1,2), not '" + level +
                             "'");
        options.levels.push_back(std::stoi(level));
    }
    options.limit = args.integer("limit", 0);
    const auto preset = presetByName(args.value("preset", "eval"));
    if (!preset)
        throw UsageError("--preset must be eval or rollout");
    options.preset = *preset;
    options.seed = static_cast<std::uint64_t>(args.integer("seed", 0));
    const double tolerance = args.number("tolerance", 1e-2);
    options.evaluation.atol = tolerance;
    options.evaluation.rtol = tolerance;
    options.tasks = args.value("tasks");
    options.store = args.value("store", RunStore::defaultPath());
    const std::string device = args.value("device", "cpu");
    if (device == "cuda") {
        if (!torchcuda::builtWithCuda() || !torchcuda::available())
            throw Error("--device cuda: no GPU is available to LibTorch");
        options.session.load.placement.device = ModelDevice::Cuda;
    } else if (device != "cpu") {
        throw UsageError("--device must be cpu or cuda");
    }
    const auto dtype = parseModelDType(args.value("dtype", device == "cuda" ? "bf16" : "fp32"));
    if (!dtype)
        throw UsageError("--dtype must be bf16, fp16 or fp32");
    options.session.load.placement.dtype = *dtype;
    options.session.cpuThreads = args.integer("threads", 0);
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    options.cancel = &g_stop;

    const auto report = kernelbench::runPaperBench(options, [](const auto& p) {
        std::fprintf(stderr, "%s  %-44s %-12s %-18s %s\n", p.resumed ? "resumed " : "answered",
                     p.task.c_str(), p.dialect.c_str(), toString(p.result.verdict).c_str(),
                     p.result.message.c_str());
    });
    std::cout << formatMetricsTable(report.metrics);
    std::cout << report.problems.size() << " problem(s)"
              << (report.cancelled ? ", stopped: run the same command again to resume" : "")
              << "; generation " << report.generationMs / 1000.0 << " s, evaluation "
              << report.evaluationMs / 1000.0 << " s in this run\n";
    if (args.has("output")) {
        nlohmann::json out = resultFileHeader("kernelbench-paper-table", in.argv);
        out["options"] = {{"preset", toJson(options.preset)},
                          {"levels", options.levels},
                          {"limit", options.limit},
                          {"tolerance", tolerance},
                          {"device", device},
                          {"dtype", toString(*dtype)}};
        out["report"] = kernelbench::toJson(report);
        writeFileAtomically(args.value("output"), out.dump(2) + "\n");
    }
    return report.cancelled ? 130 : 0;
}

} // namespace dice::cli
