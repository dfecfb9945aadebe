// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dice {

// What one GPU offers, read from the driver. Small value type: it crosses into the GUI and the
// worker protocol.
struct DeviceInfo {
    int index = 0;
    std::string name;
    int computeMajor = 0;
    int computeMinor = 0;
    int multiprocessors = 0;
    std::int64_t totalMemoryBytes = 0;
    std::int64_t l2CacheBytes = 0;
    int clockKHz = 0;
    int memoryClockKHz = 0;
    int memoryBusWidthBits = 0;
    int maxThreadsPerBlock = 0;
    int maxThreadsPerMultiprocessor = 0;
    int maxBlocksPerMultiprocessor = 0;
    int warpSize = 32;
    int registersPerMultiprocessor = 0;
    int registersPerBlock = 0;
    int sharedMemoryPerMultiprocessor = 0;
    int sharedMemoryPerBlock = 0;
    int sharedMemoryPerBlockOptin = 0;
    int reservedSharedMemoryPerBlock = 0;

    // "sm_90"
    std::string architecture() const;
    // Peak device-memory bandwidth in bytes per second (double data rate over the bus).
    double peakBandwidth() const;
    // Peak plain FP32 rate in FLOP/s (FMA counted as two).
    double peakFp32Flops() const;
    // Peak dense tensor-core rate for 16-bit inputs in FLOP/s; falls back to the FP32 rate on
    // chips without tensor cores.
    double peakTensorFlops() const;
};

// Every GPU the driver sees; empty when there is no driver or no GPU.
std::vector<DeviceInfo> queryDevices();

// The GPU of this index, for kernels built with NVRTC at run time: throws Error, its message
// starting with `who`, when the driver or NVRTC is missing or there is no such GPU.
DeviceInfo deviceForRuntimeKernels(int deviceIndex, const std::string& who);

} // namespace dice
