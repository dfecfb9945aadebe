// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/compile_types.h"
#include "core/cuda/cuda_context.h"
#include "core/cuda/cupti_tracer.h"
#include "core/cuda/device_info.h"
#include "core/eval/candidate.h"
#include "core/eval/host_program.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

// Where the native evaluator's dice.launch calls go: a recorder for the dry run on meta tensors,
// and the candidate's loaded kernels on the GPU.
namespace dice::native {

// Records launches on meta tensors (the dry run) without running them.
class RecordingLauncher : public KernelLauncher {
public:
    explicit RecordingLauncher(const std::map<std::string, ResolvedKernel>& kernels)
        : m_kernels(kernels) {}
    const std::vector<KernelParam>& parameters(const std::string& kernel) override;
    TensorHome accepts() const override { return TensorHome::GpuOrMeta; }
    void launch(const LaunchCall& call) override { calls.push_back(call); }
    std::vector<LaunchCall> calls;

private:
    const std::map<std::string, ResolvedKernel>& m_kernels;
};

// Whether a GpuLauncher of this process loaded a kernel of this symbol before. CUPTI can report a
// kernel under the name of a kernel of a module unloaded earlier (it names kernels by function
// handle, and a module loaded later can get the same handles): curating a corpus flagged 57 of
// 285 timed, correct solutions as running a kernel of a task judged before them in that worker.
bool loadedByThisProcess(const std::string& symbol);

// The candidate's kernels, loaded from one module instance (so a fresh launcher starts with fresh
// __device__ globals). Checks every launch against the kernel's and the device's limits before
// it reaches the driver.
class GpuLauncher : public KernelLauncher {
public:
    // Throws CandidateFault when NVRTC did not instantiate a kernel named by an expression.
    GpuLauncher(const CompileResult& compiled, const std::map<std::string, ResolvedKernel>& kernels,
                const DeviceInfo& info, cu::Stream stream);

    const std::vector<KernelParam>& parameters(const std::string& kernel) override;
    void launch(const LaunchCall& call) override;

    int launches = 0;
    // A launch failed because the kernel's registers allow fewer threads per block than it asked
    // for, or the driver found too few resources for it.
    bool registerLimited = false;
    std::set<std::string> symbols; // names CUPTI will report for the candidate's kernels
    std::set<LaunchShape> shapes;  // the grid and block of every launch it made

private:
    struct Loaded {
        cu::Function function = nullptr;
        std::vector<KernelParam> params;
        std::string symbol;
        int maxThreads = 0;
        int staticShared = 0;
        int dynamicSharedSet = 48 * 1024;
    };
    Loaded& find(const std::string& kernel);

    std::unique_ptr<CudaModule> m_module;
    DeviceInfo m_info;
    cu::Stream m_stream;
    std::map<std::string, Loaded> m_kernels;
};

} // namespace dice::native
