// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

namespace dice {

// splitmix64: the state is advanced by the golden-ratio increment and its bits are mixed. Seeds
// derived with it are well spread even when the inputs differ by one, which is how every seed of
// a trial, a tensor or a sequence is derived from the user's seed.
inline std::uint64_t splitmix64(std::uint64_t state) {
    std::uint64_t z = state + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

} // namespace dice
