// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

// The CUDA driver (libcuda.so.1) is loaded at run time with dlopen, never linked: a machine without
// a driver is a normal state that every program of the workbench reports and works around. The
// declarations below are the parts of the driver ABI the workbench uses; their values are checked
// against cuda.h in cuda_driver.cpp wherever the toolkit headers are present.
namespace dice::cu {

using Result = int;
using Device = int;
using Context = struct CtxOpaque*;
using Module = struct ModuleOpaque*;
using Function = struct FunctionOpaque*;
using Stream = struct StreamOpaque*;
using Event = struct EventOpaque*;
using DevicePtr = unsigned long long;

constexpr Result kSuccess = 0;
constexpr Result kErrorNotInitialized = 3;
constexpr Result kErrorIllegalAddress = 700;
constexpr Result kErrorLaunchOutOfResources = 701;
constexpr Result kErrorLaunchTimeout = 702;
constexpr Result kErrorIllegalInstruction = 715;
constexpr Result kErrorAssert = 710;
constexpr Result kErrorLaunchFailed = 719;
constexpr Result kErrorUnsupportedLimit = 215;

// The size of the L2 set-aside for persisting accesses (cuCtxSetLimit).
constexpr int kLimitPersistingL2CacheSize = 0x06;

enum DeviceAttribute : int {
    kAttrMaxThreadsPerBlock = 1,
    kAttrMaxSharedMemoryPerBlock = 8,
    kAttrWarpSize = 10,
    kAttrMaxRegistersPerBlock = 12,
    kAttrClockRate = 13,
    kAttrMultiprocessorCount = 16,
    kAttrPciBusId = 33,
    kAttrMemoryClockRate = 36,
    kAttrGlobalMemoryBusWidth = 37,
    kAttrL2CacheSize = 38,
    kAttrMaxThreadsPerMultiprocessor = 39,
    kAttrComputeCapabilityMajor = 75,
    kAttrComputeCapabilityMinor = 76,
    kAttrMaxSharedMemoryPerMultiprocessor = 81,
    kAttrMaxRegistersPerMultiprocessor = 82,
    kAttrMaxSharedMemoryPerBlockOptin = 97,
    kAttrMaxBlocksPerMultiprocessor = 106,
    kAttrReservedSharedMemoryPerBlock = 111,
};

enum FunctionAttribute : int {
    kFuncMaxThreadsPerBlock = 0,
    kFuncSharedSizeBytes = 1,
    kFuncConstSizeBytes = 2,
    kFuncLocalSizeBytes = 3,
    kFuncNumRegs = 4,
    kFuncPtxVersion = 5,
    kFuncBinaryVersion = 6,
    kFuncMaxDynamicSharedSizeBytes = 8,
};

constexpr unsigned kStreamNonBlocking = 0x1;
constexpr unsigned kEventDefault = 0x0;

// Function table filled by dlsym. Names follow the driver's exported symbols (the _v2 variants
// where cuda.h maps the plain name to one).
struct DriverApi {
    Result (*cuInit)(unsigned);
    Result (*cuDriverGetVersion)(int*);
    Result (*cuGetErrorName)(Result, const char**);
    Result (*cuGetErrorString)(Result, const char**);
    Result (*cuDeviceGetCount)(int*);
    Result (*cuDeviceGet)(Device*, int);
    Result (*cuDeviceGetName)(char*, int, Device);
    Result (*cuDeviceGetAttribute)(int*, int, Device);
    Result (*cuDeviceTotalMem)(size_t*, Device);
    Result (*cuDevicePrimaryCtxRetain)(Context*, Device);
    Result (*cuDevicePrimaryCtxRelease)(Device);
    Result (*cuCtxSetCurrent)(Context);
    Result (*cuCtxGetCurrent)(Context*);
    Result (*cuCtxSynchronize)();
    Result (*cuCtxSetLimit)(int, size_t);
    Result (*cuCtxGetLimit)(size_t*, int);
    Result (*cuMemGetInfo)(size_t*, size_t*);
    Result (*cuModuleLoadData)(Module*, const void*);
    Result (*cuModuleUnload)(Module);
    Result (*cuModuleGetFunction)(Function*, Module, const char*);
    Result (*cuModuleGetGlobal)(DevicePtr*, size_t*, Module, const char*);
    Result (*cuFuncGetAttribute)(int*, int, Function);
    Result (*cuFuncSetAttribute)(Function, int, int);
    Result (*cuLaunchKernel)(Function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, Stream, void**, void**);
    Result (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int*, Function, int, size_t);
    Result (*cuMemAlloc)(DevicePtr*, size_t);
    Result (*cuMemFree)(DevicePtr);
    Result (*cuMemcpyHtoD)(DevicePtr, const void*, size_t);
    Result (*cuMemcpyDtoH)(void*, DevicePtr, size_t);
    Result (*cuMemcpyDtoD)(DevicePtr, DevicePtr, size_t);
    Result (*cuMemsetD8)(DevicePtr, unsigned char, size_t);
    Result (*cuMemsetD32Async)(DevicePtr, unsigned, size_t, Stream);
    Result (*cuMemsetD8Async)(DevicePtr, unsigned char, size_t, Stream);
    Result (*cuStreamCreate)(Stream*, unsigned);
    Result (*cuStreamDestroy)(Stream);
    Result (*cuStreamSynchronize)(Stream);
    Result (*cuEventCreate)(Event*, unsigned);
    Result (*cuEventDestroy)(Event);
    Result (*cuEventRecord)(Event, Stream);
    Result (*cuEventSynchronize)(Event);
    Result (*cuEventElapsedTime)(float*, Event, Event);
};

// The loaded driver, or the reason there is none. Loading happens once, on first use, and is
// thread-safe.
class Driver {
public:
    static const Driver& instance();

    bool available() const { return m_available; }
    // Why the driver is not available ("no CUDA driver: libcuda.so.1 not found", "cuInit failed:
    // CUDA_ERROR_NO_DEVICE ..."), empty when it is.
    const std::string& unavailableReason() const { return m_reason; }
    // Driver API version as reported by cuDriverGetVersion (e.g. 13000), 0 when unavailable.
    int version() const { return m_version; }
    int deviceCount() const { return m_deviceCount; }
    const DriverApi& api() const { return m_api; }

    // "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"
    std::string describe(Result result) const;

private:
    Driver();
    bool m_available = false;
    std::string m_reason;
    int m_version = 0;
    int m_deviceCount = 0;
    DriverApi m_api{};
    void* m_handle = nullptr;
};

// Throws dice::Error with the call's name and the driver's description when result is not success.
void check(Result result, const char* what);

// "13.0" from 13000.
std::string formatCudaVersion(int version);

} // namespace dice::cu
