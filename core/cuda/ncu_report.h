// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

// What Nsight Compute (ncu) reports of a kernel launch, read from its raw page (docs/counters.md).
namespace dice {

// One profiled launch. A figure ncu did not report stays empty: no zero stands in for it.
struct KernelCounters {
    std::string kernel;    // the function's name, without scope, template arguments or parameters
    std::string signature; // its whole demangled name where ncu printed one, else empty
    std::string grid;      // "(x, y, z)" as ncu prints it
    std::string block;
    std::optional<double> durationNs;
    std::optional<double> computeThroughputPct; // the busiest SM unit, % of its peak
    std::optional<double> memoryThroughputPct;  // the busiest memory unit, % of its peak
    std::optional<double> achievedOccupancyPct; // active warps, % of the SM's maximum
    std::optional<double> dramBytesRead;
    std::optional<double> dramBytesWritten;
    std::optional<double> flops; // floating-point operations executed (an FMA counts two)
    std::optional<double> registersPerThread;
    int launches = 1; // profiled launches of this kernel; the figures are those of the longest

    std::optional<double> dramBytes() const;
    // FLOP per DRAM byte, for the roofline; empty without both.
    std::optional<double> arithmeticIntensity() const;
    std::optional<double> flopsPerSecond() const;
    // "memory" or "compute" for the unit nearer its peak when one is at 60% or more, "latency"
    // when neither is (the kernel waits more than it works), empty without both figures.
    std::string limiter() const;
};

// What a profile of one candidate came to: its kernels and the reference's, or why there are none.
struct CounterReport {
    std::string tool;    // the ncu that ran, as found
    std::string version; // its version line
    std::vector<KernelCounters> candidate;
    std::vector<KernelCounters> reference;
    std::string error; // why nothing was collected, in plain words; empty when something was
    bool ok() const { return error.empty(); }
};

// The metrics asked of ncu, by their names in its raw page.
const std::vector<std::string>& ncuMetrics();

// The function's own name in a demangled signature: "void at::native::f<4, F>(int, T)" gives "f";
// a plain name ("relu_map") is its own.
std::string kernelBaseName(const std::string& signature);

// Parses ncu's raw page as CSV (`--csv --page raw`): a header row that starts with "ID", an
// optional row of units, then one row per profiled launch. Launches are told apart by their whole
// demangled names (PyTorch's elementwise ops all run in functions named
// vectorized_elementwise_kernel, each with its own template arguments). Units are scaled to bytes,
// nanoseconds and percent; thousands separators are dropped. A kernel launched several times is
// kept once, with the figures of its longest launch and the number of launches. Throws Error with
// the row and column of anything it cannot read.
std::vector<KernelCounters> parseNcuCsv(const std::string& text);

nlohmann::json toJson(const KernelCounters& k);
nlohmann::json toJson(const CounterReport& r);
// Throws Error for a document that is not a counter report.
CounterReport counterReportFromJson(const nlohmann::json& j);

// The report in a document that holds one: `dice eval --profile --json`'s output (its "counters"),
// a `dice bench counters` result file (the entry of `task`, or its only one when `task` is empty),
// or a report itself. Throws Error naming what is missing.
CounterReport counterReportFromDocument(const nlohmann::json& document, const std::string& task);

} // namespace dice
