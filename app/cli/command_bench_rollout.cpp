// SPDX-License-Identifier: GPL-3.0-or-later
// dice bench rollout: RL's sampling workload, fixed batches against continuous batching.
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/bench/rollout_bench.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/common/number_format.h"
#include "core/system/result_file.h"

#include <iostream>

namespace dice::cli {

namespace {

const char* const kUsage =
    "usage: dice bench rollout [options]\n\n"
    "RL's sampling workload with random weights in an SDAR/DICE shape (docs/rl.md): rollouts\n"
    "whose prompts and answers have uneven lengths (drawn by a seeded schedule, uniform over\n"
    "each range; random weights never stop, so an answer's length is its budget), decoded at\n"
    "temperature 1 with dynamic remasking at 0.9, blocks of 4 in 4 steps. The same rollouts run\n"
    "twice: in fixed batches, each waiting for its longest answer, and through continuous\n"
    "batching, a pool of as many rows refilled as sequences finish. Reports tokens/s, passes/s,\n"
    "how full the passes were, peak GPU memory, and the key/value cache the pool takes.\n\n"
    "options:\n"
    "  --shape S            1.7b, 4b (default), 8b, or 20m (small, for the CPU)\n"
    "  --device D           cuda (default where there is a GPU) or cpu\n"
    "  --dtype T            bfloat16 (default on cuda), float16 or float32 (default on cpu)\n"
    "  --rollouts N         rollouts (default 1024)\n"
    "  --batch N            rows decoded at once, fixed batch and pool alike (default 128)\n"
    "  --prompt-tokens A:B  prompt lengths (default 200:2000)\n"
    "  --answer-tokens A:B  answer budgets (default 256:4096)\n"
    "  --only fixed|continuous\n"
    "                       run one of the two\n"
    "  --memory-gb F        GPU memory the largest pool is worked out for (default 141)\n"
    "  --fused-sampling     draw the cells with the fused sampling kernel (a GPU only)\n"
    "  --page-tokens N      a paged key/value cache, N positions a page (a multiple of 32);\n"
    "                       a sequence joins the pool when its prompt and budget fit\n"
    "  --cache-tokens N     the paged cache's positions in all (default: every row's longest)\n"
    "  --threads N          LibTorch's CPU threads\n"
    "  --seed N\n"
    "  --output FILE        write the result file (JSON) here\n";

void parseRange(const Arguments& args, const std::string& name, std::int64_t& least,
                std::int64_t& most) {
    if (!args.has(name))
        return;
    const std::string text = args.value(name);
    const auto colon = text.find(':');
    try {
        if (colon == std::string::npos)
            throw std::invalid_argument(text);
        std::size_t used = 0;
        least = std::stoll(text.substr(0, colon), &used);
        if (used != colon)
            throw std::invalid_argument(text);
        most = std::stoll(text.substr(colon + 1), &used);
        if (used != text.size() - colon - 1)
            throw std::invalid_argument(text);
    } catch (const std::exception&) {
        throw UsageError("--" + name + " must be LEAST:MOST, not \"" + text + "\"");
    }
}

} // namespace

int benchRollout(const Invocation& in) {
    const std::vector<std::string> rest(in.args.begin() + 1, in.args.end());
    const Arguments args(rest, {"help", "fused-sampling"},
                         {"shape", "device", "dtype", "rollouts", "batch", "prompt-tokens",
                          "answer-tokens", "only", "memory-gb", "threads", "seed", "output",
                          "page-tokens", "cache-tokens"});
    if (!args.ok() || !args.positionals().empty()) {
        std::cerr << "dice bench rollout: " << (args.ok() ? "" : args.error() + "\n") << kUsage;
        return 2;
    }
    if (args.flag("help")) {
        std::cout << kUsage;
        return 0;
    }
    RolloutBenchOptions o;
    o.device = modelDevice(args);
    o.shape = args.value("shape", o.device == ModelDevice::Cuda ? "4b" : "20m");
    const std::string dtype =
        args.value("dtype", o.device == ModelDevice::Cuda ? "bfloat16" : "float32");
    const auto parsed = parseModelDType(dtype);
    if (!parsed)
        throw UsageError("--dtype must be bfloat16, float16 or float32, not \"" + dtype + "\"");
    o.dtype = *parsed;
    o.rollouts = args.integer("rollouts", o.rollouts);
    o.batch = args.integer("batch", o.batch);
    parseRange(args, "prompt-tokens", o.minPromptTokens, o.maxPromptTokens);
    parseRange(args, "answer-tokens", o.minAnswerTokens, o.maxAnswerTokens);
    if (args.has("only")) {
        const std::string only = args.value("only");
        if (only != "fixed" && only != "continuous")
            throw UsageError("--only must be fixed or continuous, not \"" + only + "\"");
        o.fixed = only == "fixed";
        o.continuous = only == "continuous";
    }
    o.memoryGb = args.number("memory-gb", o.memoryGb);
    o.cpuThreads = args.integer("threads", 0);
    o.seed = static_cast<std::uint64_t>(args.integer("seed", 1));
    o.fusedSampling = args.flag("fused-sampling");
    o.pageTokens = args.integer("page-tokens", 0);
    o.cacheTokens = args.integer("cache-tokens", 0);

    nlohmann::json report = resultFileHeader("bench-rollout", in.argv);
    report["results"] =
        runRolloutBenchmark(o, [](const std::string& line) { std::cerr << line << std::endl; });
    if (args.has("output"))
        writeFileAtomically(args.value("output"), report.dump(2) + "\n");
    const auto& r = report["results"];
    std::cout << r["shape"].get<std::string>() << ", " << r["rollouts"].get<int>() << " rollouts, "
              << r["batch"].get<int>() << " rows:";
    for (const char* mode : {"fixed", "continuous"})
        if (r.contains(mode))
            std::cout << " " << mode << " "
                      << formatFixed(r[mode]["tokens_per_second"].get<double>(), 0) << " tokens/s ("
                      << formatFixed(r[mode]["seconds"].get<double>(), 1) << " s, rows "
                      << formatFixed(100 * r[mode]["row_occupancy"].get<double>(), 0) << "% full);";
    if (r.contains("continuous_over_fixed"))
        std::cout << " continuous/fixed "
                  << formatFixed(r["continuous_over_fixed"].get<double>(), 2) << "x";
    std::cout << "\n";
    return 0;
}

} // namespace dice::cli
