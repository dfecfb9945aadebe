// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/cuda_driver.h"

#include <cstdint>
#include <memory>
#include <string>

// The meeting point of LibTorch's CUDA runtime and the workbench's driver-API code. This header
// has no LibTorch include; the implementation compiles against both the CPU-only and the CUDA
// LibTorch.
namespace dice::torchcuda {

// Whether the LibTorch we were built against has CUDA.
bool builtWithCuda();
// Whether LibTorch sees a GPU now.
bool available();
// The CUDA version LibTorch was built with ("13.0"), or "none".
std::string cudaVersion();

// Caps what LibTorch's caching allocator may hold on a device at a fraction of its memory, so
// that host code asking for more gets an out-of-memory error instead of the whole GPU. Returns
// false without CUDA LibTorch.
bool capDeviceMemory(int deviceIndex, double fraction);

// Makes LibTorch compute float32 in float32 on the GPU. By default cuDNN may round a
// convolution's inputs to TF32 (10-bit mantissas): a float32 reference then lies about 1e-3 from
// an exact kernel and fails it at the native dialect's tolerance of 1e-4 (the built-in conv2d,
// conv_bn_relu, conv2d_relu_bias and residual_block solutions were judged incorrect at their bench
// presets). cuBLAS's float32 products are kept exact as well, whatever the default.
void exactFloat32();

// Gives the caching allocator's unused blocks back to the device, so that other processes on the
// GPU can have them. A no-op without CUDA LibTorch.
void releaseCachedMemory();

// How many allocations LibTorch's caching allocator has failed on a device since the process
// started, after freeing its cache and retrying: a count that grows during an evaluation means it
// ran out of memory, whatever the error that reached the caller says. 0 without CUDA LibTorch or
// before the first allocation.
std::int64_t outOfMemoryEvents(int deviceIndex);

// Makes LibTorch's current stream on a device be one of ours for the scope's lifetime, so that
// reference operators and our launches are ordered on one stream. A no-op without CUDA LibTorch.
class StreamScope {
public:
    StreamScope(cu::Stream stream, int deviceIndex);
    ~StreamScope();
    StreamScope(const StreamScope&) = delete;
    StreamScope& operator=(const StreamScope&) = delete;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace dice::torchcuda
