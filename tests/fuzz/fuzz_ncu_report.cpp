// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for Nsight Compute's raw page (core/cuda/ncu_report.h): every input is read or
// rejected with dice::Error, and what is read survives the trip through the result's JSON.
#include "core/common/error.h"
#include "core/cuda/ncu_report.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void failure(const char* what) {
    std::fprintf(stderr, "%s\n", what);
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    dice::CounterReport report;
    try {
        report.candidate = dice::parseNcuCsv(input);
    } catch (const dice::Error&) {
        return 0;
    }
    for (const auto& k : report.candidate) {
        if (k.kernel.empty())
            failure("a kernel without a name was read");
        for (const auto& figure :
             {k.durationNs, k.dramBytes(), k.flops, k.arithmeticIntensity(), k.flopsPerSecond()})
            if (figure && std::isnan(*figure))
                failure("a figure read as NaN");
        k.limiter();
    }
    const dice::CounterReport back = dice::counterReportFromJson(dice::toJson(report));
    if (back.candidate.size() != report.candidate.size())
        failure("the JSON round trip lost a kernel");
    return 0;
}
