// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>
#include <torch/version.h>

#include "core/system/libtorch_info.h"

namespace dice {

std::string libtorchVersion() {
    return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
           std::to_string(TORCH_VERSION_PATCH);
}

int libtorchThreads() {
    return at::get_num_threads();
}

} // namespace dice
