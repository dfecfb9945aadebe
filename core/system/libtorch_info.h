// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace dice {

std::string libtorchVersion();
int libtorchThreads();

} // namespace dice
