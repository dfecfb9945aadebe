// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace dice {

// Threads for LibTorch's CPU operators; 0 or less: one per hardware thread (Debian's LibTorch
// starts with one). Returns the count in force.
int setCpuThreads(int threads);

} // namespace dice
