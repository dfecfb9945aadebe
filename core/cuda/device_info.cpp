// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/device_info.h"

#include "core/common/error.h"
#include "core/cuda/cuda_driver.h"
#include "core/cuda/nvrtc_compiler.h"

namespace dice {

namespace {

// FP32 lanes per multiprocessor, by architecture (CUDA programming guide, arithmetic throughput).
int fp32LanesPerMultiprocessor(int major, int minor) {
    if (major == 8 && minor == 0)
        return 64;
    if (major == 6 && minor == 0)
        return 64;
    if (major >= 7 && major <= 12)
        return major == 7 ? 64 : 128;
    return 64;
}

// Dense 16-bit tensor FLOP per clock per multiprocessor.
int tensorFlopsPerClockPerMultiprocessor(int major, int minor) {
    if (major == 7)
        return 1024;
    if (major == 8 && minor == 0)
        return 2048;
    if (major == 8)
        return 1024;
    if (major == 9)
        return 4096;
    if (major >= 10)
        return 4096;
    return 0;
}

} // namespace

std::string DeviceInfo::architecture() const {
    return "sm_" + std::to_string(computeMajor) + std::to_string(computeMinor);
}

double DeviceInfo::peakBandwidth() const {
    return 2.0 * static_cast<double>(memoryClockKHz) * 1e3 * memoryBusWidthBits / 8.0;
}

double DeviceInfo::peakFp32Flops() const {
    return 2.0 * fp32LanesPerMultiprocessor(computeMajor, computeMinor) * multiprocessors *
           static_cast<double>(clockKHz) * 1e3;
}

double DeviceInfo::peakTensorFlops() const {
    const int perClock = tensorFlopsPerClockPerMultiprocessor(computeMajor, computeMinor);
    if (perClock == 0)
        return peakFp32Flops();
    return static_cast<double>(perClock) * multiprocessors * clockKHz * 1e3;
}

std::vector<DeviceInfo> queryDevices() {
    std::vector<DeviceInfo> devices;
    const auto& driver = cu::Driver::instance();
    if (!driver.available())
        return devices;
    const auto& api = driver.api();
    for (int i = 0; i < driver.deviceCount(); ++i) {
        cu::Device device = 0;
        if (api.cuDeviceGet(&device, i) != cu::kSuccess)
            continue;
        DeviceInfo info;
        info.index = i;
        char name[256] = {};
        if (api.cuDeviceGetName(name, sizeof(name) - 1, device) == cu::kSuccess)
            info.name = name;
        auto attribute = [&](int which) {
            int value = 0;
            api.cuDeviceGetAttribute(&value, which, device);
            return value;
        };
        info.computeMajor = attribute(cu::kAttrComputeCapabilityMajor);
        info.computeMinor = attribute(cu::kAttrComputeCapabilityMinor);
        info.multiprocessors = attribute(cu::kAttrMultiprocessorCount);
        info.l2CacheBytes = attribute(cu::kAttrL2CacheSize);
        info.clockKHz = attribute(cu::kAttrClockRate);
        info.memoryClockKHz = attribute(cu::kAttrMemoryClockRate);
        info.memoryBusWidthBits = attribute(cu::kAttrGlobalMemoryBusWidth);
        info.maxThreadsPerBlock = attribute(cu::kAttrMaxThreadsPerBlock);
        info.maxThreadsPerMultiprocessor = attribute(cu::kAttrMaxThreadsPerMultiprocessor);
        info.maxBlocksPerMultiprocessor = attribute(cu::kAttrMaxBlocksPerMultiprocessor);
        info.warpSize = attribute(cu::kAttrWarpSize);
        info.registersPerMultiprocessor = attribute(cu::kAttrMaxRegistersPerMultiprocessor);
        info.registersPerBlock = attribute(cu::kAttrMaxRegistersPerBlock);
        info.sharedMemoryPerMultiprocessor = attribute(cu::kAttrMaxSharedMemoryPerMultiprocessor);
        info.sharedMemoryPerBlock = attribute(cu::kAttrMaxSharedMemoryPerBlock);
        info.sharedMemoryPerBlockOptin = attribute(cu::kAttrMaxSharedMemoryPerBlockOptin);
        info.reservedSharedMemoryPerBlock = attribute(cu::kAttrReservedSharedMemoryPerBlock);
        size_t bytes = 0;
        if (api.cuDeviceTotalMem(&bytes, device) == cu::kSuccess)
            info.totalMemoryBytes = static_cast<std::int64_t>(bytes);
        devices.push_back(info);
    }
    return devices;
}

DeviceInfo deviceForRuntimeKernels(int deviceIndex, const std::string& who) {
    const auto& driver = cu::Driver::instance();
    if (!driver.available())
        throw Error(who + ": " + driver.unavailableReason());
    if (!NvrtcCompiler::available())
        throw Error(who + ": NVRTC is not available");
    for (const auto& device : queryDevices())
        if (device.index == deviceIndex)
            return device;
    throw Error(who + ": no GPU " + std::to_string(deviceIndex));
}

} // namespace dice
