// SPDX-License-Identifier: GPL-3.0-or-later
// What the Profile area shows beside the source: which PTX a source line became (from a real
// NVRTC compile with -lineinfo) and the theoretical occupancy of a kernel.
#include "core/common/child_process.h"
#include "core/common/file_util.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/cuda/occupancy.h"
#include "core/cuda/ptx_line_map.h"
#include "core/cuda/sass_disassembler.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <cstdlib>
#include <set>
#include <sstream>

namespace {

// Line numbers matter: the test looks for the instructions of lines 4 and 6.
const char* const kKernel = "extern \"C\" __global__ void saxpy(const float* x, float* y,\n"
                            "                                  float a, int n) {\n"
                            "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                            "    if (i < n) {\n"
                            "        const float v = x[i];\n"
                            "        y[i] = a * v + y[i];\n"
                            "    }\n"
                            "}\n";

std::string joined(const std::string& ptx, const std::vector<int>& lines) {
    std::vector<std::string> all;
    std::istringstream in(ptx);
    for (std::string line; std::getline(in, line);)
        all.push_back(line);
    std::string out;
    for (int l : lines)
        out += all[static_cast<std::size_t>(l)] + "\n";
    return out;
}

std::vector<std::string> linesOf(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

// The map as the golden file writes it: "PTX line -> source line  instruction" (both 1-based) for
// every PTX line that has a source line.
std::string describe(const dice::PtxLineMap& map, const std::string& ptx) {
    std::string out;
    const auto lines = linesOf(ptx);
    for (int i = 0; i < static_cast<int>(lines.size()); ++i) {
        if (map.sourceLine(i) == 0)
            continue;
        const std::string& line = lines[static_cast<std::size_t>(i)];
        const auto first = line.find_first_not_of(" \t");
        out += std::to_string(i + 1) + " -> " + std::to_string(map.sourceLine(i)) + "  " +
               line.substr(first) + "\n";
    }
    return out;
}

} // namespace

class TestProfileFacts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ptxLinesFollowTheSource() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        dice::NvrtcCompiler compiler;
        dice::CompileOptions options;
        options.architecture = "sm_90";
        options.lineInfo = true;
        const auto result = compiler.compile(kKernel, "saxpy.cu", options);
        QVERIFY2(result.ok, result.log.c_str());
        const auto map = dice::PtxLineMap::build(result.ptx, "saxpy.cu");
        QVERIFY(map.ptxLineCount() > 10);
        // The fused multiply-add and the store come from line 6, the bounds check from line 4,
        // the index arithmetic from line 3.
        const std::string line6 = joined(result.ptx, map.ptxLines(6));
        QVERIFY2(line6.find("fma.rn.f32") != std::string::npos, line6.c_str());
        QVERIFY2(line6.find("st.global.f32") != std::string::npos, line6.c_str());
        const std::string line4 = joined(result.ptx, map.ptxLines(4));
        QVERIFY2(line4.find("setp") != std::string::npos, line4.c_str());
        const std::string line3 = joined(result.ptx, map.ptxLines(3));
        QVERIFY2(line3.find("%tid.x") != std::string::npos, line3.c_str());
        // Directives and declarations belong to no line.
        std::istringstream in(result.ptx);
        int index = 0;
        for (std::string line; std::getline(in, line); ++index) {
            const auto first = line.find_first_not_of(" \t");
            if (first != std::string::npos && line[first] == '.')
                QCOMPARE(map.sourceLine(index), 0);
        }
        QVERIFY(map.coveredSourceLines() >= 3);
        // Under another file name nothing is credited.
        QCOMPARE(dice::PtxLineMap::build(result.ptx, "other.cu").coveredSourceLines(), 0);
    }

