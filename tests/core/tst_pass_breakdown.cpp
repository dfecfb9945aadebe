// SPDX-License-Identifier: GPL-3.0-or-later
// The model benchmark's per-pass kernel breakdown: names as a reader should see them, time and
// launches divided by the passes, overlapping kernels counted once in the busy time, and the JSON
// that lists the longest kernels and adds up the rest. Every expected figure is worked out by hand.
#include "core/bench/pass_breakdown.h"
#include "core/common/error.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

using namespace dice;

namespace {

constexpr std::uint64_t kMs = 1000000; // nanoseconds

KernelRecord record(const std::string& name, std::uint64_t startNs, std::uint64_t endNs) {
    KernelRecord r;
    r.name = name;
    r.startNs = startNs;
    r.endNs = endNs;
    return r;
}

const KernelShare* find(const PassBreakdown& b, const std::string& name) {
    for (const auto& k : b.kernels)
        if (k.name == name)
            return &k;
    return nullptr;
}

// Kernels of 5, 3, 2 and 1 ms one after another in one pass.
PassBreakdown fourKernels() {
    return passBreakdown({record("d", 0, 1 * kMs), record("c", 1 * kMs, 3 * kMs),
                          record("b", 3 * kMs, 6 * kMs), record("a", 6 * kMs, 11 * kMs)},
                         1);
}

} // namespace

