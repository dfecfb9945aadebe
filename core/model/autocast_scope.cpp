// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>
#include <torch/version.h>

#if DICE_TORCH_CUDA
#include <ATen/autocast_mode.h>
#endif

#include "core/model/autocast_scope.h"

namespace dice {

AutocastScope::AutocastScope(bool enabled)
    : m_enabled(enabled) {
#if DICE_TORCH_CUDA
    if (!m_enabled)
        return;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
    at::autocast::set_autocast_enabled(at::kCUDA, true);
#else
    at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
    at::autocast::set_enabled(true);
#endif
#endif
}

AutocastScope::~AutocastScope() {
#if DICE_TORCH_CUDA
    if (!m_enabled)
        return;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_enabled(at::kCUDA, false);
#else
    at::autocast::set_enabled(false);
#endif
    at::autocast::clear_cache();
#endif
}

bool AutocastScope::active() {
#if DICE_TORCH_CUDA
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    return at::autocast::is_autocast_enabled(at::kCUDA);
#else
    return at::autocast::is_enabled();
#endif
#else
    return false;
#endif
}

} // namespace dice
