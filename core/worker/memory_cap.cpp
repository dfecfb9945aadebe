// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/worker/memory_cap.h"

#include "core/common/error.h"
#include "core/common/sanitizer.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace dice {

namespace {

constexpr std::int64_t kMostByDefault = std::int64_t(16) << 30;
constexpr std::int64_t kLeast = std::int64_t(256) << 20;

} // namespace

std::optional<std::int64_t> memoryLimitFromText(const std::string& text) {
    if (text.empty())
        return std::nullopt;
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
        ++digits;
    const std::string suffix = text.substr(digits);
    int shift = -1;
    if (suffix.empty())
        shift = 0;
    else if (suffix == "K" || suffix == "k")
        shift = 10;
    else if (suffix == "M" || suffix == "m")
        shift = 20;
    else if (suffix == "G" || suffix == "g")
        shift = 30;
    if (digits == 0 || digits > 12 || shift < 0)
        throw Error("DICE_EVALD_MEMORY_LIMIT \"" + text.substr(0, 40) +
                    "\" is not a size such as 8G, 512M or 1073741824");
    const std::int64_t value = std::stoll(text.substr(0, digits));
    if (value > (std::numeric_limits<std::int64_t>::max() >> shift))
        throw Error("DICE_EVALD_MEMORY_LIMIT \"" + text.substr(0, 40) + "\" is too large");
    const std::int64_t bytes = value << shift;
    if (bytes < kLeast)
        throw Error("DICE_EVALD_MEMORY_LIMIT must be at least 256M: the worker needs that much "
                    "to start");
    return bytes;
}

std::int64_t defaultWorkerMemoryLimit() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || pageSize <= 0)
        return kMostByDefault;
    const std::int64_t physical = static_cast<std::int64_t>(pages) * pageSize;
    return std::max(kLeast, std::min(kMostByDefault, physical / 2));
}

nlohmann::json applyWorkerMemoryCap() {
    nlohmann::json applied;
    std::int64_t wanted = defaultWorkerMemoryLimit();
    applied["source"] = "default (half the machine's memory, at most 16 GiB)";
    if (const char* text = std::getenv("DICE_EVALD_MEMORY_LIMIT"); text && *text) {
        try {
            if (const auto bytes = memoryLimitFromText(text)) {
                wanted = *bytes;
                applied["source"] = "DICE_EVALD_MEMORY_LIMIT";
            }
        } catch (const Error& e) {
            applied["source"] = std::string("default; ") + e.what();
        }
    }
    if (kAddressSanitizer) {
        applied["data_limit"] = "not applied: this is an AddressSanitizer build, whose shadow "
                                "memory RLIMIT_DATA counts";
        return applied;
    }
    rlimit current{};
    if (getrlimit(RLIMIT_DATA, &current) != 0) {
        applied["data_limit"] = std::string("unknown: ") + std::strerror(errno);
        return applied;
    }
    rlimit next = current;
    const auto limit = static_cast<rlim_t>(wanted);
    next.rlim_cur = std::min(current.rlim_cur, limit);
    next.rlim_max = std::min(current.rlim_max, limit);
    if (setrlimit(RLIMIT_DATA, &next) != 0) {
        applied["data_limit"] = std::string("not set: ") + std::strerror(errno);
        return applied;
    }
    applied["data_limit_bytes"] = static_cast<long long>(next.rlim_cur);
    applied["gpu"] = "LibTorch's caching allocator, at most 80% of the GPU";
    return applied;
}

} // namespace dice
