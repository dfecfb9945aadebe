// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace dice {

// The NVIDIA driver's release ("580.159.04"), from /proc/driver/nvidia/version or NVML (loaded at
// run time); empty when there is no driver.
std::string nvidiaDriverRelease();

} // namespace dice
