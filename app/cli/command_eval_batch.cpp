// SPDX-License-Identifier: GPL-3.0-or-later
// dice eval --batch: the reward service from the command line, for scripts and clusters.
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/common/error.h"
#include "core/common/number_format.h"
#include "core/cuda/cuda_driver.h"
#include "core/reward/reward_batch.h"
#include "core/reward/reward_service.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>

namespace dice::cli {

namespace {

const char* const kUsage =
    "usage: dice eval --batch FILE.jsonl [options]\n\n"
    "Judges many candidates for a reward (docs/reward.md): each line of FILE is a JSON object\n"
    "with a candidate (\"candidate\": its source, or \"candidate_file\") and its task (\"task\": "
    "a\n"
    "built-in name, a task file or the task itself) or, with \"dialect\": \"kernelbench\", its\n"
    "problem (\"reference\" or \"reference_file\"). Writes one JSON line per candidate, in the\n"
    "file's order: the evaluation and the reward.\n\n"
    "options:\n"
    "  --output FILE          write the JSON lines here (default: standard output)\n"
    "  --mode MODE            correctness (default: the paper's RL, no timing) or timed\n"
    "  --preset NAME          bench (default) or small\n"
    "  --tolerance X          atol = rtol (default 1e-2, the paper's)\n"
    "  --trials N             correctness trials (default 1)\n"
    "  --timing-trials N      timed calls in timed mode (default 10)\n"
    "  --speedup-weight W     add W x min(speedup, --speedup-clip) to a correct candidate's "
    "reward\n"
    "  --speedup-clip C       (default 3)\n"
    "  --coverage-weight W    add W x the share of GPU time in the candidate's own kernels\n"
    "  --fast-compile LEVEL   NVRTC's --Ofast-compile when judging for correctness: off\n"
    "                         (default), min, mid or max (docs/reward.md)\n"
    "  --devices LIST         GPU indices, an index repeated for more warm workers (default 0)\n"
    "  --compile-threads N    threads each worker compiles ahead with (default 4)\n"
    "  --chunk N              candidates per worker request (default 64)\n"
    "  --guided-chunks        a request takes half an even share of what is left, at least\n"
    "                         --chunk (docs/reward.md)\n"
    "  --compile-lookahead N  candidates a worker compiles ahead of its GPU (default twice\n"
    "                         --compile-threads)\n"
    "  --idle-timeout S       a kernel silent for S seconds hangs (default 10)\n"
    "  --no-spare-workers     no started spare beside each worker to take over after a\n"
    "                         fault or a hang (docs/reward.md)\n\n"
    "Exit status: 0 when every candidate was judged (whatever its verdict), 2 for a usage error\n"
    "or a batch file that cannot be read.\n";

} // namespace

int evalBatch(const Invocation& in) {
    // "--batch --help" would otherwise read as a batch file named "--help".
    if (std::find(in.args.begin(), in.args.end(), "--help") != in.args.end()) {
        std::cout << kUsage;
        return 0;
    }
    const Arguments args(in.args, {"no-spare-workers", "guided-chunks"},
                         {"batch", "output", "mode", "preset", "tolerance", "trials",
                          "timing-trials", "speedup-weight", "speedup-clip", "coverage-weight",
                          "devices", "compile-threads", "chunk", "idle-timeout", "fast-compile",
                          "compile-lookahead"});
    if (!args.ok() || !args.positionals().empty() || !args.has("batch")) {
        std::cerr << "dice eval --batch: " << (args.ok() ? "" : args.error() + "\n") << kUsage;
        return 2;
    }
    RewardServiceOptions options;
    nlohmann::json reward = {{"mode", args.value("mode", "correctness")},
                             {"preset", args.value("preset", "bench")},
                             {"tolerance", args.number("tolerance", 1e-2)},
                             {"correctness_trials", args.integer("trials", 1)},
                             {"timing_trials", args.integer("timing-trials", 10)},
                             {"speedup_weight", args.number("speedup-weight", 0)},
                             {"speedup_clip", args.number("speedup-clip", 3)},
                             {"coverage_weight", args.number("coverage-weight", 0)},
                             {"fast_compile", args.value("fast-compile", "off")}};
    options.reward = rewardOptionsFromJson(reward);
    if (args.has("devices"))
        options.evaluator.devices = gpuIndexList(args.value("devices"));
    options.evaluator.idleTimeoutMs = args.integer("idle-timeout", 10) * 1000;
    options.evaluator.compileTimeoutMs = 60000;
    options.batch.compileThreads = args.integer("compile-threads", 4);
    // Without a GPU there is nothing for a spare to set up.
    options.evaluator.spareWorkers =
        !args.flag("no-spare-workers") && cu::Driver::instance().available();
    options.batch.chunk = static_cast<std::size_t>(std::max(1, args.integer("chunk", 64)));
    options.batch.guidedChunks = args.flag("guided-chunks");
    options.batch.compileLookahead = args.integer("compile-lookahead", 0);
    if (options.batch.compileLookahead < 0 || options.batch.compileLookahead > 4096)
        throw UsageError("--compile-lookahead must be from 0 to 4096 (0: twice --compile-threads)");
    if (options.batch.compileThreads < 1 || options.batch.compileThreads > 64)
        throw UsageError("--compile-threads must be from 1 to 64");
    if (options.evaluator.idleTimeoutMs < 1000)
        throw UsageError("--idle-timeout must be at least 1 second");

    std::vector<RewardItem> items;
    try {
        items = readRewardBatch(args.value("batch"));
    } catch (const Error& e) {
        std::cerr << "dice eval --batch: " << e.what() << "\n";
        return 2;
    }
    std::ofstream file;
    if (args.has("output")) {
        file.open(args.value("output"));
        if (!file)
            throw FileError(args.value("output"), "cannot be written");
    }
    std::ostream& out = args.has("output") ? file : std::cout;

    RewardService service(options);
    const auto started = std::chrono::steady_clock::now();
    // Lines go out in the file's order as soon as every earlier one is known.
    std::vector<nlohmann::json> ready(items.size());
    std::size_t written = 0;
    const auto judged = service.judge(
        items, [&](std::size_t done, std::size_t total, std::size_t index, const Judged& j) {
            nlohmann::json line = toJson(j);
            line["index"] = index;
            line["name"] = items[index].name;
            ready[index] = std::move(line);
            while (written < ready.size() && !ready[written].is_null())
                out << ready[written++].dump() << "\n" << std::flush;
            if (progressShown())
                std::cerr << "\r" << done << "/" << total << " judged" << std::flush;
        });
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::map<std::string, int> verdicts;
    int hacks = 0;
    double total = 0;
    for (const auto& j : judged) {
        ++verdicts[toString(j.evaluation.verdict)];
        hacks += j.reward.hack ? 1 : 0;
        total += j.reward.value;
    }
    std::cerr << (progressShown() ? "\r" : "") << judged.size() << " candidates judged in "
              << formatFixed(seconds, 1) << " s ("
              << formatFixed(judged.size() / std::max(seconds, 1e-9), 1)
              << " per second), mean reward " << formatFixed(total / judged.size(), 3) << ":";
    for (const auto& [verdict, count] : verdicts)
        std::cerr << " " << verdict << " " << count;
    std::cerr << "; " << hacks << " caught cheating; workers started " << service.workerStarts()
              << " times\n";
    return 0;
}

} // namespace dice::cli
