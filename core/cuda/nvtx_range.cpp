// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/nvtx_range.h"

#if DICE_HAVE_CUDA_TOOLKIT && __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
#define DICE_HAVE_NVTX 1
#else
#define DICE_HAVE_NVTX 0
#endif

namespace dice {

NvtxRange::NvtxRange([[maybe_unused]] const char* name) {
#if DICE_HAVE_NVTX
    nvtxRangePushA(name);
#endif
}

NvtxRange::~NvtxRange() {
#if DICE_HAVE_NVTX
    nvtxRangePop();
#endif
}

} // namespace dice
