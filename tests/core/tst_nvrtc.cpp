// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/cuda/compile_log_parser.h"
#include "core/cuda/compiler_options.h"
#include "core/cuda/header_policy.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/diffusion/fused_cell_sampler.h"
#include "core/model/decode_kernels.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

using nlohmann::json;

class TestNvrtc : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Golden files: real NVRTC logs (tests/fixtures/nvrtc/*.log) and what must be read from them.
    void goldenLogs_data() {
        QTest::addColumn<QString>("name");
        for (const char* name :
             {"undefined", "syntax", "multiple", "template", "resources", "spill"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }

    void goldenLogs() {
        QFETCH(QString, name);
        const std::string base = std::string(DICE_TEST_FIXTURES) + "/nvrtc/" + name.toStdString();
        const std::string log = dice::readTextFile(base + ".log");
        const json expected = json::parse(dice::readTextFile(base + ".expected.json"));
        const auto diagnostics = dice::parseNvrtcLog(log);
        QCOMPARE(diagnostics.size(), expected["diagnostics"].size());
        for (size_t i = 0; i < diagnostics.size(); ++i) {
            const auto& d = diagnostics[i];
            const auto& e = expected["diagnostics"][i];
            QCOMPARE(d.file, e["file"].get<std::string>());
            QCOMPARE(d.line, e["line"].get<int>());
            QCOMPARE(d.column, e["column"].get<int>());
            QCOMPARE(dice::toString(d.severity), e["severity"].get<std::string>());
            QCOMPARE(d.code, e["code"].get<std::string>());
            QCOMPARE(d.message, e["message"].get<std::string>());
        }
        const auto resources = dice::parsePtxasInfo(log);
        QCOMPARE(resources.size(), expected["resources"].size());
        for (size_t i = 0; i < resources.size(); ++i) {
            const auto& r = resources[i];
            const auto& e = expected["resources"][i];
            QCOMPARE(r.function, e["function"].get<std::string>());
            QCOMPARE(r.architecture, e["architecture"].get<std::string>());
            QCOMPARE(r.registers, e["registers"].get<int>());
            QCOMPARE(r.barriers, e["barriers"].get<int>());
            QCOMPARE(r.sharedBytes, e["shared"].get<int>());
            QCOMPARE(r.stackFrameBytes, e["stack"].get<int>());
            QCOMPARE(r.spillStoreBytes, e["spill_stores"].get<int>());
            QCOMPARE(r.spillLoadBytes, e["spill_loads"].get<int>());
        }
    }

    // The sampler's fused kernel builds for Ampere and Hopper without warnings or spills.
    void fusedSamplerCompiles() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("NVRTC is not available");
        for (const char* architecture : {"sm_80", "sm_90"}) {
            const auto result = dice::FusedCellSampler::compile(architecture);
            QVERIFY2(result.ok, result.log.c_str());
            QCOMPARE(result.errorCount(), 0);
            QCOMPARE(result.warningCount(), 0);
            QVERIFY(!result.cubin.empty());
            for (const auto& usage : result.resources)
                QVERIFY2(usage.spillStoreBytes == 0,
                         (architecture + std::string(": ") + std::to_string(usage.registers) +
                          " registers, " + std::to_string(usage.stackFrameBytes) +
                          " bytes of stack, " + std::to_string(usage.spillStoreBytes) + " spilled")
                             .c_str());
        }
    }

    // The model's fused decoding kernels build for the H200's architecture in every element
    // type and for the head sizes of the tiny test models, the SDAR checkpoints and the largest
    // supported, without warnings or register spills.
    void decodeKernelsCompile() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("NVRTC is not available");
        using Element = dice::DecodeKernels::Element;
        for (const auto element : {Element::Float32, Element::Float16, Element::BFloat16}) {
            for (const int headDim : {16, 64, 128, dice::DecodeKernels::kMaxHeadDim}) {
                const auto result = dice::DecodeKernels::compile(element, "sm_90", headDim);
                QVERIFY2(result.ok, result.log.c_str());
                QCOMPARE(result.errorCount(), 0);
                QCOMPARE(result.warningCount(), 0);
                QVERIFY(!result.cubin.empty());
                for (const auto& usage : result.resources)
                    QCOMPARE(usage.spillStoreBytes, 0);
            }
        }
    }

    void parsersSurviveGarbage() {
        const std::string inputs[] = {"",
                                      "(",
                                      "x(99999999999999999999): error: y",
                                      "f(3): error",
                                      "f(3): warning #: m",
                                      "ptxas info    : Compiling entry function 'unterminated",
                                      "ptxas         .  bytes stack frame",
                                      "ptxas warning",
                                      std::string(100000, '^'),
                                      "a.cu(1): error: m\n  x\n  ^"};
        for (const auto& input : inputs) {
            const auto d = dice::parseNvrtcLog(input);
            const auto r = dice::parsePtxasInfo(input);
            QVERIFY(d.size() <= 2);
            QVERIFY(r.size() <= 1);
        }
    }

    void brokenKernelReportsFileLineMessage() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        dice::NvrtcCompiler compiler;
        const std::string source = "extern \"C\" __global__ void k(float* y)\n"
                                   "{\n"
                                   "    y[threadIdx.x] = missing_name;\n"
                                   "}\n";
        const auto result = compiler.compile(source, "my_kernel.cu");
        QVERIFY(!result.ok);
        QCOMPARE(result.errorCount(), 1);
        const auto& d = result.diagnostics.front();
        QCOMPARE(d.file, std::string("my_kernel.cu"));
        QCOMPARE(d.line, 3);
        QCOMPARE(d.column, 22);
        QVERIFY(d.message.find("missing_name") != std::string::npos);
        QVERIFY(result.cubin.empty());
    }

    // Every NvrtcCompiler (the worker's, the CLI's, the GUI's compile service) hands NVRTC only
    // sources that include the toolkit's headers: a file of the host is never opened, so its
    // content cannot come back in the log.
    void includesReachOnlyTheToolkit() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        QTemporaryDir dir(QStringLiteral(DICE_BIN_DIR "/include-XXXXXX"));
        const std::string secret = dir.filePath("secret.h").toStdString();
        const std::string marker = "DICE_SECRET_b40e6d11";
        std::ofstream(secret) << marker << " broken(\n";
        dice::NvrtcCompiler compiler;
        for (const std::string& line :
             {"#include \"" + secret + "\"", "# include <" + secret + ">",
              std::string("#include \"/etc/hostname\""), std::string("#include \"../x.h\""),
              std::string("#include <stdio.h>")}) {
            const auto result =
                compiler.compile("// first\n" + line + "\n__global__ void k() {}\n", "k.cu");
            QVERIFY2(!result.ok, line.c_str());
            QCOMPARE(result.errorCount(), 1);
            QCOMPARE(result.diagnostics[0].line, 2);
            QCOMPARE(result.diagnostics[0].file, std::string("k.cu"));
            QVERIFY2(result.log.find(marker) == std::string::npos, result.log.c_str());
            QVERIFY2(result.diagnostics[0].message.find("is not allowed") != std::string::npos,
                     result.diagnostics[0].message.c_str());
        }
        // The toolkit's headers, libcu++'s among them, compile.
        const auto toolkit =
            compiler.compile("#include <cuda_fp16.h>\n#include <cuda/std/cstdint>\n"
                             "__global__ void k(cuda::std::int32_t* p) {}\n",
                             "k.cu");
        QVERIFY2(toolkit.ok, toolkit.log.c_str());
    }

    // What counts as a toolkit header: a name of the toolkit's families, a regular file inside
    // the folder, reached without leaving it.
    void toolkitHeadersAreNamedAndInside() {
        namespace fs = std::filesystem;
        QTemporaryDir dir(QStringLiteral(DICE_BIN_DIR "/toolkit-XXXXXX"));
        const fs::path root = dir.filePath("include").toStdString();
        fs::create_directories(root / "cuda" / "std");
        std::ofstream(root / "cuda_fp16.h") << "\n";
        std::ofstream(root / "cuda" / "std" / "cstdint") << "\n";
        std::ofstream(root / "stdio.h") << "\n";
        const fs::path outside = dir.filePath("outside.h").toStdString();
        std::ofstream(outside) << "\n";
        fs::create_symlink(outside, root / "cuda_leak.h");
        fs::create_directories(root / "cuda_dir.h");
        const std::string r = root.string();
        QVERIFY(dice::isToolkitHeader("cuda_fp16.h", r));
        QVERIFY(dice::isToolkitHeader("cuda/std/cstdint", r));
        QVERIFY(!dice::isToolkitHeader("stdio.h", r));     // not the toolkit's, though inside
        QVERIFY(!dice::isToolkitHeader("cuda_leak.h", r)); // a link that leads out
        QVERIFY(!dice::isToolkitHeader("cuda_dir.h", r));  // not a regular file
        QVERIFY(!dice::isToolkitHeader("cuda_bf16.h", r)); // absent
        QVERIFY(!dice::isToolkitHeader("cuda/../cuda_fp16.h", r));
        QVERIFY(!dice::isToolkitHeader("./cuda_fp16.h", r));
        QVERIFY(!dice::isToolkitHeader(r + "/cuda_fp16.h", r));
        QVERIFY(!dice::isToolkitHeader("cuda_fp16.h", ""));
        QVERIFY(!dice::isToolkitHeader("cuda_fp16.h\"x", r));
    }

    void compilesToPtxAndCubinWithResources() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        dice::NvrtcCompiler compiler;
        dice::CompileOptions options;
        options.architecture = "sm_80";
        const std::string source = "#include <cuda_fp16.h>\n"
                                   "extern \"C\" __global__ void h(const __half* x, float* y)\n"
                                   "{\n"
                                   "    __shared__ float s[128];\n"
                                   "    s[threadIdx.x] = __half2float(x[threadIdx.x]);\n"
                                   "    __syncthreads();\n"
                                   "    y[threadIdx.x] = s[127 - threadIdx.x];\n"
                                   "}\n";
        const auto result = compiler.compile(source, "h.cu", options);
        QVERIFY2(result.ok, result.log.c_str());
        QCOMPARE(result.architecture, std::string("sm_80"));
        QVERIFY(result.ptx.find(".target sm_80") != std::string::npos);
        QVERIFY(result.ptx.find(".loc") != std::string::npos); // -lineinfo
        QVERIFY(result.cubin.compare(0, 4,
                                     "\x7f"
                                     "ELF") == 0);
        QCOMPARE(result.resources.size(), size_t(1));
        QCOMPARE(result.resources[0].function, std::string("h"));
        QCOMPARE(result.resources[0].sharedBytes, 512);
        QCOMPARE(result.resources[0].barriers, 1);
        QVERIFY(result.resources[0].registers > 0);

        const auto again = compiler.compile(source, "h.cu", options);
        QVERIFY(again.fromCache);
        QCOMPARE(compiler.cacheHits(), size_t(1));
        options.architecture = "sm_90";
        QVERIFY(!compiler.compile(source, "h.cu", options).fromCache);
    }

    void templatesThroughNameExpressions() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        dice::NvrtcCompiler compiler;
        dice::CompileOptions options;
        options.nameExpressions = {"scale<float, 4>", "scale<double, 2>"};
        const std::string source = "template <typename T, int N>\n"
                                   "__global__ void scale(T* x) { x[threadIdx.x] *= T(N); }\n";
        const auto result = compiler.compile(source, "t.cu", options);
        QVERIFY2(result.ok, result.log.c_str());
        QCOMPARE(result.loweredNames.size(), size_t(2));
        QVERIFY(result.loweredNames.at("scale<float, 4>").rfind("_Z", 0) == 0);
        QVERIFY(result.ptx.find(result.loweredNames.at("scale<double, 2>")) != std::string::npos);
    }

    void compilerOptionLinesPassOnlyTheAllowList() {
        const auto line = dice::parseCompilerOptions(
            "  --use_fast_math -maxrregcount=64 -DTILE=32 -DUSE_FAST -UOLD --ftz=true -G ");
        QVERIFY(line.fastMath);
        QCOMPARE(line.nvrtc, (std::vector<std::string>{"--maxrregcount=64", "-DTILE=32",
                                                       "-DUSE_FAST", "-UOLD", "--ftz=true", "-G"}));
        QVERIFY(dice::parseCompilerOptions("").nvrtc.empty());
        // Anything that would hand NVRTC a path of this machine, change the target or is unknown.
        for (const char* refused : {"-I/etc",
                                    "-I",
                                    "--include-path=/home",
                                    "--pre-include=/etc/passwd",
                                    "-include",
                                    "-arch=sm_80",
                                    "--gpu-architecture=sm_90",
                                    "-std=c++20",
                                    "--ftz=yes",
                                    "-maxrregcount=8",
                                    "-maxrregcount=64x",
                                    "-maxrregcount=",
                                    "-D1X",
                                    "-D",
                                    "-DX=\"a\"",
                                    "-DX=a\\b",
                                    "-Ufoo-bar",
                                    "--dopt=on",
                                    "-o",
                                    "/etc/passwd",
                                    "--fmad"}) {
            try {
                dice::parseCompilerOptions(std::string("--use_fast_math ") + refused);
                QFAIL(refused);
            } catch (const dice::Error& e) {
                QVERIFY2(std::string(e.what()).find(refused) != std::string::npos, e.what());
            }
        }
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::parseCompilerOptions(std::string(5000, 'x')));
    }

    void compilerOptionsReachNvrtc() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        dice::NvrtcCompiler compiler(0);
        // A macro the source needs, and a register limit NVRTC must keep to.
        const std::string source =
            "#ifndef TILE\n#error TILE is not defined\n#endif\n"
            "extern \"C\" __global__ void k(const float* x, float* y) {\n"
            "    float a[TILE];\n"
            "    for (int i = 0; i < TILE; ++i) a[i] = x[threadIdx.x * TILE + i];\n"
            "    float s = 0.f;\n"
            "    for (int i = 0; i < TILE; ++i) for (int j = 0; j < TILE; ++j) s += a[i] * "
            "a[j] / (a[(i + j) % TILE] + 1.f);\n"
            "    y[threadIdx.x] = s;\n"
            "}\n";
        dice::CompileOptions options;
        options.architecture = "sm_90";
        QVERIFY(!compiler.compile(source, "k.cu", options).ok);
        dice::applyCompilerOptions(options, "-DTILE=32");
        const auto free = compiler.compile(source, "k.cu", options);
        QVERIFY2(free.ok, free.log.c_str());
        QVERIFY(free.resources.at(0).registers > 32);
        dice::applyCompilerOptions(options, "-maxrregcount=32 --use_fast_math");
        QVERIFY(options.fastMath);
        const auto limited = compiler.compile(source, "k.cu", options);
        QVERIFY2(limited.ok, limited.log.c_str());
        QVERIFY(limited.resources.at(0).registers <= 32);
    }

    // --Ofast-compile gives up optimisations for compile speed (the reward's correctness-only
    // judging, docs/reward.md): a constant-trip loop that the full build unrolls into 64 loads
    // stays a loop, and the two builds are cached apart.
    void fastCompileReachesNvrtc() {
        if (!dice::NvrtcCompiler::available() || !dice::NvrtcCompiler::hasFastCompile())
            QSKIP("this NVRTC has no --Ofast-compile (12.8 and later)");
        dice::NvrtcCompiler compiler;
        const std::string source =
            "extern \"C\" __global__ void k(const float* x, float* y) {\n"
            "    float s = 0.f;\n"
            "    for (int i = 0; i < 64; ++i) s += x[threadIdx.x + i] * (float)i;\n"
            "    y[threadIdx.x] = s;\n"
            "}\n";
        const auto count = [](const std::string& text, const std::string& what) {
            int n = 0;
            for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
                ++n;
            return n;
        };
        dice::CompileOptions options;
        options.architecture = "sm_90";
        const auto full = compiler.compile(source, "k.cu", options);
        QVERIFY2(full.ok, full.log.c_str());
        QCOMPARE(count(full.ptx, "ld.global"), 64);
        options.fastCompile = "mid";
        const auto fast = compiler.compile(source, "k.cu", options);
        QVERIFY2(fast.ok, fast.log.c_str());
        QVERIFY(!fast.fromCache);
        QVERIFY2(count(fast.ptx, "ld.global") < 64 && count(fast.ptx, "bra") > 0, fast.ptx.c_str());
        options.fastCompile = "fastest";
        const auto wrong = compiler.compile(source, "k.cu", options);
        QVERIFY(!wrong.ok);
        QVERIFY2(wrong.log.find("fast-compile level") != std::string::npos, wrong.log.c_str());
    }
};

QTEST_GUILESS_MAIN(TestNvrtc)
#include "tst_nvrtc.moc"
