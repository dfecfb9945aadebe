// SPDX-License-Identifier: GPL-3.0-or-later
// Nsight Compute's raw page read into per-kernel counters (tests/fixtures/ncu), the ncu command
// the profile runs, and the whole collection through a stand-in ncu that writes that page.
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/cuda/ncu_report.h"
#include "core/cuda/nsight_compute.h"

#include <QProcess>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace dice;

namespace {

const std::string kPage = DICE_TEST_FIXTURES "/ncu/raw_page.csv";

// A stand-in for ncu: prints a version, or copies the fixture to the file after --log-file.
std::string writeFakeNcu(const std::string& folder, const std::string& page) {
    const std::string path = folder + "/ncu";
    std::ofstream(path) << "#!/bin/sh\n"
                           "if [ \"$1\" = --version ]; then echo 'NVIDIA (R) Nsight Compute "
                           "Command Line Profiler'; echo 'Version 2025.3.1.0 (build 1)'; exit 0; "
                           "fi\n"
                           "while [ $# -gt 0 ]; do\n"
                           "  if [ \"$1\" = --log-file ]; then cp '"
                        << page
                        << "' \"$2\"; fi\n"
                           "  shift\n"
                           "done\n";
    ::chmod(path.c_str(), 0755);
    return path;
}

class ScopedVariable {
public:
    ScopedVariable(const char* name, const std::string& value)
        : m_name(name) {
        ::setenv(name, value.c_str(), 1);
    }
    ~ScopedVariable() { ::unsetenv(m_name); }
    ScopedVariable(const ScopedVariable&) = delete;
    ScopedVariable& operator=(const ScopedVariable&) = delete;

private:
    const char* m_name;
};

void expectRejected(const std::string& page, const std::string& phrase) {
    try {
        parseNcuCsv(page);
        QFAIL(("accepted: " + page).c_str());
    } catch (const Error& e) {
        QVERIFY2(std::string(e.what()).find(phrase) != std::string::npos, e.what());
    }
}

} // namespace

class TestNsightCompute : public QObject {
    Q_OBJECT

private slots:
    void readsTheRawPage() {
        const auto kernels = parseNcuCsv(readTextFile(kPage));
        // relu_map was launched twice: its longer launch is kept, and both are counted.
        QCOMPARE(kernels.size(), std::size_t(2));
        const KernelCounters& relu = kernels[0];
        QCOMPARE(relu.kernel, std::string("relu_map"));
        QCOMPARE(relu.launches, 2);
        QCOMPARE(relu.grid, std::string("(262144, 1, 1)"));
        QCOMPARE(relu.block, std::string("(256, 1, 1)"));
        // 268.435456 Mbyte and "268,435,456" byte are the same 2^28 bytes.
        QCOMPARE(*relu.dramBytesRead, 268435456.0);
        QCOMPARE(*relu.dramBytesWritten, 268435456.0);
        QCOMPARE(*relu.durationNs, 35500.0); // 35.5 usecond
        QCOMPARE(*relu.memoryThroughputPct, 92.31);
        QCOMPARE(*relu.computeThroughputPct, 21.4);
        QCOMPARE(*relu.achievedOccupancyPct, 81.25);
        QCOMPARE(*relu.registersPerThread, 32.0);
        QCOMPARE(*relu.flops, 1048576.0);
        QCOMPARE(*relu.arithmeticIntensity(), 1048576.0 / 536870912.0);
        QCOMPARE(*relu.flopsPerSecond(), 1048576.0 / 35.5e-6);
        QCOMPARE(relu.limiter(), std::string("memory"));

        const KernelCounters& bias = kernels[1];
        QCOMPARE(bias.kernel, std::string("add_bias"));
        QCOMPARE(*bias.dramBytesRead, 500000.0);
        QCOMPARE(*bias.durationNs, 2000250.0);
        // "n/a" is no measurement: the figure stays empty rather than zero.
        QVERIFY(!bias.achievedOccupancyPct);
        // fp32 10 + 20 + 2 x 30, fp64 1 + 2 + 2 x 3, fp16 4 + 5 + 2 x 6.
        QCOMPARE(*bias.flops, 90.0 + 9.0 + 21.0);
        QCOMPARE(bias.limiter(), std::string("compute"));
    }

