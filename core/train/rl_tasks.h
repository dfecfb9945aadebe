// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/tasks/task.h"
#include "core/train/rl_config.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

// The tasks of a reinforcement-learning phase (docs/rl.md), what the model is asked about each,
// how its answer becomes a candidate, and which tasks each step takes.
namespace dice {

struct RlTask {
    Task task;
    std::string solution; // the reference solution (.dice); empty: the task cannot be infilled
};

// One question of a step: a task asked end to end, or one kernel of its solution to infill.
struct RlPrompt {
    std::size_t task = 0;
    RlPhaseKind kind = RlPhaseKind::EndToEnd;
    std::string text;     // the user message
    std::string skeleton; // infill: the solution with the hole
    std::string hole;     // infill: the kernel whose body is asked
};

class RlTaskPool {
public:
    // The tasks of `data`: the built-in suite, or a folder with tasks/ (a corpus of dice data
    // synth, keeping the given splits), with their solutions where solutions/ has them. Ordered
    // easy to hard: by level, then by name. Throws Error when there is none.
    static RlTaskPool load(const RlData& data);

    const std::vector<RlTask>& tasks() const { return m_tasks; }
    // The tasks that can be infilled (they have a solution with a kernel body), in order.
    std::vector<std::size_t> infillable() const;

    // The question about task `index` for a phase; `variant` picks which kernel of a solution
    // with several is the hole.
    RlPrompt prompt(std::size_t index, RlPhaseKind kind, std::uint64_t variant) const;
    // The candidate an answer makes: the first fenced block (or the answer) for a task asked end
    // to end; for an infilled one, the skeleton with the hole filled with the answer.
    std::string candidate(const RlPrompt& prompt, const std::string& answer) const;

private:
    std::vector<RlTask> m_tasks;
};

// What the schedule remembers of a task: how its answers fared.
struct RlTaskRecord {
    int attempts = 0;
    double rewardSum = 0;
    int correct = 0;
};

// Which tasks a step takes (docs/rl.md). Sequential: the next `count` of `candidates` in order,
// from where the last step stopped, wrapping around (the paper's). Adaptive: drawn without
// replacement with weight 4p(1-p) + 0.05, p the task's smoothed share of correct answers, so
// that tasks whose answers still disagree (the ones TraceRL learns from) come first, and tasks of
// a level above the easiest level not yet learnt (under half correct) weigh a quarter.
std::vector<std::size_t> scheduleStep(RlSchedule schedule, const RlTaskPool& pool,
                                      const std::vector<std::size_t>& candidates, int count,
                                      std::int64_t phaseStep,
                                      const std::map<std::string, RlTaskRecord>& records,
                                      std::uint64_t seed);

} // namespace dice
