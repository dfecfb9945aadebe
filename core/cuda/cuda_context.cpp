// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/cuda_context.h"

#include "core/common/error.h"

namespace dice {

namespace {
const cu::DriverApi& api() {
    const auto& driver = cu::Driver::instance();
    if (!driver.available())
        throw Error(driver.unavailableReason());
    return driver.api();
}
} // namespace

CudaContext::CudaContext(int deviceIndex)
    : m_index(deviceIndex) {
    cu::check(api().cuDeviceGet(&m_device, deviceIndex), "cuDeviceGet");
    cu::check(api().cuDevicePrimaryCtxRetain(&m_context, m_device), "cuDevicePrimaryCtxRetain");
    makeCurrent();
}

CudaContext::~CudaContext() {
    if (!m_context)
        return;
    // A released primary context with no other holder is destroyed; left current, its stale
    // handle would make every later call on this thread fail with CONTEXT_IS_DESTROYED.
    const auto& driver = api();
    cu::Context current = nullptr;
    if (driver.cuCtxGetCurrent(&current) == cu::kSuccess && current == m_context)
        driver.cuCtxSetCurrent(nullptr);
    driver.cuDevicePrimaryCtxRelease(m_device);
}

void CudaContext::makeCurrent() const {
    cu::check(api().cuCtxSetCurrent(m_context), "cuCtxSetCurrent");
}

CudaModule::CudaModule(const std::string& image) {
    cu::check(api().cuModuleLoadData(&m_module, image.data()), "cuModuleLoadData");
}

CudaModule::~CudaModule() {
    if (m_module)
        api().cuModuleUnload(m_module);
}

cu::Function CudaModule::function(const std::string& name) const {
    cu::Function f = nullptr;
    const cu::Result rc = api().cuModuleGetFunction(&f, m_module, name.c_str());
    if (rc != cu::kSuccess)
        throw Error("kernel '" + name +
                    "' not found in the module: " + cu::Driver::instance().describe(rc));
    return f;
}

CudaStream::CudaStream() {
    cu::check(api().cuStreamCreate(&m_stream, cu::kStreamNonBlocking), "cuStreamCreate");
}

CudaStream::~CudaStream() {
    if (m_stream)
        api().cuStreamDestroy(m_stream);
}

void CudaStream::synchronize() const {
    cu::check(api().cuStreamSynchronize(m_stream), "cuStreamSynchronize");
}

DeviceBuffer::DeviceBuffer(size_t bytes)
    : m_bytes(bytes) {
    cu::check(api().cuMemAlloc(&m_ptr, bytes == 0 ? 1 : bytes), "cuMemAlloc");
}

DeviceBuffer::~DeviceBuffer() {
    if (m_ptr)
        api().cuMemFree(m_ptr);
}

void DeviceBuffer::upload(const void* host, size_t bytes) {
    cu::check(api().cuMemcpyHtoD(m_ptr, host, bytes), "cuMemcpyHtoD");
}

void DeviceBuffer::download(void* host, size_t bytes) const {
    cu::check(api().cuMemcpyDtoH(host, m_ptr, bytes), "cuMemcpyDtoH");
}

EventTimer::EventTimer() {
    cu::check(api().cuEventCreate(&m_start, cu::kEventDefault), "cuEventCreate");
    cu::check(api().cuEventCreate(&m_stop, cu::kEventDefault), "cuEventCreate");
}

EventTimer::~EventTimer() {
    if (m_start)
        api().cuEventDestroy(m_start);
    if (m_stop)
        api().cuEventDestroy(m_stop);
}

void EventTimer::start(cu::Stream stream) {
    cu::check(api().cuEventRecord(m_start, stream), "cuEventRecord");
}

void EventTimer::stop(cu::Stream stream) {
    cu::check(api().cuEventRecord(m_stop, stream), "cuEventRecord");
}

float EventTimer::milliseconds() {
    cu::check(api().cuEventSynchronize(m_stop), "cuEventSynchronize");
    float ms = 0;
    cu::check(api().cuEventElapsedTime(&ms, m_start, m_stop), "cuEventElapsedTime");
    return ms;
}

void launchKernel(cu::Function function, const unsigned grid[3], const unsigned block[3],
                  unsigned sharedBytes, cu::Stream stream, std::vector<void*>& parameters) {
    cu::check(api().cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1],
                                   block[2], sharedBytes, stream, parameters.data(), nullptr),
              "cuLaunchKernel");
}

} // namespace dice
