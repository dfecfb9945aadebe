// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/eval/native_launchers.h"

#include "core/common/error.h"
#include "core/eval/candidate_fault.h"

#include <algorithm>
#include <cstdint>
#include <mutex>

namespace dice::native {
namespace {

std::mutex g_loadedMutex;
std::set<std::string> g_loaded;

void rememberLoaded(const std::string& symbol) {
    std::lock_guard<std::mutex> lock(g_loadedMutex);
    g_loaded.insert(symbol);
}

} // namespace

bool loadedByThisProcess(const std::string& symbol) {
    std::lock_guard<std::mutex> lock(g_loadedMutex);
    return g_loaded.count(symbol) > 0;
}

const std::vector<KernelParam>& RecordingLauncher::parameters(const std::string& kernel) {
    auto found = m_kernels.find(kernel);
    if (found == m_kernels.end())
        throw Error("dice.launch(\"" + kernel + "\"): no such kernel in the device code");
    return found->second.params;
}

GpuLauncher::GpuLauncher(const CompileResult& compiled,
                         const std::map<std::string, ResolvedKernel>& kernels,
                         const DeviceInfo& info, cu::Stream stream)
    : m_module(std::make_unique<CudaModule>(compiled.cubin))
    , m_info(info)
    , m_stream(stream) {
    const auto& api = cu::Driver::instance().api();
    for (const auto& [name, resolved] : kernels) {
        Loaded k;
        k.params = resolved.params;
        k.symbol = name;
        if (resolved.nameExpression) {
            auto lowered = compiled.loweredNames.find(name);
            if (lowered == compiled.loweredNames.end())
                throw CandidateFault{"NVRTC did not instantiate \"" + name + "\""};
            k.symbol = lowered->second;
        }
        k.function = m_module->function(k.symbol);
        api.cuFuncGetAttribute(&k.maxThreads, cu::kFuncMaxThreadsPerBlock, k.function);
        api.cuFuncGetAttribute(&k.staticShared, cu::kFuncSharedSizeBytes, k.function);
        symbols.insert(k.symbol);
        rememberLoaded(k.symbol);
        m_kernels.emplace(name, std::move(k));
    }
}

const std::vector<KernelParam>& GpuLauncher::parameters(const std::string& kernel) {
    return find(kernel).params;
}

void GpuLauncher::launch(const LaunchCall& call) {
    Loaded& k = find(call.kernel);
    auto fail = [&](const std::string& why) {
        throw Error("dice.launch(\"" + call.kernel + "\"): " + why);
    };
    const unsigned long long threads = 1ULL * call.block[0] * call.block[1] * call.block[2];
    const int limit = std::min(k.maxThreads > 0 ? k.maxThreads : 1024,
                               m_info.maxThreadsPerBlock > 0 ? m_info.maxThreadsPerBlock : 1024);
    if (threads > static_cast<unsigned long long>(limit)) {
        registerLimited = k.maxThreads > 0 && k.maxThreads < m_info.maxThreadsPerBlock;
        fail("a block of " + std::to_string(threads) + " threads; this kernel allows " +
             std::to_string(limit) + " on this GPU");
    }
    if (call.block[0] > 1024 || call.block[1] > 1024 || call.block[2] > 64)
        fail("block dimensions above the device's 1024 x 1024 x 64");
    if (call.grid[0] > 2147483647u || call.grid[1] > 65535 || call.grid[2] > 65535)
        fail("grid dimensions above the device's 2147483647 x 65535 x 65535");
    const int optin = std::max(m_info.sharedMemoryPerBlockOptin, m_info.sharedMemoryPerBlock);
    if (static_cast<long long>(call.sharedBytes) + k.staticShared > optin)
        fail(std::to_string(call.sharedBytes) + " bytes of dynamic shared memory plus " +
             std::to_string(k.staticShared) + " static exceed the device's " +
             std::to_string(optin) + " per block");
    const auto& api = cu::Driver::instance().api();
    if (static_cast<int>(call.sharedBytes) > k.dynamicSharedSet) {
        cu::check(api.cuFuncSetAttribute(k.function, cu::kFuncMaxDynamicSharedSizeBytes,
                                         static_cast<int>(call.sharedBytes)),
                  "cuFuncSetAttribute");
        k.dynamicSharedSet = static_cast<int>(call.sharedBytes);
    }
    std::vector<std::uint64_t> values;
    values.reserve(call.args.size());
    for (const auto& a : call.args)
        values.push_back(a.bits);
    std::vector<void*> pointers;
    for (auto& v : values)
        pointers.push_back(&v);
    const cu::Result rc = api.cuLaunchKernel(k.function, call.grid[0], call.grid[1], call.grid[2],
                                             call.block[0], call.block[1], call.block[2],
                                             call.sharedBytes, m_stream, pointers.data(), nullptr);
    if (rc != cu::kSuccess) {
        registerLimited = rc == cu::kErrorLaunchOutOfResources;
        fail("cuLaunchKernel failed: " + cu::Driver::instance().describe(rc));
    }
    ++launches;
    shapes.insert(
        {call.grid[0], call.grid[1], call.grid[2], call.block[0], call.block[1], call.block[2]});
}

GpuLauncher::Loaded& GpuLauncher::find(const std::string& kernel) {
    auto found = m_kernels.find(kernel);
    if (found == m_kernels.end())
        throw Error("dice.launch(\"" + kernel + "\"): no such kernel in the device code");
    return found->second;
}

} // namespace dice::native
