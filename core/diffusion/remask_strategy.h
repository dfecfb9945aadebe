// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>

namespace dice {

// Which masked cells a denoising step commits (SDAR's remasking strategies).
enum class RemaskStrategy {
    LowConfidenceStatic,  // the k[s] most confident masked cells
    LowConfidenceDynamic, // every masked cell above the threshold, at least the k[s] most confident
    Sequential,           // the k[s] left-most masked cells
    EntropyBounded,       // by ascending entropy while the summed entropy stays within a bound
};

// "static", "dynamic", "sequential", "entropy" and the reference's long names
// ("low_confidence_static", "low_confidence_dynamic", "entropy_bounded").
std::optional<RemaskStrategy> parseRemaskStrategy(const std::string& text);
std::string toString(RemaskStrategy strategy);

} // namespace dice