    void inlinedCodeIsCreditedToTheCallSite() {
        // The .file table at the end, where NVRTC puts it.
        const std::string ptx = ".visible .entry f(\n"
                                ")\n"
                                "{\n"
                                ".loc 1 7 3\n"
                                "mov.u32 %r1, %tid.x;\n"
                                ".loc 2 120 5, function_name $L__info_string0, inlined_at 1 9 12\n"
                                "cvt.rn.f16.f32 %rs1, %f1;\n"
                                ".loc 2 130 5\n"
                                "cvt.f32.f16 %f2, %rs1;\n"
                                "$L__BB0_2:\n"
                                "ret;\n"
                                "}\n"
                                ".file 1 \"build/k.cu\"\n"
                                ".file 2 \"cuda_fp16.hpp\"\n";
        const auto map = dice::PtxLineMap::build(ptx, "k.cu");
        QCOMPARE(map.sourceLine(4), 7);
        QCOMPARE(map.sourceLine(6), 9);
        QCOMPARE(map.sourceLine(8), 0);
        QCOMPARE(map.sourceLine(9), 0);
        QCOMPARE(map.ptxLines(9), std::vector<int>{6});
        QCOMPARE(map.sourceLine(-1), 0);
        QCOMPARE(map.sourceLine(1000), 0);
        // A file whose name only ends like the source's is another file.
        QCOMPARE(dice::PtxLineMap::build(ptx, "K.cu").coveredSourceLines(), 0);
        QCOMPARE(dice::PtxLineMap::build(ptx, "/k.cu").coveredSourceLines(), 2);
    }

    // Golden file: the PTX NVRTC made of tests/fixtures/kernel-listings/kern.cu (README.md there
    // says how) and the source line of each instruction. DICE_UPDATE_GOLDEN=1 rewrites the
    // expected file instead of comparing, for a reviewed update.
    void ptxLineMapGolden() {
        const std::string dir = DICE_TEST_FIXTURES "/kernel-listings/";
        const std::string ptx = dice::readTextFile(dir + "kern.ptx");
        const auto map = dice::PtxLineMap::build(ptx, "kern.cu");
        const std::string described = describe(map, ptx);
        if (const char* update = std::getenv("DICE_UPDATE_GOLDEN");
            update && *update && std::string(update) != "0") {
            dice::writeFileAtomically(dir + "kern.ptx.expected.txt", described);
            QSKIP("expected file rewritten");
        }
        const auto got = linesOf(described);
        const auto expected = linesOf(dice::readTextFile(dir + "kern.ptx.expected.txt"));
        for (std::size_t i = 0; i < std::min(got.size(), expected.size()); ++i)
            QCOMPARE(got[i], expected[i]);
        QCOMPARE(got.size(), expected.size());

        // Facts of kern.cu: relu's select is a max on line 7, row_sum's barriers are lines 19 and
        // 23, the loads through const __restrict__ pointers are lines 6 and 17, and scale's
        // __half load, multiply and store are line 34.
        const auto ptxLines = linesOf(ptx);
        const auto sourceLinesOf = [&](const std::string& opcode) {
            std::set<int> found;
            for (int i = 0; i < static_cast<int>(ptxLines.size()); ++i)
                if (ptxLines[static_cast<std::size_t>(i)].find(opcode) != std::string::npos)
                    found.insert(map.sourceLine(i));
            return found;
        };
        QCOMPARE(sourceLinesOf("max.f32"), std::set<int>{7});
        QCOMPARE(sourceLinesOf("bar.sync"), (std::set<int>{19, 23}));
        QCOMPARE(sourceLinesOf("ld.global.u16"), std::set<int>{34});
        QCOMPARE(sourceLinesOf("st.global.u16"), std::set<int>{34});
        QCOMPARE(sourceLinesOf("mul.f32"), std::set<int>{34});
        QCOMPARE(sourceLinesOf("ld.global.nc.f32"), (std::set<int>{6, 17}));
    }

    // `dice compile` prints what the Profile area shows: diagnostics, resources, the PTX.
    void compileCommandPrintsWhatTheProfileShows() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        QTemporaryDir dir;
        const std::string ptxFile = dir.filePath("kern.ptx").toStdString();
        dice::ChildRunOptions options;
        options.timeoutMs = 120000;
        const auto run = dice::runChild(
            {{DICE_BIN_DIR "/dice", "compile", DICE_TEST_FIXTURES "/kernel-listings/kern.cu",
              "--name", "kern.cu", "--arch", "sm_90", "--json", "--write-ptx", ptxFile}},
            options);
        QVERIFY2(run.ok(), (run.exit.describe() + ": " + run.err).c_str());
        const auto j = nlohmann::json::parse(run.out);
        QCOMPARE(j["ok"].get<bool>(), true);
        QCOMPARE(j["architecture"].get<std::string>(), std::string("sm_90"));
        QCOMPARE(j["diagnostics"].size(), std::size_t(0));
        std::set<std::string> kernels;
        for (const auto& r : j["resources"])
            kernels.insert(r["function"].get<std::string>());
        QVERIFY(kernels.count("relu_kernel") && kernels.count("row_sum_kernel"));
        QCOMPARE(kernels.size(), std::size_t(4));
        const auto map = dice::PtxLineMap::build(dice::readTextFile(ptxFile), "kern.cu");
        QVERIFY(map.coveredSourceLines() >= 15);

