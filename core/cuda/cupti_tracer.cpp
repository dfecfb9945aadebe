// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/cupti_tracer.h"

#include "core/cuda/cuda_driver.h"

#include <cstdlib>
#include <mutex>

#if DICE_HAVE_CUDA_TOOLKIT
#include <cupti.h>
#endif

namespace dice {

#if DICE_HAVE_CUDA_TOOLKIT
namespace {

#if CUPTI_API_VERSION >= 130000
using KernelActivity = CUpti_ActivityKernel10;
#else
using KernelActivity = CUpti_ActivityKernel9;
#endif

constexpr size_t kBufferBytes = 4 * 1024 * 1024;

std::mutex g_mutex;
bool g_busy = false;
bool g_callbacksRegistered = false;
std::vector<KernelRecord> g_records;

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
    // CUPTI wants 8-byte aligned buffers.
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *maxRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t validSize) {
    CUpti_Activity* record = nullptr;
    std::vector<KernelRecord> batch;
    while (cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
        if (record->kind != CUPTI_ACTIVITY_KIND_KERNEL &&
            record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            continue;
        const auto* k = reinterpret_cast<const KernelActivity*>(record);
        KernelRecord r;
        r.name = k->name ? k->name : "";
        r.startNs = k->start;
        r.endNs = k->end;
        r.deviceId = k->deviceId;
        r.streamId = k->streamId;
        r.correlationId = k->correlationId;
        r.gridX = k->gridX;
        r.gridY = k->gridY;
        r.gridZ = k->gridZ;
        r.blockX = k->blockX;
        r.blockY = k->blockY;
        r.blockZ = k->blockZ;
        r.registersPerThread = k->registersPerThread;
        r.staticSharedBytes = k->staticSharedMemory;
        r.dynamicSharedBytes = k->dynamicSharedMemory;
        batch.push_back(std::move(r));
    }
    std::free(buffer);
    std::lock_guard<std::mutex> lock(g_mutex);
    for (auto& r : batch)
        g_records.push_back(std::move(r));
}

std::string cuptiMessage(CUptiResult rc) {
    const char* text = nullptr;
    cuptiGetResultString(rc, &text);
    return text ? text : ("CUPTI error " + std::to_string(static_cast<int>(rc)));
}

} // namespace
#endif

CuptiTracer::~CuptiTracer() {
    if (m_active)
        stop();
}

bool CuptiTracer::available() {
#if DICE_HAVE_CUDA_TOOLKIT
    return true;
#else
    return false;
#endif
}

std::string CuptiTracer::version() {
#if DICE_HAVE_CUDA_TOOLKIT
    uint32_t api = 0;
    if (cuptiGetVersion(&api) != CUPTI_SUCCESS)
        return "unknown";
    return std::to_string(api / 10000) + "." + std::to_string((api / 100) % 100) + " (API " +
           std::to_string(api) + ")";
#else
    return "none";
#endif
}

bool CuptiTracer::start(std::string* error) {
#if DICE_HAVE_CUDA_TOOLKIT
    if (!cu::Driver::instance().available()) {
        if (error)
            *error = cu::Driver::instance().unavailableReason();
        return false;
    }
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        if (g_busy) {
            if (error)
                *error = "another CUPTI trace is already recording";
            return false;
        }
        g_busy = true;
        g_records.clear();
    }
    if (!g_callbacksRegistered) {
        const CUptiResult rc = cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted);
        if (rc != CUPTI_SUCCESS) {
            if (error)
                *error = "cuptiActivityRegisterCallbacks: " + cuptiMessage(rc);
            std::lock_guard<std::mutex> lock(g_mutex);
            g_busy = false;
            return false;
        }
        g_callbacksRegistered = true;
    }
    const CUptiResult rc = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (rc != CUPTI_SUCCESS) {
        if (error)
            *error = "cuptiActivityEnable: " + cuptiMessage(rc);
        std::lock_guard<std::mutex> lock(g_mutex);
        g_busy = false;
        return false;
    }
    // Taken after enabling: a kernel that starts from here on is this trace's.
    cuptiGetTimestamp(&m_startNs);
    m_active = true;
    return true;
#else
    if (error)
        *error = "this build has no CUPTI (the CUDA toolkit was not found when it was configured)";
    return false;
#endif
}

std::vector<KernelRecord> CuptiTracer::stop() {
    std::vector<KernelRecord> out;
#if DICE_HAVE_CUDA_TOOLKIT
    if (!m_active)
        return out;
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard<std::mutex> lock(g_mutex);
    for (auto& r : g_records)
        if (r.startNs >= m_startNs)
            out.push_back(std::move(r));
    g_records.clear();
    g_busy = false;
    m_active = false;
#endif
    return out;
}

} // namespace dice
