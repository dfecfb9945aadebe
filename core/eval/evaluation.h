// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/compile_types.h"

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

// The result of evaluating one candidate against one task. One type for both dialects (native and
// KernelBench), for the run store, the CLI, the GUI and the RL reward.
namespace dice {

enum class Verdict {
    Correct,          // compiled, ran, all correctness trials passed, no disqualifying flag
    Incorrect,        // ran but an output was wrong (value, shape or dtype) or inputs changed
    CompileError,     // the device code or the host code did not compile
    InvalidCandidate, // the file does not follow the dialect (sections, signature, ...)
    RuntimeError,     // a launch failed or the kernel faulted (illegal address, trap, ...)
    Timeout,          // compile or run took longer than allowed; the worker was restarted
    Fallback,         // the host code computes with PyTorch operators instead of its kernels
    NotRun            // compiled, but there is no GPU (or the evaluator was unavailable)
};

std::string toString(Verdict verdict);
std::optional<Verdict> parseVerdict(const std::string& text);

// What became of the worker process that evaluated a result, as its owner saw it.
enum class WorkerState {
    Unrecorded,            // evaluated in this process, or a result file that does not say
    Ok,                    // the worker that was running answered
    StartedAgain,          // answered by a fresh worker that replaced one that had ended
    RestartedAfterFault,   // a kernel fault lost the worker's CUDA context; the next one is fresh
    RestartedAfterTimeout, // the worker stopped answering and was killed
    RestartedAfterCrash,   // the worker died during the request
    NotStarted,            // the worker program could not be started
    Unavailable            // no worker program to evaluate with (KernelBench without Python)
};

// The text result files, the run store and the CLI show: "ok", "restarted after a timeout", ...
// (empty for Unrecorded).
std::string toString(WorkerState state);
// Reads that text back, and the wording of earlier versions; nullopt for anything else.
std::optional<WorkerState> parseWorkerState(const std::string& text);

// A finding beside the verdict: "fallback", "excessive_speedup", "below_physical_bound",
// "inputs_mutated", "nondeterministic", "precision_downgrade", "uninitialised_output", ...
struct EvaluationFlag {
    std::string code;
    std::string message;
};

struct TrialResult {
    int trial = 0;
    std::uint64_t seed = 0;
    bool passed = false;
    double maxAbsError = 0;
    double maxRelError = 0;
    std::string detail; // why it failed, in plain words
};

struct TimingStats {
    std::string method; // "cuda_events" or "cupti"
    int warmups = 0;
    int trials = 0;
    double medianMs = 0;
    double meanMs = 0;
    double stdMs = 0;
    double minMs = 0;
    double maxMs = 0;
    std::vector<double> samplesMs;
};

// How the KernelBench dialect timed the answer's calls (docs/kernelbench-bridge.md): each call's
// time is what the answer reported, raised to the round trip less the allowance where that is
// more. Kept so that a time can be traced to the round trips that made it.
struct RoundTripCheck {
    double pingMedianMs = 0;
    double pingP90Ms = 0;
    double allowanceMs = 0;
    int raisedCalls = 0;
    int underreportedCalls = 0;
    // What the calibrating pings ran: "reference" (the problem's Model), or zeros and why.
    std::string pingWorkload;
    std::vector<double> pingOverheadsMs; // each counted ping's round trip less its window
    double copyBytes = 0;                // outputs copied out of the answer's process in every call
    // Where inputs and outputs crossed between the processes: "device" (GPU memory both map),
    // or "host" and why the GPU's could not serve.
    std::string exchange;
    std::vector<double> reportedMs;
    std::vector<double> roundTripMs;
};

struct EvaluationResult {
    std::string task;
    int level = 1;
    std::string dialect = "native"; // "native" or "kernelbench"
    std::string preset = "bench";
    Verdict verdict = Verdict::NotRun;
    std::string message; // one line a user reads first

    bool compiled = false;
    double compileMs = 0;
    std::vector<Diagnostic> diagnostics;
    std::vector<ResourceUsage> resources;

    int launchesPerCall = 0; // kernel launches in one call of the candidate

    std::vector<TrialResult> trials;
    std::optional<TimingStats> candidateTime;       // CUDA events on our stream
    std::optional<TimingStats> referenceTime;       // CUDA events on our stream
    std::optional<TimingStats> candidateKernelTime; // CUPTI: every kernel on every stream
    std::optional<TimingStats> referenceKernelTime;
    std::optional<RoundTripCheck> roundTripCheck; // KernelBench dialect, when timed
    double speedup = 0; // reference median / candidate median (events), 0 when not timed
    // Reference mean / candidate mean: the statistic KernelBench reports. The median is the
    // workbench's own (one slow outlier call moves a mean, not a median); both are kept.
    double speedupOfMeans = 0;
    double physicalBoundMs = 0; // max(bytes / peak bandwidth, flops / peak rate), 0 if unknown
    std::vector<EvaluationFlag> flags;

    std::string device; // "NVIDIA H200", or "" without a GPU
    WorkerState workerState = WorkerState::Unrecorded;
    double wallMs = 0; // the whole evaluation as the caller saw it
    // The time the GPU was the candidate's: its correctness and timing runs in the worker, the
    // reference's included; 0 where nothing ran.
    double gpuMs = 0;
    // The GPU ran out of memory during the evaluation (the worker's allocator failed an
    // allocation): the verdict may say more about the memory other work held than about the
    // candidate, so a caller sharing the GPU judges it again with the GPU to itself.
    bool outOfMemory = false;
    // Where a KernelBench-dialect evaluation's time went, by stage ("reference", "answer_start",
    // "load", "correctness", ...): only the stages it reached.
    std::map<std::string, double> stagesMs;

    bool hasFlag(const std::string& code) const;
    // Correct in the paper's sense (compiled and correct). In strict mode a fallback never counts.
    bool countsAsCorrect(bool strict = true) const;
};

nlohmann::json toJson(const EvaluationResult& result);
// Throws dice::Error on malformed input.
EvaluationResult evaluationFromJson(const nlohmann::json& json);

} // namespace dice
