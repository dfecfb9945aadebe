// SPDX-License-Identifier: GPL-3.0-or-later
// dice train rl: BiC-RL, the paper's two reinforcement-learning phases (docs/rl.md).
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/rank_processes.h"
#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/distributed/rank_environment.h"
#include "core/train/rl_config.h"
#include "core/train/rl_trainer.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <csignal>
#include <iostream>

namespace dice::cli {

namespace {

std::atomic<bool> g_cancel{false};

void onSignal(int) {
    g_cancel = true;
}

const char* const kUsage =
    "usage: dice train rl --config FILE [options]\n"
    "       dice train rl --preset paper|cpu-demo --output DIR [options]\n"
    "       dice train rl --print-preset paper|cpu-demo\n\n"
    "Reinforcement learning with the paper's two phases (kernel infilling, then end-to-end\n"
    "generation) and TraceRL's update (docs/rl.md). The run folder holds the configuration,\n"
    "status.json, metrics.jsonl, rollouts/, eval.jsonl, checkpoints/ and the final model/; a run\n"
    "started again with the same folder resumes from its newest checkpoint. Ctrl+C, or a file\n"
    "named PAUSE or STOP in the run folder, ends it after the current step with a checkpoint.\n\n"
    "options (each changes the configuration):\n"
    "  --output DIR        the run folder\n"
    "  --model DIR         a Hugging Face folder, or embedded (DICE-nano)\n"
    "  --device D          cpu, cuda or cuda:N\n"
    "  --seed N\n"
    "  --threads N         CPU threads for LibTorch\n\n"
    "several processes (docs/distributed.md):\n"
    "  --nproc N           start N ranks on this host (one per GPU with --device cuda), with\n"
    "                      the variables torchrun sets; a process started by torchrun (RANK,\n"
    "                      WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT) is one rank\n";

} // namespace

int trainRl(const Invocation&, const std::vector<std::string>& words) {
    const Arguments args(words, {"help"},
                         {"config", "preset", "print-preset", "output", "model", "device", "seed",
                          "threads", "nproc"});
    if (!args.ok() || !args.positionals().empty()) {
        std::cerr << "dice train rl: " << (args.ok() ? "" : args.error() + "\n") << kUsage;
        return 2;
    }
    if (args.flag("help")) {
        std::cout << kUsage;
        return 0;
    }
    if (args.has("print-preset")) {
        std::cout << rlPreset(args.value("print-preset")).dump(2) << "\n";
        return 0;
    }
    if (args.has("config") == args.has("preset")) {
        std::cerr << "dice train rl: give --config FILE or --preset NAME\n" << kUsage;
        return 2;
    }
    nlohmann::json json;
    if (args.has("config")) {
        try {
            json = nlohmann::json::parse(readTextFile(args.value("config"), limits::kTaskFile));
        } catch (const nlohmann::json::exception& e) {
            throw FileError(args.value("config"), std::string("not valid JSON: ") + e.what());
        }
        if (!json.is_object())
            throw FileError(args.value("config"), "must hold a JSON object");
    } else {
        json = {{"preset", args.value("preset")}};
    }
    for (const char* key : {"output", "model", "device"})
        if (args.has(key))
            json[key] = args.value(key);
    if (args.has("seed"))
        json["seed"] = static_cast<std::uint64_t>(args.integer("seed", 0));
    if (args.has("threads"))
        json["threads"] = args.integer("threads", 0);
    const RlConfig config = rlConfigFromJson(json);
    if (config.output.empty()) {
        std::cerr << "dice train rl: the configuration names no output folder (--output)\n";
        return 2;
    }
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    if (const auto status = runAsRanks(args, {"train", "rl"}, words, &g_cancel))
        return *status;
    const bool leader = rankEnvironment().rank == 0;
    RlHooks hooks;
    hooks.log = [](const std::string& line) { std::cerr << line << std::endl; };
    hooks.cancel = &g_cancel;
    const RlReport report = dice::trainRl(config, hooks);
    if (!leader)
        return 0;
    std::cout << (report.stopped ? "stopped (" + report.stopReason + ")" : std::string("finished"))
              << " after step " << report.steps << " of " << config.totalSteps() << " in "
              << static_cast<int>(report.seconds) << " s"
              << (report.modelFolder.empty() ? "" : "; the model is in " + report.modelFolder)
              << "\n";
    return 0;
}

} // namespace dice::cli
