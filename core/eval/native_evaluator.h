// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/eval_options.h"
#include "core/eval/evaluation.h"
#include "core/tasks/task.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dice {

// Evaluates native candidates in this process: parse, compile (NVRTC and TorchScript), inspect the
// host graph, and on a GPU run the protocol of DESIGN.md (correctness with poisoned and guarded
// allocations, shapes, timing with L2 flushes, CUDA events and CUPTI). It owns the CUDA context of
// one GPU, so it lives in the worker (dice-evald), where a faulting kernel costs only the worker.
class NativeEvaluator {
public:
    using ProgressFn =
        std::function<void(const std::string& stage, double fraction, const std::string& message)>;

    // The share of the GPU's memory this evaluator's tensors may hold: the default leaves room for
    // the context and the flush buffer; workers sharing a GPU split it (Evaluator does).
    static constexpr double kDefaultGpuMemoryShare = 0.8;
    explicit NativeEvaluator(int deviceIndex = 0, double gpuMemoryShare = kDefaultGpuMemoryShare);
    ~NativeEvaluator();
    NativeEvaluator(const NativeEvaluator&) = delete;
    NativeEvaluator& operator=(const NativeEvaluator&) = delete;

    // Everything that needs no GPU: the dialect, both compilers, the graph verdict, the precision
    // scan and a dry run of the host code on CPU tensors of the `small` preset that binds every
    // launch's arguments. The verdict is NotRun when all of that passed. `ptx` receives the PTX.
    EvaluationResult compile(const Task& task, const std::string& source, const std::string& origin,
                             const EvalOptions& options, std::string* ptx = nullptr);

    // The whole protocol. Without a GPU the result is compile()'s, with the reason in message.
    EvaluationResult evaluate(const Task& task, const std::string& source,
                              const std::string& origin, const EvalOptions& options,
                              const ProgressFn& progress = {});

    // One candidate of a batch.
    struct BatchItem {
        Task task;
        std::string source;
        std::string origin;
        EvalOptions options;
    };
    using BatchDone = std::function<void(std::size_t item, const EvaluationResult& result)>;
    // Evaluates the items in order, one at a time on the GPU, while `compileThreads` threads
    // compile and dry-run the items ahead (NVRTC and TorchScript need no GPU): each verdict is
    // the one evaluate() gives. `done` is called on this thread, in order, for each item
    // evaluated. Stops after an item whose kernel fault lost the CUDA context; returns how many
    // items were evaluated, so that the rest can go to a fresh process. The compilers run at
    // most `lookahead` items ahead of the GPU (0: twice their number).
    std::size_t evaluateBatch(const std::vector<BatchItem>& items, int compileThreads,
                              int lookahead, const BatchDone& done,
                              const ProgressFn& progress = {});

    // Changes the share of the GPU's memory this evaluator may hold (0 < share <= 1), giving back
    // what it holds cached: the owner of workers sharing a GPU raises one worker's share while the
    // others are idle.
    void setGpuMemoryShare(double share);

    // LibTorch's CPU threads in this process (its host code's dry runs): workers sharing a
    // machine split its cores instead of each taking all of them. Returns the count in effect.
    static int setCpuThreads(int threads);

    // True once a kernel fault left the CUDA context unusable; the owning process must exit.
    bool contextLost() const;
    // Sets up the GPU state every evaluation needs (the context, the memory cap, the evaluator's
    // own kernels) ahead of the first request, as a spare worker does while another works;
    // "ready", or why not (no GPU: evaluations then say so themselves).
    std::string prepareGpu();

    struct Impl;

private:
    std::unique_ptr<Impl> m_impl;
};

} // namespace dice
