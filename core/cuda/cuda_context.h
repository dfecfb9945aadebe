// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/cuda_driver.h"

#include <string>
#include <vector>

namespace dice {

// The primary context of one GPU, retained for the object's lifetime and made current on the
// constructing thread. LibTorch's CUDA runtime uses the same primary context, so memory from
// either side is valid in the other.
class CudaContext {
public:
    explicit CudaContext(int deviceIndex = 0);
    ~CudaContext();
    CudaContext(const CudaContext&) = delete;
    CudaContext& operator=(const CudaContext&) = delete;

    void makeCurrent() const;
    int deviceIndex() const { return m_index; }
    cu::Device device() const { return m_device; }

private:
    int m_index;
    cu::Device m_device = 0;
    cu::Context m_context = nullptr;
};

// A loaded cubin or PTX image.
class CudaModule {
public:
    explicit CudaModule(const std::string& image);
    ~CudaModule();
    CudaModule(const CudaModule&) = delete;
    CudaModule& operator=(const CudaModule&) = delete;

    cu::Function function(const std::string& name) const;
    cu::Module handle() const { return m_module; }

private:
    cu::Module m_module = nullptr;
};

// A stream of our own (non-blocking with respect to the legacy default stream).
class CudaStream {
public:
    CudaStream();
    ~CudaStream();
    CudaStream(const CudaStream&) = delete;
    CudaStream& operator=(const CudaStream&) = delete;
    cu::Stream handle() const { return m_stream; }
    void synchronize() const;

private:
    cu::Stream m_stream = nullptr;
};

// Device memory owned by the object.
class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t bytes);
    ~DeviceBuffer();
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    cu::DevicePtr pointer() const { return m_ptr; }
    size_t bytes() const { return m_bytes; }
    void upload(const void* host, size_t bytes);
    void download(void* host, size_t bytes) const;

private:
    cu::DevicePtr m_ptr = 0;
    size_t m_bytes = 0;
};

// A pair of CUDA events around work on one stream.
class EventTimer {
public:
    EventTimer();
    ~EventTimer();
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;
    void start(cu::Stream stream);
    void stop(cu::Stream stream);
    // Waits for the stop event and returns the elapsed milliseconds.
    float milliseconds();

private:
    cu::Event m_start = nullptr;
    cu::Event m_stop = nullptr;
};

// Launch with kernel parameters given as pointers to their values, as cuLaunchKernel expects.
void launchKernel(cu::Function function, const unsigned grid[3], const unsigned block[3],
                  unsigned sharedBytes, cu::Stream stream, std::vector<void*>& parameters);

} // namespace dice
