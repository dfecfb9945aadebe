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
};

} // namespace dice
