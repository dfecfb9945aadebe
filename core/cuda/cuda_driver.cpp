// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/cuda_driver.h"

#include "core/common/error.h"

#include <dlfcn.h>

#include <cstdlib>

namespace dice::cu {

namespace {

template <typename Fn>
bool bind(void* handle, Fn& slot, const char* symbol, std::string& missing) {
    void* address = dlsym(handle, symbol);
    if (!address) {
        if (!missing.empty())
            missing += ", ";
        missing += symbol;
        return false;
    }
    slot = reinterpret_cast<Fn>(address);
    return true;
}

} // namespace

Driver::Driver() {
    if (const char* disabled = std::getenv("DICE_DISABLE_CUDA_DRIVER"); disabled && *disabled) {
        m_reason = "no CUDA driver: disabled by DICE_DISABLE_CUDA_DRIVER";
        return;
    }
    m_handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!m_handle) {
        m_reason = "no CUDA driver: libcuda.so.1 was not found (no NVIDIA driver is installed)";
        return;
    }
    std::string missing;
    bool ok = true;
    ok &= bind(m_handle, m_api.cuInit, "cuInit", missing);
    ok &= bind(m_handle, m_api.cuDriverGetVersion, "cuDriverGetVersion", missing);
    ok &= bind(m_handle, m_api.cuGetErrorName, "cuGetErrorName", missing);
    ok &= bind(m_handle, m_api.cuGetErrorString, "cuGetErrorString", missing);
    ok &= bind(m_handle, m_api.cuDeviceGetCount, "cuDeviceGetCount", missing);
    ok &= bind(m_handle, m_api.cuDeviceGet, "cuDeviceGet", missing);
    ok &= bind(m_handle, m_api.cuDeviceGetName, "cuDeviceGetName", missing);
    ok &= bind(m_handle, m_api.cuDeviceGetAttribute, "cuDeviceGetAttribute", missing);
    ok &= bind(m_handle, m_api.cuDeviceTotalMem, "cuDeviceTotalMem_v2", missing);
    ok &= bind(m_handle, m_api.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", missing);
    ok &= bind(m_handle, m_api.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", missing);
    ok &= bind(m_handle, m_api.cuCtxSetCurrent, "cuCtxSetCurrent", missing);
    ok &= bind(m_handle, m_api.cuCtxGetCurrent, "cuCtxGetCurrent", missing);
    ok &= bind(m_handle, m_api.cuCtxSynchronize, "cuCtxSynchronize", missing);
    ok &= bind(m_handle, m_api.cuCtxSetLimit, "cuCtxSetLimit", missing);
    ok &= bind(m_handle, m_api.cuCtxGetLimit, "cuCtxGetLimit", missing);
    ok &= bind(m_handle, m_api.cuMemGetInfo, "cuMemGetInfo_v2", missing);
    ok &= bind(m_handle, m_api.cuModuleLoadData, "cuModuleLoadData", missing);
    ok &= bind(m_handle, m_api.cuModuleUnload, "cuModuleUnload", missing);
    ok &= bind(m_handle, m_api.cuModuleGetFunction, "cuModuleGetFunction", missing);
    ok &= bind(m_handle, m_api.cuModuleGetGlobal, "cuModuleGetGlobal_v2", missing);
    ok &= bind(m_handle, m_api.cuFuncGetAttribute, "cuFuncGetAttribute", missing);
    ok &= bind(m_handle, m_api.cuFuncSetAttribute, "cuFuncSetAttribute", missing);
    ok &= bind(m_handle, m_api.cuLaunchKernel, "cuLaunchKernel", missing);
    ok &= bind(m_handle, m_api.cuOccupancyMaxActiveBlocksPerMultiprocessor,
               "cuOccupancyMaxActiveBlocksPerMultiprocessor", missing);
    ok &= bind(m_handle, m_api.cuMemAlloc, "cuMemAlloc_v2", missing);
    ok &= bind(m_handle, m_api.cuMemFree, "cuMemFree_v2", missing);
    ok &= bind(m_handle, m_api.cuMemcpyHtoD, "cuMemcpyHtoD_v2", missing);
    ok &= bind(m_handle, m_api.cuMemcpyDtoH, "cuMemcpyDtoH_v2", missing);
    ok &= bind(m_handle, m_api.cuMemcpyDtoD, "cuMemcpyDtoD_v2", missing);
    ok &= bind(m_handle, m_api.cuMemsetD8, "cuMemsetD8_v2", missing);
    ok &= bind(m_handle, m_api.cuMemsetD32Async, "cuMemsetD32Async", missing);
    ok &= bind(m_handle, m_api.cuMemsetD8Async, "cuMemsetD8Async", missing);
    ok &= bind(m_handle, m_api.cuStreamCreate, "cuStreamCreate", missing);
    ok &= bind(m_handle, m_api.cuStreamDestroy, "cuStreamDestroy_v2", missing);
    ok &= bind(m_handle, m_api.cuStreamSynchronize, "cuStreamSynchronize", missing);
    ok &= bind(m_handle, m_api.cuEventCreate, "cuEventCreate", missing);
    ok &= bind(m_handle, m_api.cuEventDestroy, "cuEventDestroy_v2", missing);
    ok &= bind(m_handle, m_api.cuEventRecord, "cuEventRecord", missing);
    ok &= bind(m_handle, m_api.cuEventSynchronize, "cuEventSynchronize", missing);
    // CUDA 13 renamed the export; older drivers have only the plain name.
    if (!dlsym(m_handle, "cuEventElapsedTime_v2"))
        ok &= bind(m_handle, m_api.cuEventElapsedTime, "cuEventElapsedTime", missing);
    else
        ok &= bind(m_handle, m_api.cuEventElapsedTime, "cuEventElapsedTime_v2", missing);
    if (!ok) {
        m_reason = "CUDA driver too old: missing " + missing;
        return;
    }
    if (m_api.cuDriverGetVersion(&m_version) != kSuccess)
        m_version = 0;
    const Result init = m_api.cuInit(0);
    if (init != kSuccess) {
        m_reason = "CUDA driver present but cuInit failed: " + describe(init);
        return;
    }
    if (m_api.cuDeviceGetCount(&m_deviceCount) != kSuccess || m_deviceCount == 0) {
        m_reason = "CUDA driver present but no GPU is visible";
        m_deviceCount = 0;
        return;
    }
    m_available = true;
}

const Driver& Driver::instance() {
    static const Driver driver;
    return driver;
}

std::string Driver::describe(Result result) const {
    const char* name = nullptr;
    const char* text = nullptr;
    if (m_api.cuGetErrorName)
        m_api.cuGetErrorName(result, &name);
    if (m_api.cuGetErrorString)
        m_api.cuGetErrorString(result, &text);
    std::string out = name ? name : ("CUDA error " + std::to_string(result));
    if (text)
        out += std::string(": ") + text;
    return out;
}

void check(Result result, const char* what) {
    if (result != kSuccess)
        throw Error(std::string(what) + " failed: " + Driver::instance().describe(result));
}

std::string formatCudaVersion(int version) {
    if (version <= 0)
        return "none";
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

} // namespace dice::cu
