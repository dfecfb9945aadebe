// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

// The peak of LibTorch's CUDA allocations on one GPU, for the figures that report memory (the
// model benchmark, the RL trainer's steps). Without a CUDA LibTorch these do nothing and the peak
// is 0.
namespace dice {

// Frees the allocator's cached blocks and starts a new peak on GPU `index`.
void resetPeakDeviceMemory(int index);
// Hands the allocator's cached, unused blocks back to the driver, so that other processes on the
// GPU (the reward service's workers, judging beside the RL trainer) can have that memory.
void releaseCachedDeviceMemory();
// Bytes allocated at most on GPU `index` since the last reset.
std::int64_t peakDeviceMemory(int index);

} // namespace dice
