// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/ncu_report.h"

#include "core/common/error.h"
#include "core/common/text_tail.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>

namespace dice {

namespace {

const char* const kDuration = "gpu__time_duration.sum";
const char* const kCompute = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
const char* const kMemory = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
const char* const kOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
const char* const kDramRead = "dram__bytes_read.sum";
const char* const kDramWrite = "dram__bytes_write.sum";
const char* const kRegisters = "launch__registers_per_thread";

// Executed floating-point instructions per precision; an FMA is two operations.
std::vector<std::pair<std::string, double>> flopMetrics() {
    std::vector<std::pair<std::string, double>> out;
    for (const char* precision : {"f", "d", "h"})
        for (const auto& [op, weight] :
             std::vector<std::pair<std::string, double>>{{"add", 1}, {"mul", 1}, {"fma", 2}})
            out.emplace_back(std::string("smsp__sass_thread_inst_executed_op_") + precision + op +
                                 "_pred_on.sum",
                             weight);
    return out;
}

// One CSV record per row; quotes may hold commas, doubled quotes and line breaks.
std::vector<std::vector<std::string>> readCsv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false;
    bool any = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
            continue;
        }
        if (c == '"') {
            quoted = true;
            any = true;
        } else if (c == ',') {
            row.push_back(std::move(field));
            field.clear();
            any = true;
        } else if (c == '\n' || c == '\r') {
            if (any || !field.empty()) {
                row.push_back(std::move(field));
                rows.push_back(std::move(row));
            }
            row.clear();
            field.clear();
            any = false;
        } else {
            field += c;
            any = true;
        }
    }
    if (quoted)
        throw Error("ncu's report ends inside a quoted field");
    if (any || !field.empty()) {
        row.push_back(std::move(field));
        rows.push_back(std::move(row));
    }
    return rows;
}

// The factor that brings a value in `unit` to bytes, nanoseconds or percent; 1 for counts.
std::optional<double> unitScale(const std::string& unit) {
    static const std::map<std::string, double> scales = {{"", 1},
                                                         {"%", 1},
                                                         {"byte", 1},
                                                         {"Kbyte", 1e3},
                                                         {"Mbyte", 1e6},
                                                         {"Gbyte", 1e9},
                                                         {"Tbyte", 1e12},
                                                         {"KiB", 1024.0},
                                                         {"MiB", 1048576.0},
                                                         {"GiB", 1073741824.0},
                                                         {"ns", 1},
                                                         {"us", 1e3},
                                                         {"ms", 1e6},
                                                         {"s", 1e9},
                                                         {"nsecond", 1},
                                                         {"usecond", 1e3},
                                                         {"msecond", 1e6},
                                                         {"second", 1e9},
                                                         {"inst", 1},
                                                         {"Kinst", 1e3},
                                                         {"Minst", 1e6},
                                                         {"Ginst", 1e9},
                                                         {"register/thread", 1}};
    const auto found = scales.find(unit);
    if (found == scales.end())
        return std::nullopt;
    return found->second;
}

std::optional<double> parseNumber(const std::string& raw, std::size_t row,
                                  const std::string& column) {
    std::string text;
    for (const char c : raw)
        if (c != ',' && c != ' ')
            text += c;
    if (text.empty() || text == "n/a" || text == "N/A")
        return std::nullopt;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(value))
        throw Error("ncu's report, row " + std::to_string(row) + ", column " + column + ": \"" +
                    raw.substr(0, 40) + "\" is not a number");
    return value;
}

nlohmann::json optionalJson(const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json();
}

std::optional<double> optionalFrom(const nlohmann::json& j, const char* key) {
    if (!j.contains(key) || j[key].is_null())
        return std::nullopt;
    if (!j[key].is_number())
        throw Error(std::string("counter report: ") + key + " must be a number or null");
    return j[key].get<double>();
}

} // namespace

