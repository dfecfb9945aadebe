// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/script.h>
#include <torch/torch.h>

#include <torch/csrc/jit/runtime/graph_executor.h>

#include "core/eval/native_gpu_run.h"

#include "core/common/number_format.h"
#include "core/cuda/nsight_compute.h"
#include "core/cuda/nvtx_range.h"
#include "core/cuda/torch_cuda_bridge.h"
#include "core/eval/candidate_fault.h"
#include "core/eval/native_inputs.h"

#include <algorithm>

namespace dice::native {

GpuRun::GpuRun(NativeEvaluator::Impl& impl, const Task& task, const EvalOptions& options,
               Prepared& p, EvaluationResult& r, const NativeEvaluator::ProgressFn& progress)
    : m_impl(impl)
    , m_gpu(impl.ensureGpu())
    , m_task(task)
    , m_options(options)
    , m_p(p)
    , m_r(r)
    , m_progress(progress)
    , m_device(c10::kCUDA, static_cast<c10::DeviceIndex>(impl.deviceIndex)) {}

void GpuRun::run() {
    torchcuda::StreamScope scope(m_gpu.stream->handle(), m_impl.deviceIndex);
    torch::NoGradGuard noGrad;
    torch::jit::GraphOptimizerEnabledGuard plain(false);
    m_r.device = m_gpu.info.name;
    const std::uint64_t base = m_options.seed ? m_options.seed : m_task.seed;

    if (!correctness(m_options.preset, m_options.correctnessTrials, base, "correctness"))
        return finish();
    if (m_options.checkSmallPreset && m_options.preset != "small" && m_task.hasPreset("small")) {
        const std::size_t before = m_r.trials.size();
        if (!correctness("small", m_options.smallPresetTrials, mixSeed(base, 1000),
                         "small preset")) {
            if (m_r.verdict == Verdict::Incorrect)
                addFlag(m_r, "shape_specialised",
                        "correct on the " + m_options.preset +
                            " preset but wrong on the small one: " + lastFailure(before));
            return finish();
        }
    }
    if (m_options.timing)
        timing(base);
    finish();
}

std::string GpuRun::lastFailure(std::size_t from) const {
    for (std::size_t i = from; i < m_r.trials.size(); ++i)
        if (!m_r.trials[i].passed)
            return m_r.trials[i].detail;
    return "a trial failed";
}

void GpuRun::report(const std::string& stage, double fraction, const std::string& message) {
    if (m_progress)
        m_progress(stage, fraction, message);
}

std::vector<at::Tensor> GpuRun::makeAll(const std::vector<TensorSpec>& specs,
                                        const std::string& preset, std::uint64_t seed) {
    return makeTensors(m_task, specs, preset, seed, m_device);
}

std::vector<c10::IValue> GpuRun::stackOf(const std::vector<at::Tensor>& inputs,
                                         const std::vector<at::Tensor>& params) {
    std::vector<c10::IValue> stack;
    for (const auto& t : inputs)
        stack.emplace_back(t);
    for (const auto& t : params)
        stack.emplace_back(t);
    return stack;
}

void GpuRun::syncOrFault(const std::string& during) {
    const cu::Result rc = cu::Driver::instance().api().cuStreamSynchronize(m_gpu.stream->handle());
    if (rc != cu::kSuccess) {
        m_impl.lost = true;
        throw CandidateFault{"the kernel faulted during " + during + ": " +
                             cu::Driver::instance().describe(rc)};
    }
}

std::vector<at::Tensor> GpuRun::callReference(const std::vector<at::Tensor>& inputs,
                                              const std::vector<at::Tensor>& params) {
    auto stack = stackOf(inputs, params);
    const NvtxRange range(kReferenceRange);
    return outputsOf(m_p.reference->function()(std::move(stack)));
}

std::vector<at::Tensor> GpuRun::callCandidate(torch::jit::Function& fn, KernelLauncher& launcher,
                                              AllocationGuard* guard,
                                              const std::vector<at::Tensor>& inputs,
                                              const std::vector<at::Tensor>& params) {
    auto stack = stackOf(inputs, params);
    c10::IValue returned;
    try {
        const NvtxRange range(kCandidateRange);
        LauncherScope scope(&launcher, guard);
        returned = fn(std::move(stack));
    } catch (const CandidateFault&) {
        throw;
    } catch (const std::exception& e) {
        // A failed launch may hide a fault from an earlier kernel.
        const cu::Result rc = cu::Driver::instance().api().cuCtxSynchronize();
        if (rc != cu::kSuccess) {
            m_impl.lost = true;
            throw CandidateFault{"the kernel faulted: " + cu::Driver::instance().describe(rc)};
        }
        throw CandidateFault{"the host code failed: " + hostErrorMessage(e.what())};
    }
    return outputsOf(returned);
}

void GpuRun::scrubShared(const PoisonPattern& pattern) {
    const int words = m_gpu.scrubBytes / 4;
    unsigned p = pattern.shared;
    int w = words;
    std::vector<void*> params = {&p, &w};
    const unsigned grid[3] = {static_cast<unsigned>(std::max(1, m_gpu.info.multiprocessors)) * 2, 1,
                              1};
    const unsigned block[3] = {1024, 1, 1};
    launchKernel(m_gpu.scrub, grid, block, static_cast<unsigned>(m_gpu.scrubBytes),
                 m_gpu.stream->handle(), params);
}

bool GpuRun::correctness(const std::string& preset, int trials, std::uint64_t base,
                         const std::string& stage) {
    // A fresh module per phase: state kept in __device__ globals does not carry over.
    GpuLauncher launcher(m_p.device, m_p.resolved, m_gpu.info, m_gpu.stream->handle());
    const auto params = makeAll(m_task.parameters, preset, base);
    for (int t = 0; t < trials; ++t) {
        report(stage, static_cast<double>(t) / trials,
               stage + " trial " + std::to_string(t + 1) + " of " + std::to_string(trials));
        TrialResult trial;
        trial.trial = static_cast<int>(m_r.trials.size());
        trial.seed = mixSeed(base, static_cast<std::uint64_t>(t) + 1);
        const auto inputs = makeAll(m_task.inputs, preset, trial.seed);
        std::vector<at::Tensor> inputCopies;
        for (const auto& x : inputs)
            inputCopies.push_back(x.clone());
        const auto reference = callReference(inputs, params);
        std::vector<at::Tensor> referenceCopies;
        for (const auto& y : reference)
            referenceCopies.push_back(y.clone());
        syncOrFault("the reference");

        std::vector<at::Tensor> passes[2];
        bool bandsIntact = true;
        const PoisonPattern* patterns[2] = {&kPoisonA, &kPoisonB};
        const PoisonPattern* bands[2] = {&kBandA, &kBandB};
        for (int pass = 0; pass < 2; ++pass) {
            // Each pass says it has begun: the owner's limit on silence then covers one call of
            // the candidate, not the whole trial.
            report(stage, (t + (pass + 1) / 3.0) / trials,
                   stage + " trial " + std::to_string(t + 1) + " of " + std::to_string(trials) +
                       ": the candidate's call " + std::to_string(pass + 1) + " of 2");
            PoisonGuard guard(*patterns[pass], *bands[pass]);
            scrubShared(*patterns[pass]);
            launcher.launches = 0;
            try {
                passes[pass] =
                    callCandidate(m_p.host->guardedForward(), launcher, &guard, inputs, params);
                syncOrFault(stage + " trial " + std::to_string(t + 1));
            } catch (const CandidateFault& fault) {
                m_impl.registerLimitedLaunch = launcher.registerLimited;
                trial.detail = fault.message;
                m_r.trials.push_back(trial);
                m_r.verdict = Verdict::RuntimeError;
                m_r.message = fault.message;
                return false;
            }
            m_r.launchesPerCall = launcher.launches;
            bandsIntact = bandsIntact && guard.bandsIntact();
        }
        if (launcher.launches == 0 && !m_p.fallback)
            addFlag(m_r, "no_launch", "a call launched no kernel");

        const Comparison c = compareOutputs(passes[0], reference, m_task, m_options);
        trial.passed = c.passed;
        trial.maxAbsError = c.maxAbs;
        trial.maxRelError = c.maxRel;
        trial.detail = c.detail;
        std::vector<at::Tensor> arguments = inputs;
        arguments.insert(arguments.end(), params.begin(), params.end());
        const std::string lazy = unmaterialisedOutput(passes[0], arguments);
        if (!lazy.empty()) {
            addFlag(m_r, "lazy_output", lazy);
            trial.passed = false;
            trial.detail = lazy;
        }
        bool inputsIntact = true;
        for (std::size_t i = 0; i < inputs.size(); ++i)
            inputsIntact = inputsIntact && torch::equal(inputs[i], inputCopies[i]);
        bool referenceIntact = true;
        for (std::size_t i = 0; i < reference.size(); ++i)
            referenceIntact = referenceIntact && torch::equal(reference[i], referenceCopies[i]);
        if (!inputsIntact) {
            addFlag(m_r, "inputs_mutated", "the candidate changed its inputs");
            trial.passed = false;
            trial.detail = "the candidate changed its inputs";
        }
        if (!bandsIntact || !referenceIntact) {
            addFlag(m_r, "out_of_bounds_write",
                    !bandsIntact ? "a kernel wrote past the ends of a tensor it allocated"
                                 : "the reference's output changed while the candidate ran");
            trial.passed = false;
            trial.detail = "a kernel wrote outside its tensors";
        }
        if (trial.passed) {
            const Agreement agree = agreement(passes[0], passes[1], m_task, m_options);
            if (agree == Agreement::Different) {
                addFlag(m_r, "uninitialised_output",
                        "the output depends on what memory held before the call (two runs "
                        "over differently poisoned memory disagree)");
                trial.passed = false;
                trial.detail = "the output changes with the previous content of memory";
            } else if (agree == Agreement::WithinTolerance) {
                addFlag(m_r, "nondeterministic",
                        "two runs on the same inputs differ within the tolerance");
            }
        }
        m_r.trials.push_back(trial);
        if (!trial.passed) {
            m_r.verdict = Verdict::Incorrect;
            m_r.message = stage + " trial " + std::to_string(t + 1) + ": " + trial.detail;
            return false;
        }
    }
    return true;
}

void GpuRun::finish() {
    if (m_r.verdict == Verdict::NotRun) {
        m_r.verdict = m_p.fallback ? Verdict::Fallback : Verdict::Correct;
        if (m_p.fallback)
            m_r.message = "computes with PyTorch operators instead of its kernels";
        else if (m_r.candidateTime && m_r.referenceTime)
            m_r.message = "correct; " + formatFixed(m_r.candidateTime->medianMs, 3) +
                          " ms against the reference's " +
                          formatFixed(m_r.referenceTime->medianMs, 3) + " ms (" +
                          formatFixed(m_r.speedup, 2) + "x)";
        else
            m_r.message = "correct";
    }
}

} // namespace dice::native
