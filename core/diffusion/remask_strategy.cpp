// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/diffusion/remask_strategy.h"

namespace dice {

std::optional<RemaskStrategy> parseRemaskStrategy(const std::string& text) {
    if (text == "static" || text == "low_confidence_static")
        return RemaskStrategy::LowConfidenceStatic;
    if (text == "dynamic" || text == "low_confidence_dynamic")
        return RemaskStrategy::LowConfidenceDynamic;
    if (text == "sequential")
        return RemaskStrategy::Sequential;
    if (text == "entropy" || text == "entropy_bounded")
        return RemaskStrategy::EntropyBounded;
    return std::nullopt;
}

std::string toString(RemaskStrategy strategy) {
    switch (strategy) {
    case RemaskStrategy::LowConfidenceStatic:
        return "low_confidence_static";
    case RemaskStrategy::LowConfidenceDynamic:
        return "low_confidence_dynamic";
    case RemaskStrategy::Sequential:
        return "sequential";
    case RemaskStrategy::EntropyBounded:
        break;
    }
    return "entropy_bounded";
}

} // namespace dice
