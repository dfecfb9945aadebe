// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/eval/metrics.h"

#include "core/common/number_format.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

namespace dice {

namespace {

MetricsRow rowOf(const std::string& scope, const std::vector<const TaskOutcome*>& outcomes,
                 const std::vector<double>& thresholds, bool strict) {
    MetricsRow row;
    row.scope = scope;
    row.tasks = static_cast<int>(outcomes.size());
    row.fast.assign(thresholds.size(), 0.0);
    std::vector<int> fastCounts(thresholds.size(), 0);
    double logCorrect = 0;
    double logFaster = 0;
    for (const TaskOutcome* o : outcomes) {
        if (!o->result)
            continue;
        const EvaluationResult& r = *o->result;
        if (r.compiled)
            ++row.compiled;
        if (!r.compiled || !r.countsAsCorrect(strict))
            continue;
        ++row.correct;
        if (r.speedup > 0) {
            ++row.timed;
            logCorrect += std::log(r.speedup);
            if (r.speedup > 1) {
                ++row.faster;
                logFaster += std::log(r.speedup);
            }
        }
        for (std::size_t i = 0; i < thresholds.size(); ++i)
            if (r.speedup > thresholds[i])
                ++fastCounts[i];
    }
    if (row.tasks > 0) {
        row.compileRate = static_cast<double>(row.compiled) / row.tasks;
        row.exec = static_cast<double>(row.correct) / row.tasks;
        for (std::size_t i = 0; i < thresholds.size(); ++i)
            row.fast[i] = static_cast<double>(fastCounts[i]) / row.tasks;
    }
    row.geomeanCorrect = row.timed > 0 ? std::exp(logCorrect / row.timed) : 0;
    row.geomeanFaster = row.faster > 0 ? std::exp(logFaster / row.faster) : 0;
    return row;
}

std::string thresholdName(double p) {
    std::ostringstream out;
    out << "fast_" << p;
    return out.str();
}

} // namespace

MetricsTable computeMetrics(const std::vector<TaskOutcome>& outcomes) {
    MetricsTable table;
    std::map<int, std::vector<const TaskOutcome*>> byLevel;
    std::vector<const TaskOutcome*> all;
    for (const auto& o : outcomes) {
        byLevel[o.level].push_back(&o);
        all.push_back(&o);
    }
    for (bool strict : {false, true}) {
        auto& rows = strict ? table.strict : table.raw;
        for (const auto& [level, list] : byLevel)
            rows.push_back(rowOf("level " + std::to_string(level), list, table.thresholds, strict));
        rows.push_back(rowOf("all", all, table.thresholds, strict));
    }
    return table;
}

nlohmann::json toJson(const MetricsTable& table) {
    auto rows = [&](const std::vector<MetricsRow>& list) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& r : list) {
            nlohmann::json row = {{"scope", r.scope},
                                  {"tasks", r.tasks},
                                  {"compiled", r.compiled},
                                  {"correct", r.correct},
                                  {"compile_rate", r.compileRate},
                                  {"exec", r.exec},
                                  {"geomean_speedup_correct", r.geomeanCorrect},
                                  {"geomean_speedup_faster", r.geomeanFaster},
                                  {"timed", r.timed},
                                  {"faster", r.faster}};
            for (std::size_t i = 0; i < table.thresholds.size(); ++i)
                row[thresholdName(table.thresholds[i])] = r.fast[i];
            out.push_back(row);
        }
        return out;
    };
    return {
        {"thresholds", table.thresholds}, {"raw", rows(table.raw)}, {"strict", rows(table.strict)}};
}

std::string formatMetricsTable(const MetricsTable& table) {
    std::ostringstream out;
    auto percent = [](double v) { return formatFixed(100.0 * v, 1); };
    auto times = [](double v) { return v <= 0 ? std::string("-") : formatFixed(v, 2) + "x"; };
    for (bool strict : {false, true}) {
        const auto& rows = strict ? table.strict : table.raw;
        out << (strict ? "strict (fallbacks never count)\n" : "raw (fallbacks count)\n");
        out << std::left << std::setw(9) << "scope" << std::right << std::setw(6) << "tasks"
            << std::setw(9) << "compile%" << std::setw(7) << "exec%";
        for (double p : table.thresholds)
            out << std::setw(9) << thresholdName(p);
        out << std::setw(10) << "geo(corr)" << std::setw(10) << "geo(fast)"
            << "\n";
        for (const auto& r : rows) {
            out << std::left << std::setw(9) << r.scope << std::right << std::setw(6) << r.tasks
                << std::setw(9) << percent(r.compileRate) << std::setw(7) << percent(r.exec);
            for (double f : r.fast)
                out << std::setw(9) << percent(f);
            out << std::setw(10) << times(r.geomeanCorrect) << std::setw(10)
                << times(r.geomeanFaster) << "\n";
        }
        if (!strict)
            out << "\n";
    }
    return out.str();
}

} // namespace dice