    // A page ncu 2025.3 wrote on an H100 for the built-in relu solution at the bench preset
    // (scripts/gpu-check.sh counters, before the poison fills were stepped out of the candidate's
    // range and the small preset's trials were left out): every launch attribute in units of its
    // own ("ns", "block", "SM", ...), numbers with thousands separators, the bench preset's two
    // launches of relu_map and then the small preset's four.
    // The expected figures are the page's own, read with Python's csv module.
    void readsARealH100Page() {
        const auto kernels =
            parseNcuCsv(readTextFile(DICE_TEST_FIXTURES "/ncu/h100_relu_candidate.csv"));
        QCOMPARE(kernels.size(), std::size_t(2));
        const auto relu = std::find_if(kernels.begin(), kernels.end(), [](const KernelCounters& k) {
            return k.kernel == "relu_map";
        });
        QVERIFY(relu != kernels.end());
        QCOMPARE(relu->launches, 6);
        QCOMPARE(relu->grid, std::string("(393216, 1, 1)"));
        QCOMPARE(*relu->durationNs, 4274656.0);
        QCOMPARE(*relu->dramBytesRead, 6442704384.0);
        QCOMPARE(*relu->dramBytesWritten, 6421177856.0);
        QCOMPARE(*relu->memoryThroughputPct, 89.77);
        QCOMPARE(*relu->computeThroughputPct, 8.31);
        QCOMPARE(*relu->achievedOccupancyPct, 79.88);
        QCOMPARE(*relu->registersPerThread, 32.0);
        // ReLU is a comparison: no floating-point add, multiply or FMA was executed.
        QCOMPARE(*relu->flops, 0.0);
        QCOMPARE(relu->limiter(), std::string("memory"));
        // About 3 TB/s: the H100's memory, near its 3.35 TB/s peak.
        const double bytesPerSecond = *relu->dramBytes() / (*relu->durationNs * 1e-9);
        QVERIFY2(bytesPerSecond > 2.5e12 && bytesPerSecond < 3.4e12,
                 std::to_string(bytesPerSecond).c_str());
    }

    void kernelBaseNamesComeOutOfSignatures() {
        QCOMPARE(kernelBaseName("relu_map"), std::string("relu_map"));
        QCOMPARE(kernelBaseName("void at::native::vectorized_elementwise_kernel<4, "
                                "at::native::CUDAFunctor_add<float>, at::detail::Array<char *, "
                                "3>>(int, T2, T3)"),
                 std::string("vectorized_elementwise_kernel"));
        QCOMPARE(kernelBaseName("void cunn_SoftMaxForward<4, float, float, float, "
                                "Epilogue>(T4 *, const T2 *, int)"),
                 std::string("cunn_SoftMaxForward"));
        QCOMPARE(kernelBaseName("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8"),
                 std::string("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8"));
        QCOMPARE(kernelBaseName("void (anonymous namespace)::k<(int)3>(float *)"),
                 std::string("k"));
    }

    // PyTorch runs every elementwise op in a function named vectorized_elementwise_kernel: with
    // demangled names, two ops of a reference stay two kernels, each at its own longest launch.
    void demangledNamesKeepPyTorchsOpsApart() {
        const std::string gt = "void at::native::vectorized_elementwise_kernel<4, "
                               "at::native::CompareGTFunctor<float>, at::detail::Array<char *, "
                               "2>>(int, T2, T3)";
        const std::string where = "void at::native::vectorized_elementwise_kernel<4, "
                                  "at::native::where_kernel_impl<float>, at::detail::Array<char "
                                  "*, 4>>(int, T2, T3)";
        const auto row = [](int id, const std::string& kernel, const char* ns) {
            std::string quoted;
            for (const char c : kernel)
                quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
            return "\"" + std::to_string(id) + "\",\"" + quoted +
                   "\",\"(128, 1, 1)\",\"(393216, 1, 1)\",\"" + ns + "\"\n";
        };
        const std::string page =
            "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"gpu__time_duration.sum\"\n"
            "\"\",\"\",\"\",\"\",\"ns\"\n" +
            row(0, gt, "1,000") + row(1, where, "3,000") + row(2, gt, "1,200");
        const auto kernels = parseNcuCsv(page);
        QCOMPARE(kernels.size(), std::size_t(2));
        QCOMPARE(kernels[0].kernel, std::string("vectorized_elementwise_kernel"));
        QCOMPARE(kernels[0].signature, gt);
        QCOMPARE(kernels[0].launches, 2);
        QCOMPARE(*kernels[0].durationNs, 1200.0);
        QCOMPARE(kernels[1].signature, where);
        QCOMPARE(kernels[1].launches, 1);
        QCOMPARE(*kernels[1].durationNs, 3000.0);
        const CounterReport back =
            counterReportFromJson(toJson(CounterReport{"ncu", "", kernels, {}, ""}));
        QCOMPARE(back.candidate[1].signature, where);
    }

    void limiterNamesLatencyWhenNeitherUnitIsBusy() {
        KernelCounters k;
        QCOMPARE(k.limiter(), std::string());
        k.computeThroughputPct = 30;
        k.memoryThroughputPct = 45;
        QCOMPARE(k.limiter(), std::string("latency"));
        QVERIFY(!k.arithmeticIntensity());
    }

