// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#if DICE_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include "core/cuda/torch_cuda_bridge.h"

#include <optional>

namespace dice::torchcuda {

bool builtWithCuda() {
#if DICE_TORCH_CUDA
    return true;
#else
    return false;
#endif
}

bool available() {
    return torch::cuda::is_available();
}

std::string cudaVersion() {
#if DICE_TORCH_CUDA && defined(CUDART_VERSION)
    return cu::formatCudaVersion(CUDART_VERSION);
#elif DICE_TORCH_CUDA
    return "yes";
#else
    return "none";
#endif
}

bool capDeviceMemory(int deviceIndex, double fraction) {
#if DICE_TORCH_CUDA
    // The caching allocator's per-device state exists only once LibTorch has initialised CUDA;
    // before that, setting a fraction throws. One element makes LibTorch do it.
    (void)torch::empty({1}, torch::TensorOptions().device(
                                torch::kCUDA, static_cast<c10::DeviceIndex>(deviceIndex)));
    c10::cuda::CUDACachingAllocator::setMemoryFraction(fraction,
                                                       static_cast<c10::DeviceIndex>(deviceIndex));
    return true;
#else
    (void)deviceIndex;
    (void)fraction;
    return false;
#endif
}

void exactFloat32() {
    at::globalContext().setAllowTF32CuDNN(false);
    at::globalContext().setAllowTF32CuBLAS(false);
}

void releaseCachedMemory() {
#if DICE_TORCH_CUDA
    c10::cuda::CUDACachingAllocator::emptyCache();
#endif
}

std::int64_t outOfMemoryEvents(int deviceIndex) {
#if DICE_TORCH_CUDA
    if (!torch::cuda::is_available())
        return 0;
    try {
        return c10::cuda::CUDACachingAllocator::getDeviceStats(
                   static_cast<c10::DeviceIndex>(deviceIndex))
            .num_ooms;
    } catch (const c10::Error&) {
        // The allocator's state for the device does not exist before its first allocation.
        return 0;
    }
#else
    (void)deviceIndex;
    return 0;
#endif
}

struct StreamScope::Impl {
#if DICE_TORCH_CUDA
    std::optional<c10::cuda::CUDAStreamGuard> guard;
#endif
};

StreamScope::StreamScope(cu::Stream stream, int deviceIndex)
    : m_impl(std::make_unique<Impl>()) {
#if DICE_TORCH_CUDA
    auto external = c10::cuda::getStreamFromExternal(reinterpret_cast<cudaStream_t>(stream),
                                                     static_cast<c10::DeviceIndex>(deviceIndex));
    m_impl->guard.emplace(external);
#else
    (void)stream;
    (void)deviceIndex;
#endif
}

StreamScope::~StreamScope() = default;

} // namespace dice::torchcuda
