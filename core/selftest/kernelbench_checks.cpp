// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/selftest/kernelbench_checks.h"

#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/cuda/cuda_driver.h"
#include "core/kernelbench/python_evaluator.h"
#include "core/kernelbench/python_runtime.h"
#include "core/prompts/answer.h"
#include "core/prompts/kernelbench_prompts.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace dice {

namespace kernelbench {
namespace {

std::string programName(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}

void checkPrompts(CheckResult& result) {
    const PromptExamples examples = loadPromptExamples();
    const std::string prompt = endToEndPrompt(examples.model, examples);
    const std::string start = "<|im_start|>user\nYou write custom CUDA kernels";
    const std::string end = "NO testing code! \n\n<|im_end|>\n<|im_start|>assistant\n";
    if (prompt.rfind(start, 0) != 0 || prompt.size() < end.size() ||
        prompt.compare(prompt.size() - end.size(), end.size(), end) != 0)
        throw Error("the end-to-end prompt does not have DICE's frame");
    const auto splice =
        spliceInfill(examples.modelNew, examples.infillPrefix, examples.infillSuffix);
    if (splice.program != examples.modelNew || splice.suffixRewritten)
        throw Error("the infilling example does not split into its prefix, middle and suffix");
    result.data["prompt_chars"] = prompt.size();
    result.data["infill_prompt_chars"] =
        infillPrompt({examples.model, examples.infillPrefix, examples.infillSuffix}, examples)
            .size();
    result.message = "DICE's prompts render from " + promptDirectory() + " (" +
                     std::to_string(prompt.size()) + " characters end to end)";
}

void checkStaticChecks(CheckResult& result) {
    if (pythonCandidates().empty())
        throw SkipCheck{"no python3: the KernelBench dialect's checks need it"};
    // Two hacks a harness cannot catch at run time: a fallback hidden in try/except and work
    // launched on a stream of its own.
    const std::string hack = R"(import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline
source = """
__global__ void k(float* y) {}
torch::Tensor f(torch::Tensor x) { return x; }
"""
ext = load_inline(name="hack", cpp_sources="torch::Tensor f(torch::Tensor x);",
                  cuda_sources=source, functions=["f"])
class ModelNew(nn.Module):
    def forward(self, x):
        try:
            with torch.cuda.stream(torch.cuda.Stream()):
                return ext.f(x)
        except RuntimeError:
            return torch.relu(x)
)";
    PythonEvaluator evaluator;
    const auto findings = evaluator.check(hack);
    const auto has = [&](const std::string& code) {
        return std::any_of(findings.begin(), findings.end(),
                           [&](const StaticFinding& f) { return f.code == code; });
    };
    if (!has("try_except") || !has("cuda_stream"))
        throw Error("the static checks missed a try/except fallback or a side stream");
    // Result files name programs, not folders of the machine they ran on.
    const std::string python = programName(evaluator.python().executable);
    result.data["python"] = python;
    result.data["findings"] = findings.size();
    result.message =
        "the static checks catch a try/except fallback and a side stream (" + python + ")";
}

void checkPythonEvaluator(CheckResult& result) {
    const auto& driver = cu::Driver::instance();
    if (!driver.available())
        throw SkipCheck{driver.unavailableReason()};
    CheckResult part;
    checkPrompts(part);
    result.data["prompt_chars"] = part.data["prompt_chars"];
    checkStaticChecks(part);
    std::vector<PythonInfo> tried;
    const auto found = findPython(PythonNeed::CudaTorch, &tried);
    if (!found)
        throw Error(explainMissingPython(tried, PythonNeed::CudaTorch));
    const std::string python = programName(found->executable);
    result.data["python"] = python;
    result.data["torch"] = found->torchVersion;
    result.data["torch_cuda"] = found->torchCuda;
    result.data["device"] = found->device;
    result.data["nvcc"] = found->nvcc;
    result.message = "prompts render, the static checks catch known hacks, and " + python +
                     " has PyTorch " + found->torchVersion + " (CUDA " + found->torchCuda +
                     ") on " + found->device + " with nvcc and ninja";
}

// The hostile answers of resources/hacks/kernelbench on the GPU, as tst_kernelbench_sandbox runs
// them on the CPU: each must get its verdict and flag, write nothing outside its build folder and
// leak neither a file of the user's nor a variable of the environment.
void checkHostileAnswers(CheckResult& result) {
    const auto& driver = cu::Driver::instance();
    if (!driver.available())
        throw SkipCheck{driver.unavailableReason()};
    namespace fs = std::filesystem;
    const fs::path folder = fs::path(dataDirectory()) / "hacks" / "kernelbench";
    const std::string tablePath = (folder / "hostile.json").string();
    nlohmann::json table;
    try {
        table = nlohmann::json::parse(readTextFile(tablePath));
    } catch (const nlohmann::json::exception& e) {
        throw FileError(tablePath, std::string("not valid JSON: ") + e.what());
    }
    if (table.value("format", std::string()) != "dice-kernelbench-hostile/1" ||
        !table.contains("answers") || !table["answers"].is_array())
        throw FileError(tablePath, "format must be \"dice-kernelbench-hostile/1\" with answers");
    const std::string secret = "the-user's-secret-selftest-91c4";
    const std::string environmentSecret = "the-environment's-secret-selftest-3e7a";
    // The worker inherits it; the answers' environment is an allow-list without it. Given to the
    // worker's start, not set here: this process has LibTorch's and CUDA's threads, and setenv
    // beside another thread's getenv is not safe.
    PythonEvaluator::Config config;
    config.environment = {{"DICE_TEST_SECRET", environmentSecret}};
    PythonEvaluator evaluator(config);
    if (!evaluator.canEvaluate())
        throw Error(evaluator.unavailableReason());

    const TemporaryFolder work("dice-hostile");
    const fs::path outside = fs::path(work.path()) / "outside";
    fs::create_directories(outside);
    std::ofstream(outside / "secret") << secret;

    KernelBenchOptions options;
    options.warmups = 2;
    options.timingTrials = 20;
    options.buildDirectory = (fs::path(work.path()) / "build").string();
    const std::string commonProblem = table.value("problem", std::string());
    std::vector<std::string> failures;
    nlohmann::json answers = nlohmann::json::array();
    for (const auto& answer : table["answers"]) {
        const std::string name = answer.value("name", std::string());
        const std::string expected = answer.value("verdict", std::string());
        const std::string flag = answer.value("flag", std::string());
        const std::string problem =
            readTextFile((folder / answer.value("problem", commonProblem)).string());
        std::string source = readTextFile((folder / (name + ".py")).string());
        for (std::size_t at = source.find("OUTSIDE"); at != std::string::npos;
             at = source.find("OUTSIDE", at))
            source.replace(at, 7, outside.string());
        KernelBenchOptions answerOptions = options;
        if (answer.contains("tolerance")) {
            answerOptions.atol = answer.value("tolerance", options.atol);
            answerOptions.rtol = answerOptions.atol;
        }
        const EvaluationResult r = evaluator.evaluate({name, 1, problem, source}, answerOptions);
        std::vector<std::string> flags;
        for (const auto& f : r.flags)
            flags.push_back(f.code);
        const std::string verdict = toString(r.verdict);
        if (verdict != expected)
            failures.push_back(name + ": " + verdict + ", expected " + expected);
        if (!flag.empty() && std::find(flags.begin(), flags.end(), flag) == flags.end())
            failures.push_back(name + ": no " + flag + " flag");
        // A timing control's calls must cost about what the pings did around their model: only
        // a few are raised to their round trip, and the pings ran the problem's reference.
        if (answer.value("timing_control", false)) {
            if (!r.roundTripCheck)
                failures.push_back(name + ": no record of its timed calls");
            else if (r.roundTripCheck->pingWorkload != "reference")
                failures.push_back(name + ": the pings ran " + r.roundTripCheck->pingWorkload);
            else if (r.device != "cpu" && r.roundTripCheck->exchange.rfind("device", 0) != 0)
                // On a GPU the tensors cross through GPU memory both processes map; through the
                // host file a bench-sized output costs seconds per call (docs/sandbox.md).
                failures.push_back(name + ": the tensors crossed through " +
                                   r.roundTripCheck->exchange);
            else if (2 * static_cast<std::size_t>(r.roundTripCheck->raisedCalls) >
                     r.roundTripCheck->reportedMs.size())
                failures.push_back(name + ": " + std::to_string(r.roundTripCheck->raisedCalls) +
                                   " of " + std::to_string(r.roundTripCheck->reportedMs.size()) +
                                   " honest calls were raised to their round trip");
        }
        if (r.message.find(secret) != std::string::npos ||
            r.message.find(environmentSecret) != std::string::npos)
            failures.push_back(name + ": a secret leaked into the verdict's message");
        nlohmann::json record = {{"answer", name},
                                 {"verdict", verdict},
                                 {"expected", expected},
                                 {"flags", flags},
                                 {"exchange", r.roundTripCheck ? r.roundTripCheck->exchange : ""},
                                 {"message", r.message.substr(0, 200)}};
        // The round trips beside the pings, so that a raised or underreported call can be traced
        // to what the harness cost around it.
        if (r.roundTripCheck) {
            const RoundTripCheck& c = *r.roundTripCheck;
            std::vector<double> overheads;
            for (std::size_t i = 0; i < c.reportedMs.size() && i < c.roundTripMs.size(); ++i)
                overheads.push_back(c.roundTripMs[i] - c.reportedMs[i]);
            record["timing_check"] = {{"ping_median_ms", c.pingMedianMs},
                                      {"ping_p90_ms", c.pingP90Ms},
                                      {"allowance_ms", c.allowanceMs},
                                      {"raised_calls", c.raisedCalls},
                                      {"underreported_calls", c.underreportedCalls},
                                      {"ping_workload", c.pingWorkload},
                                      {"call_overheads_ms", overheads},
                                      {"reported_ms", c.reportedMs}};
        }
        answers.push_back(record);
    }
    for (const auto& entry : fs::directory_iterator(outside))
        if (entry.path().filename() != "secret")
            failures.push_back("a file was written outside: " + entry.path().filename().string());
    result.data["answers"] = answers;
    if (!failures.empty()) {
        std::string text;
        for (const auto& f : failures)
            text += (text.empty() ? "" : "; ") + f;
        throw Error(text);
    }
    result.message = std::to_string(answers.size()) +
                     " hostile KernelBench answers got their verdicts; nothing was written "
                     "outside and no secret leaked";
}

} // namespace

} // namespace kernelbench

void addKernelBenchChecks(std::vector<SelfTestCheck>& checks) {
    // One GPU-group check: the prompts and the static checks have their ctest suites; on the
    // GPU machine this confirms the whole KernelBench dialect is usable there.
    checks.push_back({"gpu.kernelbench", "gpu",
                      "DICE's prompts, the static hack checks and a python3 with CUDA PyTorch, "
                      "nvcc and ninja for KernelBench candidates",
                      kernelbench::checkPythonEvaluator});
    checks.push_back({"gpu.kernelbench_hostile", "gpu",
                      "hostile KernelBench answers (escapes, forged replies and timings, caches, "
                      "lazy and NaN outputs) end in their expected verdicts on the GPU",
                      kernelbench::checkHostileAnswers});
}

} // namespace dice