    void rejectsWhatIsNotARawPage() {
        expectRejected("", "no header row");
        expectRejected("==ERROR== ERR_NVGPUCTRPERM - no permission\n", "ERR_NVGPUCTRPERM");
        expectRejected("\"ID\",\"Process ID\"\n\"0\",\"1\"\n", "no column \"Kernel Name\"");
        expectRejected("\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"0\",\"k\"\n",
                       "2 fields where the header has 3");
        expectRejected("\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"0\",\"k\",\"fast\"\n",
                       "is not a number");
        expectRejected(
            "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"fortnight\"\n",
            "unknown unit");
        expectRejected("\"ID\",\"Kernel Name\"\n\"0\",\"k\n", "inside a quoted field");
        expectRejected("\"ID\",\"Kernel Name\"\n\"0\",\"\"\n", "no kernel name");
    }

    void commandProfilesOneRangeIntoTheLogFile() {
        const auto argv = ncuCommand("ncu", kCandidateRange, "page.csv",
                                     {"dice", "eval", "relu", "relu.dice"}, 16);
        const auto after = [&](const std::string& option) {
            const auto it = std::find(argv.begin(), argv.end(), option);
            return it == argv.end() || it + 1 == argv.end() ? std::string() : *(it + 1);
        };
        QCOMPARE(argv.front(), std::string("ncu"));
        QCOMPARE(after("--nvtx-include"), std::string(kCandidateRange) + "/");
        QCOMPARE(after("--page"), std::string("raw"));
        QCOMPARE(after("--print-kernel-base"), std::string("demangled"));
        QCOMPARE(after("--log-file"), std::string("page.csv"));
        QCOMPARE(after("--launch-count"), std::string("16"));
        // The evaluator's timings run at the clocks the GPU has: ncu must not lock them.
        QCOMPARE(after("--clock-control"), std::string("none"));
        const std::string metrics = after("--metrics");
        for (const auto& m : ncuMetrics())
            QVERIFY2(metrics.find(m) != std::string::npos, m.c_str());
        QVERIFY(std::find(argv.begin(), argv.end(), "--nvtx") != argv.end());
        // The profiled program comes last, whole.
        QCOMPARE(std::vector<std::string>(argv.end() - 4, argv.end()),
                 (std::vector<std::string>{"dice", "eval", "relu", "relu.dice"}));
    }

    void findsNcuNamedByTheVariable() {
        const TemporaryFolder folder("dice-ncu-test");
        const std::string fake = writeFakeNcu(folder.path(), kPage);
        {
            const ScopedVariable named("DICE_NCU", fake);
            QCOMPARE(findNcu(), fake);
        }
        {
            const ScopedVariable named("DICE_NCU", folder.path() + "/missing");
            QCOMPARE(findNcu(), std::string());
            const CounterReport none = collectCounters({"true"});
            QVERIFY(!none.ok());
            QVERIFY2(none.error.find("DICE_NCU") != std::string::npos, none.error.c_str());
            QVERIFY(none.candidate.empty() && none.reference.empty());
        }
    }

    void collectsBothRangesThroughNcu() {
        const TemporaryFolder folder("dice-ncu-test");
        const ScopedVariable named("DICE_NCU", writeFakeNcu(folder.path(), kPage));
        const CounterReport report = collectCounters({"true"});
        QVERIFY2(report.ok(), report.error.c_str());
        QCOMPARE(report.version, std::string("Version 2025.3.1.0 (build 1)"));
        QCOMPARE(report.candidate.size(), std::size_t(2));
        QCOMPARE(report.reference.size(), std::size_t(2));
        QCOMPARE(report.candidate[0].kernel, std::string("relu_map"));

        // A page with a header but no launch: nothing ran inside the range.
        const std::string empty = folder.path() + "/empty.csv";
        std::ofstream(empty) << "\"ID\",\"Kernel Name\"\n";
        const TemporaryFolder other("dice-ncu-test");
        const ScopedVariable again("DICE_NCU", writeFakeNcu(other.path(), empty));
        const CounterReport none = collectCounters({"true"});
        QVERIFY(!none.ok());
        QVERIFY2(none.error.find("no kernel inside the candidate's calls") != std::string::npos,
                 none.error.c_str());
    }

