// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/occupancy.h"

#include <algorithm>
#include <climits>

namespace dice {

namespace {

int roundUp(int value, int unit) {
    return unit <= 0 ? value : (value + unit - 1) / unit * unit;
}

SmLimits make(const char* arch, int threads, int blocks, int sharedKiB, int maxBlockKiB,
              int reservedBytes) {
    SmLimits l;
    l.architecture = arch;
    l.maxThreadsPerSm = threads;
    l.maxBlocksPerSm = blocks;
    l.sharedBytesPerSm = sharedKiB * 1024;
    l.maxSharedBytesPerBlock = maxBlockKiB * 1024;
    l.reservedSharedBytesPerBlock = reservedBytes;
    return l;
}

const std::vector<SmLimits>& table() {
    static const std::vector<SmLimits> limits = {
        make("sm_75", 1024, 16, 64, 64, 0),       make("sm_80", 2048, 32, 164, 163, 1024),
        make("sm_86", 1536, 16, 100, 99, 1024),   make("sm_87", 1536, 16, 164, 163, 1024),
        make("sm_89", 1536, 24, 100, 99, 1024),   make("sm_90", 2048, 32, 228, 227, 1024),
        make("sm_100", 2048, 32, 228, 227, 1024), make("sm_120", 1536, 32, 100, 99, 1024),
    };
    return limits;
}

} // namespace

std::optional<SmLimits> smLimits(const std::string& architecture) {
    std::string arch = architecture;
    // sm_90a and compute_90 share sm_90's limits.
    if (arch.rfind("compute_", 0) == 0)
        arch = "sm_" + arch.substr(8);
    if (!arch.empty() && (arch.back() == 'a' || arch.back() == 'f'))
        arch.pop_back();
    for (const SmLimits& l : table())
        if (l.architecture == arch)
            return l;
    return std::nullopt;
}

std::vector<std::string> knownArchitectures() {
    std::vector<std::string> names;
    for (const SmLimits& l : table())
        names.push_back(l.architecture);
    return names;
}

std::string toString(OccupancyLimiter limiter) {
    switch (limiter) {
    case OccupancyLimiter::Warps:
        return "warps";
    case OccupancyLimiter::Blocks:
        return "blocks";
    case OccupancyLimiter::Registers:
        return "registers";
    case OccupancyLimiter::SharedMemory:
        return "shared memory";
    case OccupancyLimiter::BlockTooLarge:
        return "block too large";
    }
    return "warps";
}

Occupancy theoreticalOccupancy(const SmLimits& l, int threadsPerBlock, int registers,
                               int sharedBytes) {
    Occupancy o;
    o.threadsPerBlock = threadsPerBlock;
    o.maxWarps = l.maxThreadsPerSm / l.warpSize;
    if (threadsPerBlock <= 0 || threadsPerBlock > l.maxThreadsPerBlock ||
        registers > l.maxRegistersPerThread || sharedBytes > l.maxSharedBytesPerBlock) {
        o.limiter = OccupancyLimiter::BlockTooLarge;
        return o;
    }
    const int warpsPerBlock = (threadsPerBlock + l.warpSize - 1) / l.warpSize;
    o.blocksByWarps = std::min(l.maxBlocksPerSm, o.maxWarps / warpsPerBlock);

    o.blocksByRegisters = INT_MAX;
    if (registers > 0) {
        // Registers go to warps in allocation units, and a warp's registers live in one
        // sub-partition of the register file.
        const int perWarp = roundUp(registers * l.warpSize, l.registerAllocationUnit);
        const int warpsPerPartition = (l.registersPerSm / l.subPartitions) / perWarp;
        o.blocksByRegisters = warpsPerPartition * l.subPartitions / warpsPerBlock;
    }
    o.blocksBySharedMemory = INT_MAX;
    if (sharedBytes > 0 || l.reservedSharedBytesPerBlock > 0) {
        const int perBlock =
            roundUp(sharedBytes + l.reservedSharedBytesPerBlock, l.sharedAllocationUnit);
        o.blocksBySharedMemory = l.sharedBytesPerSm / perBlock;
    }
    o.blocksPerSm = std::min({o.blocksByWarps, o.blocksByRegisters, o.blocksBySharedMemory});
    if (o.blocksPerSm == o.blocksByRegisters && o.blocksByRegisters < o.blocksByWarps)
        o.limiter = OccupancyLimiter::Registers;
    else if (o.blocksPerSm == o.blocksBySharedMemory && o.blocksBySharedMemory < o.blocksByWarps)
        o.limiter = OccupancyLimiter::SharedMemory;
    else if (o.blocksByWarps == l.maxBlocksPerSm && l.maxBlocksPerSm * warpsPerBlock < o.maxWarps)
        o.limiter = OccupancyLimiter::Blocks;
    else
        o.limiter = OccupancyLimiter::Warps;
    o.activeWarps = o.blocksPerSm * warpsPerBlock;
    o.fraction = o.maxWarps > 0 ? static_cast<double>(o.activeWarps) / o.maxWarps : 0.0;
    return o;
}

} // namespace dice
