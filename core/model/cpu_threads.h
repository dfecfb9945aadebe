// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

namespace dice {

// Threads for LibTorch's CPU operators; 0 or less: one per hardware thread (Debian's LibTorch
// starts with one). Returns the count in force.
int setCpuThreads(int threads);

// Models up to this size generate fastest on one thread (docs/model-engine.md): their operators
// are too small for LibTorch's threads to pay, and on busy cores extra threads wait on each
// other.
constexpr std::int64_t kOneThreadParameters = 32'000'000;

// The CPU threads a model of `parameters` runs on when none are asked for: one up to
// kOneThreadParameters, else one per hardware thread.
int defaultCpuThreads(std::int64_t parameters);

} // namespace dice