std::optional<double> KernelCounters::dramBytes() const {
    if (!dramBytesRead && !dramBytesWritten)
        return std::nullopt;
    return dramBytesRead.value_or(0) + dramBytesWritten.value_or(0);
}

std::optional<double> KernelCounters::arithmeticIntensity() const {
    const auto bytes = dramBytes();
    if (!flops || !bytes || *bytes <= 0)
        return std::nullopt;
    return *flops / *bytes;
}

std::optional<double> KernelCounters::flopsPerSecond() const {
    if (!flops || !durationNs || *durationNs <= 0)
        return std::nullopt;
    return *flops / (*durationNs * 1e-9);
}

std::string KernelCounters::limiter() const {
    if (!computeThroughputPct || !memoryThroughputPct)
        return {};
    if (std::max(*computeThroughputPct, *memoryThroughputPct) < 60)
        return "latency";
    return *memoryThroughputPct >= *computeThroughputPct ? "memory" : "compute";
}

const std::vector<std::string>& ncuMetrics() {
    static const std::vector<std::string> metrics = [] {
        std::vector<std::string> m = {kDuration, kCompute,   kMemory,   kOccupancy,
                                      kDramRead, kDramWrite, kRegisters};
        for (const auto& [name, weight] : flopMetrics())
            m.push_back(name);
        return m;
    }();
    return metrics;
}

std::string kernelBaseName(const std::string& signature) {
    // An anonymous namespace is a scope, not the parameter list.
    std::string text = signature;
    for (const std::string anonymous : {"(anonymous namespace)", "(anonymous)"})
        for (auto at = text.find(anonymous); at != std::string::npos; at = text.find(anonymous))
            text.replace(at, anonymous.size(), "anonymous");
    // Up to the parameter list at template depth 0, without the template arguments at depth 0.
    std::string head;
    int depth = 0;
    for (const char c : text) {
        if (c == '<')
            ++depth;
        else if (c == '>' && depth > 0)
            --depth;
        else if (c == '(' && depth == 0)
            break;
        else if (depth == 0)
            head += c;
    }
    while (!head.empty() && head.back() == ' ')
        head.pop_back();
    // The last word (after a return type) and its last scope.
    const std::size_t space = head.find_last_of(' ');
    if (space != std::string::npos)
        head = head.substr(space + 1);
    const std::size_t scope = head.rfind("::");
    if (scope != std::string::npos)
        head = head.substr(scope + 2);
    return head.empty() ? signature : head;
}

