// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to the native evaluator: included only by its LibTorch sources.
#include <torch/script.h>
#include <torch/torch.h>

#include "core/cuda/cupti_tracer.h"
#include "core/eval/native_evaluator_impl.h"
#include "core/eval/native_launchers.h"
#include "core/eval/native_output_checks.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace dice::native {

// One evaluation on the GPU, in the protocol's order: correctness trials under the requested
// preset, then under the small one, then timing of the candidate and the reference, then the
// verdict. Its steps live in native_gpu_run.cpp (correctness) and native_timing.cpp (timing).
class GpuRun {
public:
    GpuRun(NativeEvaluator::Impl& impl, const Task& task, const EvalOptions& options, Prepared& p,
           EvaluationResult& r, const NativeEvaluator::ProgressFn& progress);

    // Throws CandidateFault when the candidate fails in a way that ends the evaluation.
    void run();

private:
    std::string lastFailure(std::size_t from) const;
    void report(const std::string& stage, double fraction, const std::string& message);
    std::vector<at::Tensor> makeAll(const std::vector<TensorSpec>& specs, const std::string& preset,
                                    std::uint64_t seed);
    std::vector<c10::IValue> stackOf(const std::vector<at::Tensor>& inputs,
                                     const std::vector<at::Tensor>& params);
    // Waits for the stream; a fault there is sticky, so the context is lost.
    void syncOrFault(const std::string& during);
    std::vector<at::Tensor> callReference(const std::vector<at::Tensor>& inputs,
                                          const std::vector<at::Tensor>& params);
    std::vector<at::Tensor> callCandidate(torch::jit::Function& fn, KernelLauncher& launcher,
                                          AllocationGuard* guard,
                                          const std::vector<at::Tensor>& inputs,
                                          const std::vector<at::Tensor>& params);
    void scrubShared(const PoisonPattern& pattern);
    // Launches one of the evaluator's own kernels that loops over `elements` (grid-stride) on
    // the evaluator's stream.
    void launchGridStride(cu::Function kernel, unsigned long long elements,
                          std::vector<void*>& args);
    // A key drawn for each trial, unknown to the candidate: a kernel that changes a tensor cannot
    // arrange for its fingerprint to stay the same.
    struct FingerprintKey {
        std::uint64_t k0 = 0;
        std::uint64_t k1 = 0;
    };
    // One keyed fingerprint per tensor: its bytes (on the GPU, in one pass) and its layout.
    std::vector<std::uint64_t> fingerprints(const std::vector<at::Tensor>& tensors,
                                            const FingerprintKey& key);
    // The same for a candidate's outputs; nullopt where they have no plain bytes to read.
    std::optional<std::vector<std::uint64_t>>
    outputFingerprints(const std::vector<at::Tensor>& outputs, const FingerprintKey& key);
    // A float32 piece's comparison figures by the evaluator's own kernel (one pass, no
    // temporaries); nullopt for any other piece, which LibTorch's operators then compare.
    std::optional<PieceFigures> figuresOnDevice(const at::Tensor& out, const at::Tensor& ref,
                                                double atol, double rtol);
    PieceComparer comparer();
    // Once per GPU: the kernel's figures must be LibTorch's on outputs made to hit every case
    // (NaN, infinities, zeros, errors at the edge of the tolerance); throws if they are not, so
    // that no verdict rests on a kernel that disagrees.
    void checkComparer();
    // Runs trials of one preset. Returns false when the evaluation ends here (verdict set).
    bool correctness(const std::string& preset, int trials, std::uint64_t base,
                     const std::string& stage);

    struct Timed {
        std::vector<double> eventMs;
        // CUPTI's records of each timed call (warm-ups left out), whatever stream they ran on.
        std::vector<std::vector<KernelRecord>> calls;
        bool cupti = false;
    };
    template <typename Call, typename After>
    Timed timeCalls(const std::string& stage, std::uint64_t base, const Call& call,
                    const After& after);
    std::optional<TimingStats> cuptiStats(const Timed& timed) const;
    void timing(std::uint64_t base);
    void physicalBound(const std::vector<at::Tensor>& params);
    void finish();
    // Adds the time since the last lap to the result's stage `stage` (stages_ms): called where
    // the host has just waited for the GPU, so that each stage holds its own GPU work.
    void lap(const char* stage);

    NativeEvaluator::Impl& m_impl;
    NativeEvaluator::Impl::Gpu& m_gpu;
    const Task& m_task;
    const EvalOptions& m_options;
    Prepared& m_p;
    EvaluationResult& m_r;
    const NativeEvaluator::ProgressFn& m_progress;
    c10::Device m_device;
    std::string m_timingPreset;
    std::mt19937_64 m_keys;
    std::chrono::steady_clock::time_point m_lap = std::chrono::steady_clock::now();
};

} // namespace dice::native
