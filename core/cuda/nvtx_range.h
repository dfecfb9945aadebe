// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace dice {

// An NVTX push/pop range on this thread for as long as it lives, so that a profiler (ncu's
// --nvtx-include) can pick the launches inside it. Costs a call that returns at once where no
// profiler is attached, and nothing where the CUDA toolkit's NVTX headers were missing at build.
class NvtxRange {
public:
    explicit NvtxRange(const char* name);
    ~NvtxRange();
    NvtxRange(const NvtxRange&) = delete;
    NvtxRange& operator=(const NvtxRange&) = delete;

private:
    const char* m_outer;
};

// Steps out of this thread's innermost NvtxRange for as long as it lives and back in after, so
// that the evaluator's own work inside a candidate's call (the poison fills of the candidate's
// allocations) stays out of the candidate's profile.
class NvtxGap {
public:
    NvtxGap();
    ~NvtxGap();
    NvtxGap(const NvtxGap&) = delete;
    NvtxGap& operator=(const NvtxGap&) = delete;

private:
    const char* m_range;
};

} // namespace dice