std::vector<KernelCounters> parseNcuCsv(const std::string& text) {
    // ncu's own lines (==PROF==, ==WARNING==, ==ERROR==) come before and after the table; rows
    // are numbered within the table, its header first.
    std::string table;
    std::string said;
    for (std::size_t at = 0; at < text.size();) {
        std::size_t end = text.find('\n', at);
        if (end == std::string::npos)
            end = text.size();
        const std::string line = text.substr(at, end - at);
        if (line.rfind("==", 0) == 0)
            said += line + "\n";
        else if (!line.empty() && line != "\r")
            table += line + "\n";
        at = end + 1;
    }
    const auto rows = readCsv(table);
    std::size_t header = rows.size();
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (!rows[i].empty() && rows[i][0] == "ID") {
            header = i;
            break;
        }
    if (header == rows.size())
        throw Error("ncu's report has no header row (one that starts with \"ID\"): it profiled "
                    "nothing, or it is not a raw page in CSV" +
                    (said.empty() ? std::string() : "; ncu said: " + textTail(said, 600)));
    const auto& names = rows[header];
    std::map<std::string, std::size_t> column;
    for (std::size_t c = 0; c < names.size(); ++c)
        column.emplace(names[c], c);
    for (const char* required : {"Kernel Name"})
        if (!column.count(required))
            throw Error(std::string("ncu's report has no column \"") + required + "\"");
    std::vector<double> scale(names.size(), 1.0);
    std::size_t first = header + 1;
    if (first < rows.size() && !rows[first].empty() && rows[first][0].empty()) {
        // The page holds every launch attribute beside the metrics asked for, in units of its
        // own (block, warp, SM, ...); only the units of the metrics read here must be known.
        const auto& asked = ncuMetrics();
        const auto& units = rows[first];
        for (std::size_t c = 0; c < units.size() && c < names.size(); ++c) {
            if (std::find(asked.begin(), asked.end(), names[c]) == asked.end())
                continue;
            const auto s = unitScale(units[c]);
            if (!s)
                throw Error("ncu's report, column " + names[c] + ": unknown unit \"" +
                            units[c].substr(0, 40) + "\"");
            scale[c] = *s;
        }
        ++first;
    }

    std::vector<KernelCounters> kernels;
    std::map<std::string, std::size_t> kernelIndex;
    for (std::size_t r = first; r < rows.size(); ++r) {
        const auto& row = rows[r];
        const std::size_t rowNumber = r - header + 1;
        if (row.size() == 1 && row[0].empty())
            continue;
        if (row.size() != names.size())
            throw Error("ncu's report, row " + std::to_string(rowNumber) + ": " +
                        std::to_string(row.size()) + " fields where the header has " +
                        std::to_string(names.size()));
        const auto field = [&](const char* name) {
            const auto found = column.find(name);
            return found == column.end() ? std::string() : row[found->second];
        };
        const auto number = [&](const std::string& name) -> std::optional<double> {
            const auto found = column.find(name);
            if (found == column.end())
                return std::nullopt;
            const auto v = parseNumber(row[found->second], rowNumber, name);
            return v ? std::optional<double>(*v * scale[found->second]) : std::nullopt;
        };
        KernelCounters k;
        const std::string fullName = field("Kernel Name");
        if (fullName.empty())
            throw Error("ncu's report, row " + std::to_string(rowNumber) + ": no kernel name");
        k.kernel = kernelBaseName(fullName);
        if (k.kernel != fullName)
            k.signature = fullName;
        k.grid = field("Grid Size");
        k.block = field("Block Size");
        k.durationNs = number(kDuration);
        k.computeThroughputPct = number(kCompute);
        k.memoryThroughputPct = number(kMemory);
        k.achievedOccupancyPct = number(kOccupancy);
        k.dramBytesRead = number(kDramRead);
        k.dramBytesWritten = number(kDramWrite);
        k.registersPerThread = number(kRegisters);
        for (const auto& [name, weight] : flopMetrics())
            if (const auto v = number(name))
                k.flops = k.flops.value_or(0) + weight * *v;
        const auto [at, added] = kernelIndex.emplace(fullName, kernels.size());
        if (added) {
            kernels.push_back(std::move(k));
            continue;
        }
        // A call may launch a kernel at several sizes (the small preset's trial before the one
        // asked for); the longest launch is the one the preset's figures describe.
        KernelCounters& kept = kernels[at->second];
        const int launches = kept.launches + 1;
        if (k.durationNs.value_or(0) > kept.durationNs.value_or(0))
            kept = std::move(k);
        kept.launches = launches;
    }
    return kernels;
}

nlohmann::json toJson(const KernelCounters& k) {
    return {{"kernel", k.kernel},
            {"signature", k.signature},
            {"grid", k.grid},
            {"block", k.block},
            {"duration_ns", optionalJson(k.durationNs)},
            {"compute_throughput_pct", optionalJson(k.computeThroughputPct)},
            {"memory_throughput_pct", optionalJson(k.memoryThroughputPct)},
            {"achieved_occupancy_pct", optionalJson(k.achievedOccupancyPct)},
            {"dram_bytes_read", optionalJson(k.dramBytesRead)},
            {"dram_bytes_written", optionalJson(k.dramBytesWritten)},
            {"flops", optionalJson(k.flops)},
            {"registers_per_thread", optionalJson(k.registersPerThread)},
            {"launches", k.launches},
            {"arithmetic_intensity", optionalJson(k.arithmeticIntensity())},
            {"flops_per_second", optionalJson(k.flopsPerSecond())},
            {"limiter", k.limiter()}};
}