class TestPassBreakdown : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void mangledNamesAreDemangledWithoutParameters() {
        const std::string fill = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_"
                                 "11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_";
        const auto b = passBreakdown({record(fill, 0, kMs)}, 1);
        QCOMPARE(b.kernels.size(), size_t(1));
        const std::string name = b.kernels[0].name;
        QVERIFY2(name.rfind("at::native::vectorized_elementwise_kernel<4, "
                            "at::native::FillFunctor<float>",
                            0) == 0,
                 name.c_str());
        QVERIFY2(name.find('(') == std::string::npos, name.c_str());
        QVERIFY2(name.back() == '>', name.c_str());
    }

    void plainNamesStayThemselves() {
        // "f" is also the encoding of the type float: it must not come back as "float".
        const auto b = passBreakdown({record("add_rms_norm", 0, 2 * kMs), record("f", 0, kMs)}, 1);
        QVERIFY(find(b, "add_rms_norm"));
        QVERIFY(find(b, "f"));
        QCOMPARE(b.kernels.size(), size_t(2));
    }

    void otherSymbolsLoseTheirParametersAndBadOnesStayRaw() {
        // _Z3fooi is foo(int); a name the demangler rejects is kept as CUPTI gave it.
        const auto b =
            passBreakdown({record("_Z3fooi", 0, 2 * kMs), record("_Znot_a_symbol", 0, kMs)}, 1);
        QVERIFY(find(b, "foo"));
        QVERIFY(find(b, "_Znot_a_symbol"));
    }

    void onlyTheLastBalancedParameterListIsDropped() {
        const auto b = passBreakdown({record("void k<f(int)>(float, g(int))", 0, kMs)}, 1);
        QCOMPARE(b.kernels[0].name, std::string("k<f(int)>"));
    }

    void longNamesAreCut() {
        const auto b = passBreakdown({record(std::string(300, 'k'), 0, kMs)}, 1);
        const std::string name = b.kernels[0].name;
        QCOMPARE(name.size(), size_t(160));
        QCOMPARE(name.substr(name.size() - 3), std::string("..."));
        QCOMPARE(name.substr(0, 157), std::string(157, 'k'));
    }

    void launchesAndTimeAreDividedByThePasses() {
        // A: 1 + 2 + 3 = 6 ms in 3 launches, B: 1 ms in 1 launch, over 2 passes.
        const auto b = passBreakdown({record("A", 0, 1 * kMs), record("B", 1 * kMs, 2 * kMs),
                                      record("A", 2 * kMs, 4 * kMs), record("A", 4 * kMs, 7 * kMs)},
                                     2);
        QCOMPARE(b.passes, 2);
        QCOMPARE(b.kernels.size(), size_t(2));
        QCOMPARE(b.kernels[0].name, std::string("A"));
        QCOMPARE(b.kernels[0].msPerPass, 3.0);
        QCOMPARE(b.kernels[0].launchesPerPass, 1.5);
        QCOMPARE(b.kernels[1].name, std::string("B"));
        QCOMPARE(b.kernels[1].msPerPass, 0.5);
        QCOMPARE(b.kernels[1].launchesPerPass, 0.5);
        QCOMPARE(b.kernelMsPerPass, 3.5);
        QCOMPARE(b.busyMsPerPass, 3.5);
    }

    void overlappingKernelsAreBusyOnce() {
        // [0,4) holds [1,2) and meets [3,6): busy 0..6, then 10..11; the sum is 4+1+3+1.
        // A record that ends before it starts is a launch of no length.
        const auto b = passBreakdown(
            {record("A", 0, 4 * kMs), record("B", 1 * kMs, 2 * kMs), record("C", 3 * kMs, 6 * kMs),
             record("D", 10 * kMs, 11 * kMs), record("E", 20 * kMs, 19 * kMs)},
            1);
        QCOMPARE(b.kernelMsPerPass, 9.0);
        QCOMPARE(b.busyMsPerPass, 7.0);
        const KernelShare* e = find(b, "E");
        QVERIFY(e);
        QCOMPARE(e->msPerPass, 0.0);
        QCOMPARE(e->launchesPerPass, 1.0);
    }

    void longestFirstThenByName() {
        const auto b =
            passBreakdown({record("b", 0, 2 * kMs), record("d", 2 * kMs, 3 * kMs),
                           record("a", 3 * kMs, 5 * kMs), record("c", 5 * kMs, 10 * kMs)},
                          1);
        QCOMPARE(b.kernels.size(), size_t(4));
        QCOMPARE(b.kernels[0].name, std::string("c"));
        QCOMPARE(b.kernels[1].name, std::string("a"));
        QCOMPARE(b.kernels[2].name, std::string("b"));
        QCOMPARE(b.kernels[3].name, std::string("d"));
    }

    void jsonListsTheTopAndAddsUpTheRest() {
        // 5 + 3 listed, 2 + 1 other; 11 ms busy of a 20 ms pass.
        const auto j = toJson(fourKernels(), 20.0, 2);
        QCOMPARE(j["passes"].get<int>(), 1);
        QCOMPARE(j["kernel_ms_per_pass"].get<double>(), 11.0);
        QCOMPARE(j["busy_ms_per_pass"].get<double>(), 11.0);
        QCOMPARE(j["idle_ms_per_pass"].get<double>(), 9.0);
        QCOMPARE(j["other_ms_per_pass"].get<double>(), 3.0);
        QCOMPARE(j["kernels"].size(), size_t(2));
        QCOMPARE(j["kernels"][0]["name"].get<std::string>(), std::string("a"));
        QCOMPARE(j["kernels"][0]["ms_per_pass"].get<double>(), 5.0);
        QCOMPARE(j["kernels"][0]["launches_per_pass"].get<double>(), 1.0);
        QCOMPARE(j["kernels"][0]["share_of_pass"].get<double>(), 0.25);
        QCOMPARE(j["kernels"][1]["name"].get<std::string>(), std::string("b"));
        QCOMPARE(j["kernels"][1]["share_of_pass"].get<double>(), 0.15);
    }

    void defaultTopIsTwelve() {
        std::vector<KernelRecord> records;
        for (int i = 0; i < 14; ++i)
            records.push_back(record("k" + std::to_string(i), 0, kMs));
        const auto j = toJson(passBreakdown(records, 1), 20.0);
        QCOMPARE(j["kernels"].size(), size_t(12));
        QCOMPARE(j["other_ms_per_pass"].get<double>(), 2.0);
    }

    void idleIsNeverNegative() {
        // A pass measured at 5 ms whose kernels were busy 11 ms.
        const auto j = toJson(fourKernels(), 5.0);
        QCOMPARE(j["idle_ms_per_pass"].get<double>(), 0.0);
        QCOMPARE(j["other_ms_per_pass"].get<double>(), 0.0);
        QCOMPARE(j["kernels"].size(), size_t(4));
    }

    void noPassesIsAnError() {
        QVERIFY_THROWS_EXCEPTION(Error, passBreakdown({record("A", 0, kMs)}, 0));
        QVERIFY_THROWS_EXCEPTION(Error, passBreakdown({}, -1));
    }
};

QTEST_GUILESS_MAIN(TestPassBreakdown)
#include "tst_pass_breakdown.moc"
