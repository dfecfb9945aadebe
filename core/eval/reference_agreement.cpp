// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/eval/reference_agreement.h"

#include "core/eval/candidate_fault.h"
#include "core/eval/host_program.h"
#include "core/eval/native_inputs.h"
#include "core/eval/native_output_checks.h"

namespace dice {

namespace {

std::vector<at::Tensor> outputsOn(const ReferenceProgram& program,
                                  const std::vector<at::Tensor>& arguments) {
    // Copies: a reference that writes into its arguments must not change the other's.
    std::vector<c10::IValue> stack;
    for (const auto& t : arguments)
        stack.emplace_back(t.clone());
    return native::outputsOf(program.function()(std::move(stack)));
}

} // namespace

bool referencesAgree(const Task& task, const Task& other) {
    if (!task.hasPreset("small"))
        return false;
    torch::NoGradGuard noGrad;
    try {
        const c10::Device cpu(torch::kCPU);
        std::vector<at::Tensor> arguments =
            native::makeTensors(task, task.inputs, "small", task.seed, cpu);
        for (auto& p : native::makeTensors(task, task.parameters, "small",
                                           native::mixSeed(task.seed, 1), cpu))
            arguments.push_back(std::move(p));
        const auto expected =
            outputsOn(ReferenceProgram::compile(task.reference, task.path), arguments);
        const auto got =
            outputsOn(ReferenceProgram::compile(other.reference, other.path), arguments);
        return native::compareOutputs(got, expected, task, EvalOptions{}).passed;
    } catch (const std::exception&) {
        return false;
    } catch (const native::CandidateFault&) {
        return false;
    }
}

} // namespace dice
