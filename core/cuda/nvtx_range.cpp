// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/nvtx_range.h"

#if DICE_HAVE_CUDA_TOOLKIT && __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
#define DICE_HAVE_NVTX 1
#else
#define DICE_HAVE_NVTX 0
#endif

namespace dice {

namespace {
thread_local const char* t_innermost = nullptr;
} // namespace

NvtxRange::NvtxRange(const char* name)
    : m_outer(t_innermost) {
    t_innermost = name;
#if DICE_HAVE_NVTX
    nvtxRangePushA(name);
#endif
}

NvtxRange::~NvtxRange() {
    t_innermost = m_outer;
#if DICE_HAVE_NVTX
    nvtxRangePop();
#endif
}

NvtxGap::NvtxGap()
    : m_range(t_innermost) {
    t_innermost = nullptr;
#if DICE_HAVE_NVTX
    if (m_range)
        nvtxRangePop();
#endif
}

NvtxGap::~NvtxGap() {
    t_innermost = m_range;
#if DICE_HAVE_NVTX
    if (m_range)
        nvtxRangePushA(m_range);
#endif
}

} // namespace dice
