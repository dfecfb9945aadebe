// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/compile_types.h"
#include "core/cuda/cuda_context.h"
#include "core/cuda/device_info.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/eval/candidate.h"
#include "core/eval/host_program.h"
#include "core/eval/native_evaluator.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// The native evaluator's state and the steps before the GPU (parse, compile, dry run), shared by
// the files that make up the evaluator: native_evaluator.cpp (these steps and the public calls),
// native_gpu_run.cpp (the protocol on the GPU) and native_timing.cpp.
namespace dice::native {

using Clock = std::chrono::steady_clock;

inline double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A flag is reported once, with the message of its first finding.
inline void addFlag(EvaluationResult& r, const std::string& code, const std::string& message) {
    if (!r.hasFlag(code))
        r.flags.push_back({code, message});
}

// A candidate compiled for both sides, ready to run.
struct Prepared {
    NativeCandidate candidate;
    std::vector<KernelSignature> kernels;
    std::optional<HostProgram> host;
    std::optional<ReferenceProgram> reference;
    std::map<std::string, ResolvedKernel> resolved;
    CompileResult device;
    bool fallback = false; // kernels that are not the candidate's ran during its calls
};

} // namespace dice::native

namespace dice {

struct NativeEvaluator::Impl {
    int deviceIndex = 0;
    double gpuMemoryShare = NativeEvaluator::kDefaultGpuMemoryShare;
    NvrtcCompiler compiler{64};
    bool lost = false;
    // The last runOnGpu ended on a launch the kernel's registers did not allow (fewer threads
    // per block than asked, or out of resources).
    bool registerLimitedLaunch = false;

    // The GPU side, made on first use.
    struct Gpu {
        std::unique_ptr<CudaContext> context;
        std::unique_ptr<CudaStream> stream;
        DeviceInfo info;
        std::unique_ptr<DeviceBuffer> flush;
        std::unique_ptr<CudaModule> utility;
        cu::Function scrub = nullptr;
        cu::Function fingerprint = nullptr;
        cu::Function compare = nullptr;
        // Whether the comparison kernel was checked against LibTorch's operators on this GPU.
        bool compareChecked = false;
        cu::Function spin = nullptr;
        cu::Function mark = nullptr;
        int scrubBytes = 0;
    };
    std::unique_ptr<Gpu> gpu;
    std::string gpuProblem;

    std::string unavailableReason() const;
    Gpu& ensureGpu();
    EvaluationResult start(const Task& task, const EvalOptions& options) const;
    // Everything up to a loadable module. Returns false with the verdict set when it stops.
    bool prepare(const Task& task, const std::string& source, const std::string& origin,
                 const EvalOptions& options, EvaluationResult& r, native::Prepared& p);
    // Runs the host code on meta tensors of every preset the evaluation uses (native_dry_run.h),
    // so that launches are bound and outputs checked without a GPU. Returns false with the
    // verdict set when it stops.
    bool dryRun(const Task& task, const EvalOptions& options, native::Prepared& p,
                EvaluationResult& r);

    static std::string firstLine(const std::string& text);

    // The GPU part of evaluate(), for a candidate that prepare() and dryRun() passed.
    void runOnGpu(const Task& task, const EvalOptions& options, native::Prepared& p,
                  EvaluationResult& r, const ProgressFn& progress);
    // After runOnGpu: a candidate built with --Ofast-compile whose launch its registers did not
    // allow is judged again with every optimisation, as it would be without the option, since
    // a fully optimised build may need fewer registers.
    void judgeAgainFullyOptimised(const Task& task, const std::string& source,
                                  const std::string& origin, const EvalOptions& options,
                                  EvaluationResult& r, const ProgressFn& progress);
};

} // namespace dice
