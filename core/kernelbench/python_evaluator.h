// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/evaluation.h"
#include "core/kernelbench/python_runtime.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dice::kernelbench {

// KernelBench's protocol as the Python worker runs it (docs/kernelbench-evaluator.md).
struct KernelBenchOptions {
    int correctnessTrials = 5;
    double atol = 1e-4; // KernelBench's float32 tolerance; the paper used 1e-2
    double rtol = 1e-4;
    int warmups = 3;
    int timingTrials = 100;
    bool timing = true;
    std::uint64_t seed = 42;
    double excessiveSpeedup = 10.0; // flag a speedup above this; 0 switches the flag off
    int device = 0;
    // One evaluation, load_inline's compile included (KernelBench allows 180 s, DICE used 300 s).
    int timeoutMs = 300000;
    // Where load_inline builds; one sub-folder per candidate source. Empty: the temp folder.
    std::string buildDirectory;
};

// The paper's setting: atol = rtol = 1e-2.
KernelBenchOptions paperOptions();

// One candidate against one KernelBench problem.
struct KernelBenchJob {
    std::string task; // a name for the result
    int level = 1;
    std::string referenceSource; // the problem file: Model, get_inputs, get_init_inputs
    std::string candidateSource; // the answer: ModelNew with load_inline CUDA
};

struct StaticFinding {
    std::string code;
    std::string severity; // "error", "fallback", "warning" or "compile"
    std::string message;
    int line = 0;
};

// Drives resources/python/kernelbench_worker.py through WorkerProcess: one long-lived worker,
// restarted after a timeout, a crash or a CUDA fault. Not thread-safe: one owner thread.
class PythonEvaluator {
public:
    struct Config {
        std::string python;       // empty: the first suitable interpreter (findPython)
        std::string workerScript; // empty: pythonScript("kernelbench_worker.py")
        // Set in the worker's environment over this process's.
        std::vector<std::pair<std::string, std::string>> environment;
    };
    using Progress =
        std::function<void(const std::string& stage, double fraction, const std::string& message)>;

    PythonEvaluator();
    explicit PythonEvaluator(Config config);
    ~PythonEvaluator();
    PythonEvaluator(const PythonEvaluator&) = delete;
    PythonEvaluator& operator=(const PythonEvaluator&) = delete;

    // The interpreter the worker runs with, chosen on first use: one that can evaluate if there
    // is one, else any python3 (static checks still work). Throws Error when there is no python3.
    const PythonInfo& python();
    // Whether candidates can run, and if not, why (in words for the user).
    bool canEvaluate();
    std::string unavailableReason();

    // Static checks only; needs python3 alone. Throws Error when the worker cannot answer.
    std::vector<StaticFinding> check(const std::string& candidateSource, int timeoutMs = 60000);

    // The whole protocol. A candidate's failure is a verdict; a broken problem file or a worker
    // that cannot be started throws Error. Without a usable CUDA PyTorch the verdict is not_run
    // (or invalid_candidate / compile_error when the static checks already decide).
    EvaluationResult evaluate(const KernelBenchJob& job, const KernelBenchOptions& options,
                              const Progress& progress = {});

    struct Prebuilt {
        bool ok = false;
        double milliseconds = 0;
        std::string message; // why it did not build, or "built"
    };
    // Builds the load_inline extensions of many answers at once, `threads` at a time, each in
    // its own sandbox, into the folders evaluate() with the same buildDirectory loads them from:
    // a build takes about a minute, and later evaluations of the same source find it done.
    // `built`, where given, hears of each build as it ends, from the thread that ran it.
    std::vector<Prebuilt>
    prebuild(const std::vector<std::string>& candidateSources, const std::string& buildDirectory,
             int threads, int timeoutMs,
             const std::function<void(std::size_t, const Prebuilt&)>& built = {});

    // How many times the worker process was started.
    int workerStarts() const;
    // The worker's process id while it runs, else -1.
    int workerProcessId() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace dice::kernelbench
