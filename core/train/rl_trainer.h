// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/train/rl_config.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

// BiC-RL (docs/rl.md): the paper's reinforcement learning, its two phases one after the other.
// Each step takes its tasks from the schedule, samples several answers to each with the sampler
// (recording the step that committed every token), judges them with the reward service,
// standardises the rewards within each task's group (dropping groups whose rewards are all equal),
// computes the old policy's log-probabilities and makes one epoch of TraceRL's clipped update. The
// run folder is the contract with everything else (the Fine-tune area reads it):
//   config.json            the resolved configuration
//   status.json            what the trainer is doing now (rewritten as it goes)
//   metrics.jsonl          one line per step
//   rollouts/STEP.jsonl    every rollout of a step: prompt, answer, trace, verdict, reward
//   eval.jsonl             one line per evaluation on held-out tasks
//   checkpoints/step-N/    Hugging Face folder, optimizer and schedule state (resumable)
//   model/                 the final model
// A file named PAUSE or STOP in the run folder ends the run after the current step, with a
// checkpoint to resume from.
namespace dice {

struct RlHooks {
    std::function<void(const std::string&)> log;
    // Raised: the run stops after the current step (or rollout batch) with a checkpoint.
    const std::atomic<bool>* cancel = nullptr;
    // The evaluation worker (dice-evald); empty: the one beside the running program. Where the
    // program runs from is not where the configuration's run goes, so it is not configured.
    std::string workerExecutable;
};

struct RlReport {
    std::int64_t firstStep = 0; // 0, or where a resumed run started
    std::int64_t steps = 0;     // steps done when it stopped
    bool stopped = false;       // cancelled, paused or stopped before the last step
    std::string stopReason;     // "cancelled", "paused", "stopped"
    double seconds = 0;
    std::string modelFolder; // the final model, when the run finished
};

RlReport trainRl(const RlConfig& config, const RlHooks& hooks = {});

// The folder of the model a configuration names ("embedded": the workbench's DICE-nano).
std::string rlModelFolder(const std::string& model);

// Group standardisation: each group's rewards minus their mean over their population standard
// deviation; groups whose rewards are all equal get no advantage and are dropped (false in kept).
void standardiseGroups(const std::vector<double>& rewards, std::size_t groupSize,
                       std::vector<double>& advantages, std::vector<bool>& kept);

} // namespace dice
