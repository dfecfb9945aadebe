// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/bench/pass_breakdown.h"

#include "core/common/error.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <utility>

namespace dice {

namespace {

constexpr size_t kMaxName = 160;

std::string demangle(const std::string& name) {
    // The demangler also reads type encodings, so a plain C name such as "f" would come back as
    // "float": only C++ symbols are given to it.
    if (name.rfind("_Z", 0) != 0)
        return name;
    int status = 0;
    char* text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    if (status != 0 || !text) {
        std::free(text);
        return name;
    }
    std::string out(text);
    std::free(text);
    return out;
}

// Template arguments tell PyTorch's elementwise ops apart; the parameters repeat them.
std::string displayName(const std::string& mangled) {
    std::string name = demangle(mangled);
    if (!name.empty() && name.back() == ')') {
        int depth = 0;
        for (size_t i = name.size(); i-- > 0;) {
            if (name[i] == ')')
                ++depth;
            else if (name[i] == '(' && --depth == 0) {
                if (i > 0)
                    name.erase(i);
                break;
            }
        }
    }
    const std::string prefix = "void ";
    if (name.rfind(prefix, 0) == 0)
        name.erase(0, prefix.size());
    if (name.size() > kMaxName)
        name = name.substr(0, kMaxName - 3) + "...";
    return name;
}

std::uint64_t lengthNs(const KernelRecord& r) {
    return r.endNs > r.startNs ? r.endNs - r.startNs : 0;
}

// Kernels on different streams can run at the same time: the GPU is busy once for both.
std::uint64_t unionNs(const std::vector<KernelRecord>& records) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
    spans.reserve(records.size());
    for (const auto& r : records)
        if (r.endNs > r.startNs)
            spans.emplace_back(r.startNs, r.endNs);
    std::sort(spans.begin(), spans.end());
    std::uint64_t total = 0;
    for (size_t i = 0; i < spans.size();) {
        const std::uint64_t begin = spans[i].first;
        std::uint64_t end = spans[i].second;
        for (++i; i < spans.size() && spans[i].first <= end; ++i)
            end = std::max(end, spans[i].second);
        total += end - begin;
    }
    return total;
}

double perPassMs(std::uint64_t ns, int passes) {
    return static_cast<double>(ns) * 1e-6 / passes;
}

} // namespace

PassBreakdown passBreakdown(const std::vector<KernelRecord>& records, int passes) {
    if (passes <= 0)
        throw Error("a pass breakdown needs at least one pass, not " + std::to_string(passes));
    struct Sum {
        std::uint64_t ns = 0;
        std::uint64_t launches = 0;
    };
    std::map<std::string, Sum> byName;
    std::uint64_t totalNs = 0;
    for (const auto& r : records) {
        Sum& s = byName[displayName(r.name)];
        s.ns += lengthNs(r);
        ++s.launches;
        totalNs += lengthNs(r);
    }
    PassBreakdown b;
    b.passes = passes;
    b.kernelMsPerPass = perPassMs(totalNs, passes);
    b.busyMsPerPass = perPassMs(unionNs(records), passes);
    for (const auto& [name, s] : byName)
        b.kernels.push_back(
            {name, perPassMs(s.ns, passes), static_cast<double>(s.launches) / passes});
    std::sort(b.kernels.begin(), b.kernels.end(), [](const KernelShare& x, const KernelShare& y) {
        return x.msPerPass != y.msPerPass ? x.msPerPass > y.msPerPass : x.name < y.name;
    });
    return b;
}

nlohmann::json toJson(const PassBreakdown& b, double passMs, int top) {
    // A pass too short to measure has no meaningful shares.
    auto share = [&](double ms) { return passMs > 0 ? ms / passMs : 0.0; };
    nlohmann::json kernels = nlohmann::json::array();
    double otherMs = 0;
    for (size_t i = 0; i < b.kernels.size(); ++i) {
        const auto& k = b.kernels[i];
        if (static_cast<long long>(i) >= top) {
            otherMs += k.msPerPass;
            continue;
        }
        kernels.push_back({{"name", k.name},
                           {"ms_per_pass", k.msPerPass},
                           {"launches_per_pass", k.launchesPerPass},
                           {"share_of_pass", share(k.msPerPass)}});
    }
    return {{"passes", b.passes},
            {"kernel_ms_per_pass", b.kernelMsPerPass},
            {"busy_ms_per_pass", b.busyMsPerPass},
            {"idle_ms_per_pass", std::max(0.0, passMs - b.busyMsPerPass)},
            {"kernels", kernels},
            {"other_ms_per_pass", otherMs}};
}

} // namespace dice
