// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/selftest/evaluator_checks.h"

#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/cuda/cuda_driver.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/eval/hack_suite.h"
#include "core/tasks/task.h"
#include "core/worker/evaluator.h"

#include <algorithm>
#include <filesystem>
#include <memory>

namespace dice {

namespace {

std::string workerPath() {
    return (std::filesystem::path(executableDirectory()) / "dice-evald").string();
}

void requireGpuForEvaluation() {
    const auto& driver = cu::Driver::instance();
    if (!driver.available())
        throw SkipCheck{driver.unavailableReason()};
    std::error_code ec;
    if (!std::filesystem::exists(workerPath(), ec))
        throw SkipCheck{"no dice-evald beside this program (run `dice selftest`)"};
}

// One worker for all the checks, kept warm; the hung-kernel hack needs short timeouts.
Evaluator& sharedEvaluator() {
    static std::unique_ptr<Evaluator> evaluator = [] {
        EvaluatorOptions options;
        options.compileTimeoutMs = 20000;
        options.idleTimeoutMs = 10000;
        options.runTimeoutMs = 300000;
        return std::make_unique<Evaluator>(options);
    }();
    return *evaluator;
}

const Task& builtinTask(const std::string& name) {
    static const TaskSuite suite = loadTaskSuite(builtinTaskDirectory());
    const Task* task = suite.find(name);
    if (!task)
        throw Error("the built-in suite has no task " + name);
    return *task;
}

std::string solutionPath(const std::string& task) {
    return (std::filesystem::path(dataDirectory()) / "solutions" / (task + ".dice")).string();
}

std::string describe(const EvaluationResult& r) {
    std::string flags;
    for (const auto& f : r.flags)
        flags += (flags.empty() ? " [" : ", ") + f.code;
    if (!flags.empty())
        flags += "]";
    return toString(r.verdict) + flags + ": " + r.message;
}

// The worker answers and evaluates an honest candidate correctly after whatever came before.
void checkWorkerAlive(CheckResult& result) {
    Evaluator& evaluator = sharedEvaluator();
    const auto hello = evaluator.hello();
    EvalOptions options;
    options.preset = "small";
    options.timing = false;
    const EvaluationResult r = evaluator.evaluate(
        builtinTask("relu"), readTextFile(solutionPath("relu")), "relu.dice", options);
    if (r.verdict != Verdict::Correct)
        throw Error("after the hack, the honest relu was " + describe(r));
    result.data["worker_pid"] = hello.value("pid", 0LL);
    result.data["worker_starts"] = evaluator.starts();
}

void checkSolution(CheckResult& result, const std::string& task, double tolerance) {
    requireGpuForEvaluation();
    EvalOptions options;
    options.preset = "small";
    if (tolerance > 0)
        options.tolerance = tolerance;
    const EvaluationResult r = sharedEvaluator().evaluate(
        builtinTask(task), readTextFile(solutionPath(task)), task + ".dice", options);
    result.data["evaluation"] = toJson(r);
    if (r.verdict != Verdict::Correct)
        throw Error("the honest " + task + " solution was " + describe(r));
    if (!r.candidateTime || !r.referenceTime || r.speedup <= 0)
        throw Error("the honest " + task + " solution was not timed");
    result.message = task + " (small preset): correct, " +
                     std::to_string(r.candidateTime->medianMs) + " ms against " +
                     std::to_string(r.referenceTime->medianMs) + " ms";
}

// A float32 convolution at its bench preset, where a TF32 reference lies outside the tolerance of
// an exact kernel: the reference must be computed in float32.
void checkFloat32Reference(CheckResult& result) {
    requireGpuForEvaluation();
    EvalOptions options;
    options.preset = "bench";
    options.timing = false;
    const EvaluationResult r = sharedEvaluator().evaluate(
        builtinTask("conv2d"), readTextFile(solutionPath("conv2d")), "conv2d.dice", options);
    result.data["evaluation"] = toJson(r);
    if (r.verdict != Verdict::Correct)
        throw Error("the honest conv2d solution at the bench preset was " + describe(r));
    result.message = "conv2d (bench preset): correct against a float32 reference";
}

void checkHack(CheckResult& result, const HackCase& hack) {
    requireGpuForEvaluation();
    EvalOptions options;
    options.preset = hack.preset;
    options.tolerance = hack.tolerance;
    const EvaluationResult r = sharedEvaluator().evaluate(
        builtinTask(hack.task), readTextFile(hack.file), hack.name + ".dice", options);
    result.data["evaluation"] = toJson(r);
    std::string why;
    if (!hackCaught(hack, r, &why))
        throw Error(why);
    checkWorkerAlive(result);
    result.message =
        why.substr(0, 200) + "; the worker (" + toString(r.workerState) + ") then passed relu";
}

// Several honest candidates judged one after the other in one worker, as curation and the reward
// service judge them: CUPTI's record of one must not be counted in the next, and a kernel must not
// be taken for another because CUPTI names it after a kernel of an unloaded module (curation once
// flagged a fifth of its timed, correct solutions as running a kernel of a task judged before).
// Each task is judged for correctness at its small preset, then timed at its bench preset.
void checkBackToBack(CheckResult& result) {
    requireGpuForEvaluation();
    EvalOptions untimed;
    untimed.preset = "small";
    untimed.timing = false;
    EvalOptions timed;
    timed.preset = "bench";
    timed.timingTrials = 20;
    nlohmann::json runs = nlohmann::json::array();
    const std::vector<std::string> tasks = {"relu",       "gelu",       "silu",    "tanh",
                                            "sigmoid",    "leaky_relu", "softmax", "log_softmax",
                                            "layer_norm", "rms_norm",   "relu",    "gelu"};
    for (const std::string& task : tasks) {
        for (const EvalOptions* options : {&untimed, &timed}) {
            const EvaluationResult r = sharedEvaluator().evaluate(
                builtinTask(task), readTextFile(solutionPath(task)), task + ".dice", *options);
            std::vector<std::string> flags;
            for (const auto& f : r.flags)
                flags.push_back(f.code);
            runs.push_back({{"task", task},
                            {"timed", options->timing},
                            {"verdict", toString(r.verdict)},
                            {"flags", flags}});
            if (r.verdict != Verdict::Correct || (options->timing && !r.candidateKernelTime))
                throw Error("back to back, the honest " + task + " was " + describe(r) +
                            (options->timing && !r.candidateKernelTime
                                 ? " (no CUPTI record of its kernels)"
                                 : ""));
        }
    }
    result.data["runs"] = runs;
    result.message = std::to_string(tasks.size()) +
                     " honest candidates judged back to back in one worker, each for "
                     "correctness then timed: all correct, no kernel counted in the wrong "
                     "evaluation or taken for another's";
}

// Correctness judged on a build with NVRTC's --Ofast-compile, as the reward service judges by
// default: the heavily unrolled matmul solution is still correct, and a launch its build's
// registers do not allow is judged again fully optimised (here a 1,024-thread launch of a kernel
// bounded to 256, which fails either way) and says so.
void checkFastCompile(CheckResult& result) {
    requireGpuForEvaluation();
    if (!NvrtcCompiler::hasFastCompile())
        throw Error("this NVRTC (" + NvrtcCompiler::version() + ") has no --Ofast-compile");
    EvalOptions options;
    options.preset = "small";
    options.timing = false;
    options.correctnessTrials = 1;
    options.fastCompile = "mid";
    const EvaluationResult matmul = sharedEvaluator().evaluate(
        builtinTask("matmul"), readTextFile(solutionPath("matmul")), "matmul.dice", options);
    if (matmul.verdict != Verdict::Correct)
        throw Error("built with --Ofast-compile=mid, the matmul solution was " + describe(matmul));
    std::string source = readTextFile(solutionPath("relu"));
    const std::string launch = "dice.launch(\"relu_map\", [blocks], [256]";
    const auto at = source.find(launch);
    if (at == std::string::npos)
        throw Error("the relu solution no longer launches relu_map with 256 threads");
    source.replace(at, launch.size(), "dice.launch(\"relu_map\", [blocks], [1024]");
    const EvaluationResult wide =
        sharedEvaluator().evaluate(builtinTask("relu"), source, "relu_wide.dice", options);
    const bool again = std::any_of(wide.flags.begin(), wide.flags.end(),
                                   [](const auto& f) { return f.code == "fully_optimised_again"; });
    if (wide.verdict != Verdict::RuntimeError || !again)
        throw Error("a launch of 1,024 threads of a kernel bounded to 256 was " + describe(wide) +
                    ", expected runtime_error with the flag fully_optimised_again");
    checkWorkerAlive(result);
    result.data["matmul"] = toJson(matmul);
    result.data["wide_launch"] = toJson(wide);
    result.message = "matmul correct at --Ofast-compile=mid (compiled in " +
                     std::to_string(matmul.compileMs) +
                     " ms); a launch its registers refused was judged again fully optimised";
}

} // namespace

void addEvaluatorChecks(std::vector<SelfTestCheck>& checks) {
    checks.push_back({"eval.relu", "gpu", "the relu solution evaluates as correct",
                      [](CheckResult& r) { checkSolution(r, "relu", 0); }});
    checks.push_back({"eval.softmax", "gpu", "the softmax solution evaluates as correct",
                      [](CheckResult& r) { checkSolution(r, "softmax", 0); }});
    checks.push_back({"eval.matmul", "gpu", "the matmul solution evaluates as correct",
                      [](CheckResult& r) { checkSolution(r, "matmul", 0); }});
    checks.push_back({"eval.float32_reference", "gpu",
                      "the conv2d solution is correct at its bench preset: references are not TF32",
                      checkFloat32Reference});
    checks.push_back({"eval.fast_compile", "gpu",
                      "correctness judged on a build with --Ofast-compile, as rewards are",
                      checkFastCompile});
    checks.push_back({"eval.back_to_back", "gpu",
                      "honest candidates judged one after another in one worker stay correct",
                      checkBackToBack});
    std::vector<HackCase> hacks;
    std::string problem;
    try {
        hacks = loadHackSuite(hackDirectory());
    } catch (const Error& e) {
        problem = e.what();
    }
    if (!problem.empty()) {
        checks.push_back(
            {"hack.suite", "gpu", "the hack suite can be read", [problem](CheckResult&) {
                 requireGpuForEvaluation();
                 throw Error(problem);
             }});
        return;
    }
    for (const auto& hack : hacks)
        checks.push_back({"hack." + hack.name, "gpu",
                          "the evaluator catches " + hack.name + " and the worker survives",
                          [hack](CheckResult& r) { checkHack(r, hack); }});
}

} // namespace dice
