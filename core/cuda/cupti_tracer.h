// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dice {

// One kernel execution as CUPTI's activity API recorded it, whatever stream it ran on.
struct KernelRecord {
    std::string name;
    std::uint64_t startNs = 0;
    std::uint64_t endNs = 0;
    std::uint32_t deviceId = 0;
    std::uint32_t streamId = 0;
    std::uint32_t correlationId = 0;
    int gridX = 0, gridY = 0, gridZ = 0;
    int blockX = 0, blockY = 0, blockZ = 0;
    int registersPerThread = 0;
    int staticSharedBytes = 0;
    int dynamicSharedBytes = 0;

    double milliseconds() const { return static_cast<double>(endNs - startNs) * 1e-6; }
};

// Records every kernel launched in the process between start() and stop(). CUPTI's activity
// callbacks are process-wide, so at most one tracer records at a time; start() fails while another
// is active.
class CuptiTracer {
public:
    CuptiTracer() = default;
    ~CuptiTracer();
    CuptiTracer(const CuptiTracer&) = delete;
    CuptiTracer& operator=(const CuptiTracer&) = delete;

    static bool available();
    // "13.0 (API 130001)", or "none".
    static std::string version();

    // Returns false and sets error when CUPTI cannot record (no driver, no CUPTI, busy).
    bool start(std::string* error);
    // Flushes CUPTI's buffers and returns the kernels recorded since start().
    std::vector<KernelRecord> stop();
    bool active() const { return m_active; }

private:
    bool m_active = false;
};

} // namespace dice
