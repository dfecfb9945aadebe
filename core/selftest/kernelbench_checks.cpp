// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/selftest/kernelbench_checks.h"

#include "core/common/error.h"
#include "core/cuda/cuda_driver.h"
#include "core/kernelbench/python_evaluator.h"
#include "core/kernelbench/python_runtime.h"
#include "core/prompts/answer.h"
#include "core/prompts/kernelbench_prompts.h"

#include <algorithm>
#include <filesystem>

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

} // namespace

} // namespace kernelbench

void addKernelBenchChecks(std::vector<SelfTestCheck>& checks) {
    // One GPU-group check: the prompts and the static checks have their ctest suites; on the
    // GPU machine this confirms the whole KernelBench dialect is usable there.
    checks.push_back({"gpu.kernelbench", "gpu",
                      "DICE's prompts, the static hack checks and a python3 with CUDA PyTorch, "
                      "nvcc and ninja for KernelBench candidates",
                      kernelbench::checkPythonEvaluator});
}

} // namespace dice