    void reportsRoundTripThroughJson() {
        CounterReport r;
        r.tool = "nsight-compute/2025.3.1/ncu";
        r.version = "Version 2025.3.1.0";
        r.candidate = parseNcuCsv(readTextFile(kPage));
        r.reference = {r.candidate[1]};
        const nlohmann::json j = toJson(r);
        // Result files name programs, not folders of the machine that made them.
        QCOMPARE(j["tool"].get<std::string>(), std::string("ncu"));
        QVERIFY(j["candidate"][1]["achieved_occupancy_pct"].is_null());
        QCOMPARE(j["candidate"][0]["limiter"].get<std::string>(), std::string("memory"));
        const CounterReport back = counterReportFromJson(j);
        QCOMPARE(back.candidate.size(), std::size_t(2));
        QCOMPARE(*back.candidate[0].dramBytesRead, *r.candidate[0].dramBytesRead);
        QVERIFY(!back.candidate[1].achievedOccupancyPct);
        QCOMPARE(back.reference[0].kernel, std::string("add_bias"));
        QVERIFY_EXCEPTION_THROWN(counterReportFromJson(nlohmann::json::array()), Error);
        QVERIFY_EXCEPTION_THROWN(
            counterReportFromJson({{"candidate", {{{"kernel", "k"}, {"flops", "many"}}}}}), Error);
        QVERIFY_EXCEPTION_THROWN(counterReportFromJson({{"reference", {{{"grid", "(1, 1, 1)"}}}}}),
                                 Error);
    }

    void benchCountersProfilesTheDiceProgramByItsPath() {
        // ncu starts the program it is given: "/proc/self/exe" there would name ncu itself.
        const TemporaryFolder folder("dice-ncu-test");
        const std::string args = folder.path() + "/args";
        const std::string fake = folder.path() + "/ncu";
        std::ofstream(fake) << "#!/bin/sh\n"
                               "[ \"$1\" = --version ] && exit 0\n"
                               "for a in \"$@\"; do echo \"$a\" >> '"
                            << args
                            << "'; done\n"
                               "while [ $# -gt 0 ]; do [ \"$1\" = --log-file ] && cp '"
                            << kPage << "' \"$2\"; shift; done\n";
        ::chmod(fake.c_str(), 0755);
        QProcess dice;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("DICE_NCU", QString::fromStdString(fake));
        dice.setProcessEnvironment(environment);
        const QString output = QString::fromStdString(folder.path() + "/counters.json");
        dice.start(DICE_BIN_DIR "/dice",
                   {"bench", "counters", "--tasks", "relu", "--output", output});
        QVERIFY(dice.waitForFinished(120000));
        QCOMPARE(dice.exitCode(), 0);
        std::vector<std::string> words;
        std::ifstream in(args);
        for (std::string line; std::getline(in, line);)
            words.push_back(line);
        const auto eval = std::find(words.begin(), words.end(), "eval");
        QVERIFY(eval != words.begin() && eval != words.end());
        const std::string program = *(eval - 1);
        // Only the preset's sizes: the small preset's launches would be profiled beside them.
        QVERIFY(std::find(eval, words.end(), "--only-preset") != words.end());
        QCOMPARE(std::filesystem::path(program).filename().string(), std::string("dice"));
        QVERIFY2(program != "/proc/self/exe" && ::access(program.c_str(), X_OK) == 0,
                 program.c_str());
        const auto report = nlohmann::json::parse(readTextFile(output.toStdString()));
        QCOMPARE(report["kind"].get<std::string>(), std::string("bench-counters"));
        QCOMPARE(report["results"][0]["counters"]["candidate"].size(), std::size_t(2));
    }

    void reportsAreFoundInTheDocumentsThatHoldThem() {
        CounterReport r;
        r.candidate = parseNcuCsv(readTextFile(kPage));
        const nlohmann::json report = toJson(r);
        QCOMPARE(counterReportFromDocument({{"verdict", "correct"}, {"counters", report}}, "")
                     .candidate.size(),
                 std::size_t(2));
        const nlohmann::json file = {
            {"kind", "bench-counters"},
            {"results",
             {{{"task", "relu"}, {"counters", report}},
              {{"task", "softmax"}, {"counters", {{"candidate", nlohmann::json::array()}}}}}}};
        QCOMPARE(counterReportFromDocument(file, "relu").candidate.size(), std::size_t(2));
        QVERIFY(counterReportFromDocument(file, "softmax").candidate.empty());
        QCOMPARE(counterReportFromDocument(report, "").candidate[0].kernel,
                 std::string("relu_map"));
        const auto rejected = [](const nlohmann::json& doc, const std::string& task,
                                 const std::string& phrase) {
            try {
                counterReportFromDocument(doc, task);
                return false;
            } catch (const Error& e) {
                return std::string(e.what()).find(phrase) != std::string::npos;
            }
        };
        QVERIFY(rejected(file, "", "several tasks"));
        QVERIFY(rejected(file, "gelu", "no counters of task gelu"));
        QVERIFY(rejected({{"verdict", "correct"}}, "", "holds no counters"));
        QVERIFY(rejected(nlohmann::json::array(), "", "JSON object"));
    }
};

QTEST_GUILESS_MAIN(TestNsightCompute)
#include "tst_nsight_compute.moc"
