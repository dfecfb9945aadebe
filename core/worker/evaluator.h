// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/eval_options.h"
#include "core/eval/evaluation.h"
#include "core/tasks/task.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dice {

struct EvaluatorOptions {
    // dice-evald; empty: the one beside the running program.
    std::string workerExecutable;
    // One worker per GPU index; several make a pool that evaluateAll() spreads work over.
    std::vector<int> devices = {0};
    int compileTimeoutMs = 60000;
    // No word from the worker (not even progress) for this long once it has compiled: a kernel
    // hangs. Before that, compileTimeoutMs applies; starting a worker has runTimeoutMs.
    int idleTimeoutMs = 60000;
    int runTimeoutMs = 30 * 60 * 1000;
    // Run the workers in their own network-less namespace where the kernel allows it.
    bool sandbox = true;
    // LibTorch's CPU threads in each worker; 0 leaves LibTorch's own count (every core, in each
    // worker: a pool of workers may then ask for several times the machine's cores).
    int cpuThreadsPerWorker = 0;
    // Each worker keeps a spare, started with its GPU set up while it works, which takes over
    // when a fault or a hang ends it: a restart then costs no loading of LibTorch, CUDA and the
    // evaluator's kernels. Twice the processes, and a CUDA context more per worker.
    bool spareWorkers = false;
};

// The one door to kernel evaluation for the CLI, the GUI and the RL loop. It owns the worker
// processes (dice-evald), applies the timeouts, restarts a worker after a fault or a timeout and
// says so in EvaluationResult::workerState. Every failure becomes a verdict; nothing throws for a
// bad candidate. Calls may come from several threads: each worker serves one at a time.
class Evaluator {
public:
    using ProgressFn =
        std::function<void(const std::string& stage, double fraction, const std::string& message)>;

    explicit Evaluator(EvaluatorOptions options = {});
    ~Evaluator();
    Evaluator(const Evaluator&) = delete;
    Evaluator& operator=(const Evaluator&) = delete;

    EvaluationResult evaluate(const Task& task, const std::string& source,
                              const std::string& candidateName, const EvalOptions& options = {},
                              const ProgressFn& progress = {});
    // Compiles and inspects without running; `ptx` receives the PTX when given.
    EvaluationResult compile(const Task& task, const std::string& source,
                             const std::string& candidateName, const EvalOptions& options = {},
                             std::string* ptx = nullptr);

    struct Job {
        const Task* task = nullptr;
        std::string source;
        std::string candidateName;
        EvalOptions options;
    };
    // Spreads the jobs over the workers; results come back in the jobs' order. `done` is called
    // (from worker threads, one at a time) as each finishes. Once `cancel` is raised no further
    // job starts: those left are NotRun, with a message that says so, and `done` is not called
    // for them.
    std::vector<EvaluationResult>
    evaluateAll(const std::vector<Job>& jobs,
                const std::function<void(std::size_t, const EvaluationResult&)>& done = {},
                const std::atomic<bool>* cancel = nullptr);

    struct BatchOptions {
        // Candidates sent to a worker in one request: after a fault or a hang, the rest of the
        // request goes to a fresh worker; a smaller chunk spreads work more evenly.
        std::size_t chunk = 64;
        // Threads each worker compiles the candidates ahead with while its GPU runs the current.
        int compileThreads = 4;
        // Hand out the longest candidates first. Compiling is most of a batch's time, and a long
        // candidate (a register-tiled template: seconds of NVRTC) met in the middle of a request
        // holds its worker's GPU while the compilers, which run at most twice their number ahead,
        // wait for the GPU to move on; started first, the long compiles would overlap each other
        // and the rest. Off until measured on a GPU (docs/reward.md). Results keep the jobs' order.
        bool longestFirst = false;
        // Requests sized by what is left (half an even share each, at least `chunk`) instead
        // of `chunk` each: between two requests a worker's compilers wait for its GPU to finish
        // the last candidates and its GPU waits for the next request's first compile, once a
        // request; long requests make that rare and short ones at the end keep the workers
        // finishing together. Workers that share a GPU send one candidate of a task not yet
        // seen to fit there before the task's others. Off by default: measured at the small
        // preset only (docs/reward.md).
        bool guidedChunks = false;
        // How many candidates a worker's compilers may run ahead of its GPU; 0 leaves it to the
        // worker (twice the compile threads). More keeps the compilers busy past a long compile
        // the GPU waits for (seconds for a register-tiled template); a fault throws away what
        // was compiled ahead, which the next worker compiles again.
        int compileLookahead = 0;
    };
    // evaluateAll() through the workers' batch request (the reward service's door): results in
    // the jobs' order, each the verdict evaluate() gives the same candidate alone. A candidate
    // that faults or hangs costs its worker, which is restarted; the batch goes on.
    std::vector<EvaluationResult>
    evaluateBatch(const std::vector<Job>& jobs, const BatchOptions& batch,
                  const std::function<void(std::size_t, const EvaluationResult&)>& done = {},
                  const std::atomic<bool>* cancel = nullptr);

    // The worker's hello reply (version, pid, sandbox); starts it when needed.
    nlohmann::json hello(std::size_t worker = 0);
    std::size_t workerCount() const;
    // How many times workers were (re)started in all.
    int starts() const;
    // How many of those starts took over a spare.
    int spareTakeovers() const;

private:
    // evaluateBatch() in the jobs' order.
    std::vector<EvaluationResult>
    evaluateInOrder(const std::vector<Job>& jobs, const BatchOptions& batch,
                    const std::function<void(std::size_t, const EvaluationResult&)>& done,
                    const std::atomic<bool>* cancel);

    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace dice