nlohmann::json toJson(const CounterReport& r) {
    nlohmann::json candidate = nlohmann::json::array();
    for (const auto& k : r.candidate)
        candidate.push_back(toJson(k));
    nlohmann::json reference = nlohmann::json::array();
    for (const auto& k : r.reference)
        reference.push_back(toJson(k));
    return {{"tool",
             r.tool.empty() ? std::string() : std::filesystem::path(r.tool).filename().string()},
            {"version", r.version},
            {"candidate", candidate},
            {"reference", reference},
            {"error", r.error}};
}

CounterReport counterReportFromJson(const nlohmann::json& j) {
    if (!j.is_object())
        throw Error("counter report: not an object");
    CounterReport r;
    const auto text = [&](const nlohmann::json& from, const char* key) {
        if (!from.contains(key))
            return std::string();
        if (!from[key].is_string())
            throw Error(std::string("counter report: ") + key + " must be text");
        return from[key].get<std::string>();
    };
    r.tool = text(j, "tool");
    r.version = text(j, "version");
    r.error = text(j, "error");
    for (const char* side : {"candidate", "reference"}) {
        if (!j.contains(side))
            continue;
        if (!j[side].is_array())
            throw Error(std::string("counter report: ") + side + " must be a list");
        for (const auto& k : j[side]) {
            if (!k.is_object())
                throw Error(std::string("counter report: an entry of ") + side +
                            " is not an object");
            KernelCounters c;
            c.kernel = text(k, "kernel");
            if (c.kernel.empty())
                throw Error("counter report: a kernel has no name");
            c.signature = text(k, "signature");
            c.grid = text(k, "grid");
            c.block = text(k, "block");
            c.durationNs = optionalFrom(k, "duration_ns");
            c.computeThroughputPct = optionalFrom(k, "compute_throughput_pct");
            c.memoryThroughputPct = optionalFrom(k, "memory_throughput_pct");
            c.achievedOccupancyPct = optionalFrom(k, "achieved_occupancy_pct");
            c.dramBytesRead = optionalFrom(k, "dram_bytes_read");
            c.dramBytesWritten = optionalFrom(k, "dram_bytes_written");
            c.flops = optionalFrom(k, "flops");
            c.registersPerThread = optionalFrom(k, "registers_per_thread");
            if (k.contains("launches")) {
                if (!k["launches"].is_number_integer() || k["launches"].get<long long>() < 1 ||
                    k["launches"].get<long long>() > 1000000)
                    throw Error("counter report: launches must be a whole number from 1");
                c.launches = k["launches"].get<int>();
            }
            (std::string(side) == "candidate" ? r.candidate : r.reference).push_back(c);
        }
    }
    return r;
}

CounterReport counterReportFromDocument(const nlohmann::json& document, const std::string& task) {
    if (!document.is_object())
        throw Error("a counter document must be a JSON object");
    if (document.contains("counters"))
        return counterReportFromJson(document["counters"]);
    if (document.contains("results")) {
        const auto& results = document["results"];
        if (!results.is_array())
            throw Error("the result file's results are not a list");
        const nlohmann::json* found = nullptr;
        for (const auto& entry : results) {
            if (!entry.is_object() || !entry.contains("counters"))
                continue;
            const std::string name = entry.value("task", std::string());
            if (task.empty() ? results.size() == 1 : name == task)
                found = &entry;
        }
        if (!found)
            throw Error(task.empty() ? std::string("the result file holds the counters of several "
                                                   "tasks: name one")
                                     : "the result file has no counters of task " + task);
        return counterReportFromJson((*found)["counters"]);
    }
    if (document.contains("candidate") || document.contains("error"))
        return counterReportFromJson(document);
    throw Error("the document holds no counters (dice eval --profile --json or dice bench "
                "counters writes them)");
}

} // namespace dice
