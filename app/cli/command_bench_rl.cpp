// SPDX-License-Identifier: GPL-3.0-or-later
// dice bench rl: one BiC-RL step's time and memory at a model shape with random weights.
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/rank_processes.h"
#include "core/bench/rl_bench.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/common/number_format.h"
#include "core/distributed/rank_environment.h"
#include "core/system/result_file.h"

#include <iostream>

namespace dice::cli {

namespace {

const char* const kUsage =
    "usage: dice bench rl [options]\n\n"
    "One BiC-RL step with random weights in an SDAR/DICE shape (docs/rl.md): the step's\n"
    "rollouts sampled with the RL sampler (temperature 1, dynamic remasking at 0.9, blocks of 4\n"
    "in 4 steps), as many candidates of dice bench reward's mix judged by the reward service,\n"
    "and TraceRL's update (old policy, then one epoch) over every rollout, in float32 weights\n"
    "with bfloat16 autocast as the trainer runs it. Reports each part's seconds, the update's\n"
    "model FLOPs utilisation and each part's peak GPU memory.\n\n"
    "options:\n"
    "  --shape S           1.7b (default), 4b, 8b, or 20m (small, for the CPU)\n"
    "  --device D          cuda (default where there is a GPU) or cpu\n"
    "  --tasks N           tasks of the step (default 64)\n"
    "  --rollouts N        rollouts per task (default 16)\n"
    "  --prompt-tokens N   each prompt's length (default 512)\n"
    "  --max-tokens N      each answer's budget (default 1024); random weights write to it\n"
    "  --batch N           rollouts sampled at once (default 128)\n"
    "  --micro-batch N     rollouts per forward pass of the update (default 1)\n"
    "  --accumulation N    micro-batches per optimizer step (default 32)\n"
    "  --no-gradient-checkpointing\n"
    "                      keep every layer's activations instead of running layers again in\n"
    "                      the backward pass (faster where the memory allows)\n"
    "  --attention-chunk N queries per chunk of the update's masked attention, each chunk over\n"
    "                      only the keys it may see (default 0: every key at once)\n"
    "  --no-reward         leave the reward service out (it needs a GPU)\n"
    "  --workers N         the reward service's workers on GPU 0 (default 4)\n"
    "  --peak-tflops F     the bfloat16 peak utilisation is taken against (default 989)\n"
    "  --threads N         LibTorch's CPU threads\n"
    "  --seed N\n"
    "  --output FILE       write the result file (JSON) here\n"
    "  --nproc N           N ranks on this host, one per GPU (docs/distributed.md): each samples\n"
    "                      and judges its share of the tasks, the update is shared; rank 0\n"
    "                      writes the result\n";

} // namespace

int benchRl(const Invocation& in) {
    const std::vector<std::string> rest(in.args.begin() + 1, in.args.end());
    const Arguments args(rest, {"help", "no-reward", "no-gradient-checkpointing"},
                         {"shape", "device", "tasks", "rollouts", "prompt-tokens", "max-tokens",
                          "batch", "micro-batch", "accumulation", "attention-chunk", "workers",
                          "peak-tflops", "threads", "seed", "output", "nproc"});
    if (!args.ok() || !args.positionals().empty()) {
        std::cerr << "dice bench rl: " << (args.ok() ? "" : args.error() + "\n") << kUsage;
        return 2;
    }
    if (args.flag("help")) {
        std::cout << kUsage;
        return 0;
    }
    RlBenchOptions o;
    o.device = modelDevice(args);
    o.shape = args.value("shape", o.device == ModelDevice::Cuda ? "1.7b" : "20m");
    o.tasks = args.integer("tasks", o.tasks);
    o.rolloutsPerTask = args.integer("rollouts", o.rolloutsPerTask);
    o.promptTokens = args.integer("prompt-tokens", static_cast<int>(o.promptTokens));
    o.maxTokens = args.integer("max-tokens", static_cast<int>(o.maxTokens));
    o.rolloutBatch = args.integer("batch", o.rolloutBatch);
    o.microBatch = args.integer("micro-batch", o.microBatch);
    o.accumulation = args.integer("accumulation", o.accumulation);
    o.gradientCheckpointing = !args.flag("no-gradient-checkpointing");
    o.attentionChunk = args.integer("attention-chunk", 0);
    o.rewardWorkers = args.integer("workers", o.rewardWorkers);
    o.peakTflops = args.number("peak-tflops", o.peakTflops);
    o.cpuThreads = args.integer("threads", 0);
    o.seed = static_cast<std::uint64_t>(args.integer("seed", 1));
    o.reward = !args.flag("no-reward") && o.device == ModelDevice::Cuda;
    if (o.rewardWorkers < 1 || o.rewardWorkers > 64 || !(o.peakTflops > 0))
        throw UsageError("--workers must be from 1 to 64 and --peak-tflops positive");

    if (const auto status = runAsRanks(args, {"bench", "rl"}, rest))
        return *status;
    nlohmann::json report = resultFileHeader("bench-rl", in.argv);
    report["results"] =
        runRlBenchmark(o, [](const std::string& line) { std::cerr << line << std::endl; });
    if (rankEnvironment().rank != 0)
        return 0;
    if (args.has("output"))
        writeFileAtomically(args.value("output"), report.dump(2) + "\n");
    const auto& r = report["results"];
    const auto& u = r["update"];
    std::cout << r["shape"].get<std::string>() << ", " << r["rollouts"].get<int>()
              << " rollouts: sampling " << formatFixed(r["sampling"]["seconds"].get<double>(), 1)
              << " s (" << formatFixed(r["sampling"]["tokens_per_second"].get<double>(), 0)
              << " tokens/s), reward "
              << (r["reward"].is_null()
                      ? std::string("left out")
                      : formatFixed(r["reward"]["wall_seconds"].get<double>(), 1) + " s")
              << ", old policy " << formatFixed(u["old_policy_seconds"].get<double>(), 1)
              << " s, update " << formatFixed(u["update_seconds"].get<double>(), 1) << " s ("
              << formatFixed(u["tflops"].get<double>(), 0) << " TFLOP/s, MFU "
              << formatFixed(100 * u["mfu"].get<double>(), 1) << "%); step "
              << formatFixed(r["step_seconds"].get<double>(), 1) << " s\n";
    return 0;
}

} // namespace dice::cli
