// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#if DICE_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include "core/model/device_memory.h"

#include "core/cuda/torch_cuda_bridge.h"

namespace dice {

void resetPeakDeviceMemory(int index) {
#if DICE_TORCH_CUDA
    // The caching allocator is set up by the first CUDA allocation; before it, its statistics
    // calls fail with "Invalid device argument".
    (void)at::empty({1}, at::TensorOptions().device(at::Device(at::kCUDA, index)));
    c10::cuda::CUDACachingAllocator::emptyCache();
    c10::cuda::CUDACachingAllocator::resetPeakStats(index);
#else
    (void)index;
#endif
}

void releaseCachedDeviceMemory() {
    torchcuda::releaseCachedMemory();
}

std::int64_t peakDeviceMemory(int index) {
#if DICE_TORCH_CUDA
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(index);
    // Index 0 is the aggregate over all pool kinds.
    return stats.allocated_bytes[0].peak;
#else
    (void)index;
    return 0;
#endif
}

} // namespace dice
