// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace dice {

// A launch's grid and block dimensions, as a kernel record gives them.
using LaunchShape = std::array<long long, 6>;

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
    LaunchShape shape() const { return {gridX, gridY, gridZ, blockX, blockY, blockZ}; }
};

// Records every kernel launched in the process between start() and stop(). CUPTI's activity
// callbacks are process-wide, so at most one tracer records at a time; start() fails while another
// is active. CUPTI delivers records when its buffers complete, which can be after the trace that
// launched them has stopped: a record of a kernel that began before start() is never returned,
// so one evaluation's kernels cannot be counted in the next one's.
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
    // CUPTI's clock at start(): kernels recorded with an earlier start belong to an earlier trace.
    std::uint64_t m_startNs = 0;
};

} // namespace dice
