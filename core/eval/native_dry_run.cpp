// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/script.h>
#include <torch/torch.h>

#include <torch/csrc/jit/runtime/graph_executor.h>

#include "core/eval/native_dry_run.h"

#include "core/common/number_format.h"
#include "core/eval/candidate_fault.h"
#include "core/eval/native_inputs.h"
#include "core/eval/native_launchers.h"
#include "core/eval/native_output_checks.h"

#include <limits>

namespace dice::native {

namespace {

constexpr std::int64_t kScratchBytes = std::int64_t(256) << 20;

std::int64_t bytesOf(const at::Tensor& t) {
    return static_cast<std::int64_t>(t.storage().nbytes());
}

std::string sizeText(std::int64_t bytes) {
    if (bytes >= (std::int64_t(1) << 30))
        return formatFixed(static_cast<double>(bytes) / static_cast<double>(1 << 30), 2) + " GiB";
    return formatFixed(static_cast<double>(bytes) / static_cast<double>(1 << 20), 1) + " MiB";
}

// Counts what the host code allocates; the allocations stay where they are (on meta tensors
// they cost nothing).
class AllocationCounter : public AllocationGuard {
public:
    at::Tensor guard(const at::Tensor& allocated, bool) override {
        const std::int64_t bytes = bytesOf(allocated);
        total = bytes > std::numeric_limits<std::int64_t>::max() - total
                    ? std::numeric_limits<std::int64_t>::max()
                    : total + bytes;
        return allocated;
    }
    std::int64_t total = 0;
};

} // namespace

std::int64_t hostAllocationBudget(std::int64_t ioBytes) {
    const std::int64_t most = std::numeric_limits<std::int64_t>::max() / 8;
    return kScratchBytes + 4 * std::min(ioBytes, most);
}

DryRunOutcome dryRunOnMeta(const Task& task, const std::string& preset, const Prepared& p) {
    DryRunOutcome out;
    const std::string where = "the " + preset + " preset's shapes (a dry run on meta tensors)";
    torch::NoGradGuard noGrad;
    torch::jit::GraphOptimizerEnabledGuard plain(false);
    std::vector<at::Tensor> arguments;
    std::int64_t ioBytes = 0;
    for (const auto* list : {&task.inputs, &task.parameters})
        for (const auto& spec : *list) {
            arguments.push_back(torch::empty(
                task.shape(spec, preset),
                torch::TensorOptions().dtype(scalarType(spec.dtype)).device(torch::kMeta)));
            ioBytes += bytesOf(arguments.back());
        }
    auto stackOf = [&] {
        std::vector<c10::IValue> stack;
        for (const auto& t : arguments)
            stack.emplace_back(t);
        return stack;
    };

    std::vector<at::Tensor> expected;
    try {
        expected = outputsOf(p.reference->function()(stackOf()));
        out.referenceRan = true;
    } catch (const std::exception&) {
    } catch (const CandidateFault&) {
    }
    if (!out.referenceRan && preset == "small") {
        // An operator of the reference without a meta kernel (convolutions in LibTorch's C++
        // API): the small preset is bounded (task.h), so its outputs' layout comes from a run on
        // CPU tensors instead.
        try {
            std::vector<c10::IValue> stack;
            for (const auto& t : arguments)
                stack.emplace_back(torch::zeros(t.sizes(), t.options().device(torch::kCPU)));
            for (const auto& y : outputsOf(p.reference->function()(stack)))
                expected.push_back(torch::empty(y.sizes(), y.options().device(torch::kMeta)));
            out.referenceRan = true;
        } catch (const std::exception&) {
        } catch (const CandidateFault&) {
        }
    }
    for (const auto& y : expected)
        ioBytes += bytesOf(y);

    RecordingLauncher recorder(p.resolved);
    AllocationCounter counter;
    std::vector<at::Tensor> produced;
    try {
        c10::IValue returned;
        {
            LauncherScope scope(&recorder, &counter);
            returned = p.host->guardedForward()(stackOf());
        }
        produced = outputsOf(returned);
    } catch (const CandidateFault& fault) {
        out.verdict = Verdict::RuntimeError;
        out.message = "on " + where + ": " + fault.message;
        return out;
    } catch (const std::exception& e) {
        out.verdict = Verdict::RuntimeError;
        out.message = "the host code failed on " + where + ": " + hostErrorMessage(e.what());
        return out;
    }
    out.launches = static_cast<int>(recorder.calls.size());
    out.allocatedBytes = counter.total;
    const std::int64_t budget = hostAllocationBudget(ioBytes);
    if (counter.total > budget) {
        out.verdict = Verdict::RuntimeError;
        out.message = "the host code allocates " + sizeText(counter.total) + " per call on the " +
                      preset + " preset; at most " + sizeText(budget) +
                      " is allowed (256 MiB plus four times its inputs, parameters and outputs)";
        return out;
    }
    if (out.referenceRan) {
        const Comparison layout = compareLayout(produced, expected);
        if (!layout.passed) {
            out.verdict = Verdict::Incorrect;
            out.message = where + ": " + layout.detail;
            return out;
        }
    }
    const std::string lazy = unmaterialisedOutput(produced, arguments);
    if (!lazy.empty()) {
        out.verdict = Verdict::Incorrect;
        out.flag = "lazy_output";
        out.message = where + ": " + lazy;
        return out;
    }
    out.passed = true;
    return out;
}

} // namespace dice::native
