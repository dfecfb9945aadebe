// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/eval/metrics.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <cmath>

using namespace dice;

namespace {

EvaluationResult result(Verdict verdict, double speedup, bool compiled = true) {
    EvaluationResult r;
    r.verdict = verdict;
    r.compiled = compiled;
    r.speedup = speedup;
    TrialResult t;
    t.passed = verdict == Verdict::Correct || verdict == Verdict::Fallback;
    r.trials.push_back(t);
    return r;
}

const MetricsRow& row(const std::vector<MetricsRow>& rows, const std::string& scope) {
    for (const auto& r : rows)
        if (r.scope == scope)
            return r;
    throw std::runtime_error("no row " + scope);
}

} // namespace

// Expected numbers are worked out by hand from KernelBench's definitions (score.py): fast_p is
// the share of all tasks that are correct with speedup > p; geometric means over correct (timed)
// results and over correct results faster than 1x.
class TestMetrics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void paperMetrics() {
        std::vector<TaskOutcome> outcomes = {
            {"a", 1, result(Verdict::Correct, 2.0)},
            {"b", 1, result(Verdict::Correct, 0.5)},
            {"c", 1, result(Verdict::CompileError, 0, false)},
            {"d", 1, std::nullopt},
            {"e", 2, result(Verdict::Fallback, 4.0)},
            {"f", 2, result(Verdict::Correct, 1.2)},
        };
        const MetricsTable t = computeMetrics(outcomes);
        QCOMPARE(t.thresholds, (std::vector<double>{0, 0.5, 0.8, 1.0, 1.5, 2.0}));

        const auto& l1 = row(t.raw, "level 1");
        QCOMPARE(l1.tasks, 4);
        QCOMPARE(l1.compileRate, 0.5);
        QCOMPARE(l1.exec, 0.5);
        QCOMPARE(l1.fast, (std::vector<double>{0.5, 0.25, 0.25, 0.25, 0.25, 0.0}));
        QVERIFY(std::abs(l1.geomeanCorrect - 1.0) < 1e-12);
        QVERIFY(std::abs(l1.geomeanFaster - 2.0) < 1e-12);

        const auto& l2raw = row(t.raw, "level 2");
        QCOMPARE(l2raw.exec, 1.0);
        QCOMPARE(l2raw.fast, (std::vector<double>{1.0, 1.0, 1.0, 1.0, 0.5, 0.5}));
        QVERIFY(std::abs(l2raw.geomeanCorrect - std::sqrt(4.8)) < 1e-12);

        const auto& l2strict = row(t.strict, "level 2");
        QCOMPARE(l2strict.exec, 0.5);
        QCOMPARE(l2strict.fast, (std::vector<double>{0.5, 0.5, 0.5, 0.5, 0.0, 0.0}));
        QVERIFY(std::abs(l2strict.geomeanCorrect - 1.2) < 1e-12);

        const auto& all = row(t.raw, "all");
        QCOMPARE(all.tasks, 6);
        QVERIFY(std::abs(all.compileRate - 4.0 / 6) < 1e-12);
        QVERIFY(std::abs(all.fast[3] - 0.5) < 1e-12);
        QVERIFY(std::abs(all.fast[5] - 1.0 / 6) < 1e-12);
        QVERIFY(std::abs(all.geomeanCorrect - std::pow(4.8, 0.25)) < 1e-12);

        const auto j = toJson(t);
        QCOMPARE(j["strict"][1]["fast_1"].get<double>(), 0.5);
        const std::string text = formatMetricsTable(t);
        QVERIFY2(text.find("strict (fallbacks never count)") != std::string::npos, text.c_str());
        QVERIFY2(text.find("fast_1.5") != std::string::npos, text.c_str());
    }

    void emptySuite() {
        const MetricsTable t = computeMetrics({});
        QCOMPARE(t.raw.size(), size_t(1));
        QCOMPARE(t.raw[0].tasks, 0);
        QCOMPARE(t.raw[0].geomeanCorrect, 0.0);
    }
};

QTEST_GUILESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
