// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/reward/reward.h"
#include "core/tasks/task.h"
#include "core/worker/evaluator.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dice {

// One candidate to judge: a native one against a task, or a KernelBench answer against its
// problem file's source.
struct RewardItem {
    std::string dialect = "native"; // "native" or "kernelbench"
    Task task;                      // native: the task; kernelbench: name and level only
    std::string reference;          // kernelbench: the problem file (Model, get_inputs, ...)
    std::string source;             // the candidate
    std::string name = "candidate";
};

struct Judged {
    EvaluationResult evaluation;
    RewardBreakdown reward;
};

struct RewardServiceOptions {
    RewardOptions reward;
    // The workers: one per entry of devices (repeat an index for several warm workers on one
    // GPU), their timeouts and sandbox.
    EvaluatorOptions evaluator;
    // Candidates per request and compile threads per worker.
    Evaluator::BatchOptions batch;
    // KernelBench answers: load_inline builds at once, and where they are kept (reused by
    // source, so an answer seen before is not built again). Empty: a folder of the service's.
    int kernelBenchBuildThreads = 8;
    int kernelBenchTimeoutMs = 300000;
    std::string kernelBenchBuildDirectory;
};

// The evaluator's batch door for reinforcement learning (docs/reward.md): judges many candidates
// per call and turns each verdict into a reward. Native candidates are compiled on the workers'
// threads while their GPUs run others, with warm workers kept between calls; a candidate that
// faults or hangs costs its worker, which is restarted, and the batch goes on. Its verdicts are
// those of evaluating each candidate alone. One caller at a time.
class RewardService {
public:
    explicit RewardService(RewardServiceOptions options);
    ~RewardService();
    RewardService(const RewardService&) = delete;
    RewardService& operator=(const RewardService&) = delete;

    // Called once per judged candidate (not in order), with how many are judged so far.
    using Progress = std::function<void(std::size_t done, std::size_t total, std::size_t index,
                                        const Judged& judged)>;

    // Results in the items' order. Once `cancel` is raised no further candidate starts; those
    // left are not run and score as not correct.
    std::vector<Judged> judge(const std::vector<RewardItem>& items, const Progress& progress = {},
                              const std::atomic<bool>* cancel = nullptr);

    // Starts every worker (LibTorch and CUDA take seconds), so that the first batch does not
    // pay for it. Returns what the workers said that stopped them, empty when all started.
    std::string warmUp();

    const RewardServiceOptions& options() const;
    // How many times workers were (re)started in all.
    int workerStarts() const;
    // How many of those starts took over a started spare (EvaluatorOptions::spareWorkers).
    int spareTakeovers() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

nlohmann::json toJson(const Judged& judged);

} // namespace dice
