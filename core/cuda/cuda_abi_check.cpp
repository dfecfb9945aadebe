// SPDX-License-Identifier: GPL-3.0-or-later
// Checks the driver ABI that cuda_driver.h declares against the toolkit's cuda.h. cuda.h comes
// second: its macros rename API functions (cuMemAlloc to cuMemAlloc_v2 and so on), which must not
// reach the declarations of our function table.
#include "core/cuda/cuda_driver.h"

#if DICE_HAVE_CUDA_TOOLKIT
#include <cuda.h>

namespace {
constexpr bool same(int ours, int theirs) {
    return ours == theirs;
}
} // namespace

using namespace dice::cu;
static_assert(same(kAttrMaxThreadsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
static_assert(same(kAttrMaxSharedMemoryPerBlock, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
static_assert(same(kAttrWarpSize, CU_DEVICE_ATTRIBUTE_WARP_SIZE));
static_assert(same(kAttrMaxRegistersPerBlock, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK));
static_assert(same(kAttrClockRate, CU_DEVICE_ATTRIBUTE_CLOCK_RATE));
static_assert(same(kAttrMultiprocessorCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
static_assert(same(kAttrMemoryClockRate, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE));
static_assert(same(kAttrGlobalMemoryBusWidth, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH));
static_assert(same(kAttrL2CacheSize, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
static_assert(same(kAttrMaxThreadsPerMultiprocessor,
                   CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR));
static_assert(same(kAttrComputeCapabilityMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
static_assert(same(kAttrComputeCapabilityMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
static_assert(same(kAttrMaxSharedMemoryPerMultiprocessor,
                   CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
static_assert(same(kAttrMaxRegistersPerMultiprocessor,
                   CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR));
static_assert(same(kAttrMaxSharedMemoryPerBlockOptin,
                   CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
static_assert(same(kAttrMaxBlocksPerMultiprocessor,
                   CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR));
static_assert(same(kAttrReservedSharedMemoryPerBlock,
                   CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK));
static_assert(same(kFuncSharedSizeBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
static_assert(same(kFuncLocalSizeBytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES));
static_assert(same(kFuncNumRegs, CU_FUNC_ATTRIBUTE_NUM_REGS));
static_assert(same(kFuncMaxDynamicSharedSizeBytes,
                   CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES));
static_assert(same(kErrorIllegalAddress, CUDA_ERROR_ILLEGAL_ADDRESS));
static_assert(same(kErrorLaunchTimeout, CUDA_ERROR_LAUNCH_TIMEOUT));
static_assert(same(kErrorIllegalInstruction, CUDA_ERROR_ILLEGAL_INSTRUCTION));
static_assert(same(kErrorAssert, CUDA_ERROR_ASSERT));
static_assert(same(kErrorLaunchFailed, CUDA_ERROR_LAUNCH_FAILED));
static_assert(same(kErrorNotInitialized, CUDA_ERROR_NOT_INITIALIZED));
static_assert(same(kErrorUnsupportedLimit, CUDA_ERROR_UNSUPPORTED_LIMIT));
static_assert(same(kLimitPersistingL2CacheSize, CU_LIMIT_PERSISTING_L2_CACHE_SIZE));
static_assert(kStreamNonBlocking == CU_STREAM_NON_BLOCKING);
static_assert(sizeof(DevicePtr) == sizeof(CUdeviceptr));
#endif