        // A native candidate compiles its device part under the file's line numbers.
        const auto candidate = dice::runChild(
            {{DICE_BIN_DIR "/dice", "compile", DICE_TEST_FIXTURES "/candidates/relu_basic.dice"}},
            options);
        QVERIFY2(candidate.ok(), candidate.out.c_str());
        QVERIFY2(candidate.out.find("relu_kernel: ") != std::string::npos, candidate.out.c_str());

        // An error names its line and fails the command.
        const QString broken = dir.filePath("broken.cu");
        {
            QFile file(broken);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("extern \"C\" __global__ void k(float* y)\n{\n    y[0] = missing;\n}\n");
        }
        const auto failed = dice::runChild(
            {{DICE_BIN_DIR "/dice", "compile", broken.toStdString(), "--name", "broken.cu"}},
            options);
        QCOMPARE(failed.exit.exitCode, 1);
        QVERIFY2(failed.out.find("broken.cu:3:") != std::string::npos, failed.out.c_str());

        // Without a disassembler, --sass fails and says what is missing.
        if (!dice::findSassTool()) {
            const auto sass =
                dice::runChild({{DICE_BIN_DIR "/dice", "compile",
                                 DICE_TEST_FIXTURES "/kernel-listings/kern.cu", "--sass"}},
                               options);
            QCOMPARE(sass.exit.exitCode, 1);
            QVERIFY2(sass.err.find("neither nvdisasm nor cuobjdump") != std::string::npos,
                     sass.err.c_str());
        }
        const auto usage = dice::runChild({{DICE_BIN_DIR "/dice", "compile"}}, options);
        QCOMPARE(usage.exit.exitCode, 2);
    }

    // The figures of the CUDA occupancy calculator for compute capability 9.0: 64K registers in
    // four sub-partitions allocated 256 per warp, 64 warps and 32 blocks per SM, 228 KiB of
    // shared memory with 1 KiB reserved per block.
    void occupancyOnHopper_data() {
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("registers");
        QTest::addColumn<int>("shared");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<double>("fraction");
        QTest::addColumn<QString>("limiter");
        QTest::newRow("32 regs") << 256 << 32 << 0 << 8 << 1.0 << "warps";
        QTest::newRow("64 regs") << 256 << 64 << 0 << 4 << 0.5 << "registers";
        QTest::newRow("128 regs") << 256 << 128 << 0 << 2 << 0.25 << "registers";
        QTest::newRow("255 regs") << 256 << 255 << 0 << 1 << 0.125 << "registers";
        QTest::newRow("40 regs") << 128 << 40 << 0 << 12 << 0.75 << "registers";
        QTest::newRow("48 KiB shared") << 256 << 32 << 48 * 1024 << 4 << 0.5 << "shared memory";
        QTest::newRow("small blocks") << 32 << 16 << 0 << 32 << 0.5 << "blocks";
        QTest::newRow("too many threads") << 2048 << 16 << 0 << 0 << 0.0 << "block too large";
    }

    void occupancyOnHopper() {
        QFETCH(int, threads);
        QFETCH(int, registers);
        QFETCH(int, shared);
        QFETCH(int, blocks);
        QFETCH(double, fraction);
        QFETCH(QString, limiter);
        const auto limits = dice::smLimits("sm_90");
        QVERIFY(limits);
        const auto o = dice::theoreticalOccupancy(*limits, threads, registers, shared);
        QCOMPARE(o.blocksPerSm, blocks);
        QCOMPARE(o.fraction, fraction);
        QCOMPARE(QString::fromStdString(dice::toString(o.limiter)), limiter);
    }

    void architectures() {
        QVERIFY(dice::smLimits("sm_90a"));
        QCOMPARE(dice::smLimits("compute_80")->maxThreadsPerSm, 2048);
        QCOMPARE(dice::smLimits("sm_86")->maxThreadsPerSm, 1536);
        QVERIFY(!dice::smLimits("sm_10"));
        // Ampere consumer parts hold 48 warps: 256 threads with few registers give 6 blocks.
        const auto o = dice::theoreticalOccupancy(*dice::smLimits("sm_86"), 256, 32, 0);
        QCOMPARE(o.blocksPerSm, 6);
        QCOMPARE(o.fraction, 1.0);
    }
};

QTEST_GUILESS_MAIN(TestProfileFacts)
#include "tst_profile_facts.moc"
