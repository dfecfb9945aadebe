// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace dice {

// What bounds how many blocks of a kernel one streaming multiprocessor holds at once, per
// architecture (the figures of the CUDA programming guide's compute capability table).
struct SmLimits {
    std::string architecture; // "sm_90"
    int maxThreadsPerSm = 2048;
    int maxBlocksPerSm = 32;
    int maxThreadsPerBlock = 1024;
    int registersPerSm = 65536;
    int maxRegistersPerThread = 255;
    int registerAllocationUnit = 256; // registers per warp are allocated in these
    int subPartitions = 4;            // the register file is split between these
    int sharedBytesPerSm = 233472;    // the most the carve-out gives shared memory
    int maxSharedBytesPerBlock = 232448;
    int reservedSharedBytesPerBlock = 1024;
    int sharedAllocationUnit = 128;
    int warpSize = 32;
};

// nullopt for an architecture not in the table.
std::optional<SmLimits> smLimits(const std::string& architecture);
std::vector<std::string> knownArchitectures();

enum class OccupancyLimiter { Warps, Blocks, Registers, SharedMemory, BlockTooLarge };
std::string toString(OccupancyLimiter limiter);

struct Occupancy {
    int threadsPerBlock = 0;
    int blocksPerSm = 0;
    int activeWarps = 0;
    int maxWarps = 0;
    double fraction = 0; // active warps / the most the SM holds
    OccupancyLimiter limiter = OccupancyLimiter::Warps;
    int blocksByWarps = 0;
    int blocksByRegisters = 0;
    int blocksBySharedMemory = 0;
};

// Theoretical occupancy of a kernel with `registers` per thread and `sharedBytes` of shared
// memory per block (static and dynamic) at a block size.
Occupancy theoreticalOccupancy(const SmLimits& limits, int threadsPerBlock, int registers,
                               int sharedBytes);

} // namespace dice
