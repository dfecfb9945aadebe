// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/error.h"
#include "core/eval/candidate.h"

#include <QtTest>

using namespace dice;

namespace {

const char* const kRelu = R"(// ReLU.
#pragma dice device
extern "C" __global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y,
                                       long long n)
{
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = fmaxf(x[i], 0.0f);
}
#pragma dice host
def forward(x: Tensor) -> Tensor:
    y = torch.empty_like(x)
    return y
)";

std::string errorOf(const std::string& source) {
    try {
        parseNativeCandidate(source, "c.dice");
    } catch (const FileError& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestCandidate : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void splitsPartsWithLines() {
        const auto c = parseNativeCandidate(kRelu, "relu.dice");
        QCOMPARE(c.deviceFirstLine, 3);
        QCOMPARE(c.hostFirstLine, 11);
        QVERIFY(c.device.rfind("extern \"C\"", 0) == 0);
        QVERIFY(c.host.rfind("def forward", 0) == 0);
        QCOMPARE(c.fileLineOfHostLine(2), 12);
        QVERIFY(c.deviceForCompiler().rfind("#line 3 \"relu.dice\"\n", 0) == 0);
    }

    void rejectsBadLayouts_data() {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no device") << "// nothing but a comment\n"
                                   << "no '#pragma dice device'";
        QTest::newRow("no host") << "#pragma dice device\n__global__ void k() {}\n"
                                 << "no '#pragma dice host'";
        QTest::newRow("host first") << "#pragma dice host\nx\n#pragma dice device\ny\n"
                                    << "line 1: '#pragma dice host' comes before";
        QTest::newRow("twice") << "#pragma dice device\na\n#pragma dice device\nb\n"
                               << "line 3: a second '#pragma dice device'";
        QTest::newRow("code first") << "int x;\n#pragma dice device\na\n#pragma dice host\nb\n"
                                    << "line 1: code before";
        QTest::newRow("unknown") << "#pragma dice device\na\n#pragma dice kernel\nb\n"
                                 << "line 3: unknown section";
        QTest::newRow("empty device") << "#pragma dice device\n\n#pragma dice host\nb\n"
                                      << "line 1: the device part is empty";
        QTest::newRow("binary") << QString::fromLatin1("#pragma dice device\na\0b", 23)
                                << "not text";
    }

    void rejectsBadLayouts() {
        QFETCH(QString, source);
        QFETCH(QString, expected);
        const std::string message = errorOf(source.toStdString());
        QVERIFY2(message.rfind("c.dice: ", 0) == 0, message.c_str());
        QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
    }

    void readsSignatures() {
        const std::string source = R"(#pragma dice device
#include <cuda_fp16.h>
/* a __global__ in a comment: void fake(int x) */
extern "C" {
__global__ void __launch_bounds__(256) in_block(const __half* a, unsigned n, double s) {}
}
template <typename T, int THREADS = 128>
__global__ void scale(const T* x, T* y, T factor, size_t n) {}
__global__ void plain(const float4* v, bool flag) {}
extern "C" __global__ void takes_nothing(void) {}
#pragma dice host
def forward(x: Tensor) -> Tensor:
    return x
)";
        const auto c = parseNativeCandidate(source, "k.dice");
        const auto kernels = parseKernelSignatures(c);
        QCOMPARE(kernels.size(), size_t(4));
        QCOMPARE(kernels[0].name, std::string("in_block"));
        QVERIFY(kernels[0].externC);
        QCOMPARE(kernels[0].line, 5);
        QCOMPARE(kernels[0].params.size(), size_t(3));
        QVERIFY(kernels[0].params[0].kind == ParamKind::Pointer);
        QVERIFY(kernels[0].params[0].dtype == DType::Float16);
        QCOMPARE(kernels[0].params[0].type, std::string("__half*"));
        QVERIFY(kernels[0].params[1].kind == ParamKind::UInt32);
        QVERIFY(kernels[0].params[2].kind == ParamKind::Float64);
        QCOMPARE(kernels[1].name, std::string("scale"));
        QVERIFY(kernels[1].isTemplate && !kernels[1].externC);
        QCOMPARE(kernels[1].templateParams, (std::vector<std::string>{"T", "THREADS"}));
        QCOMPARE(kernels[1].templateKinds, (std::vector<std::string>{"typename", "int"}));
        QCOMPARE(kernels[2].params[0].vectorWidth, 4);
        QVERIFY(kernels[2].params[1].kind == ParamKind::Bool);
        QVERIFY(kernels[3].params.empty());

        const auto scaleFloat = resolveKernel(kernels, "scale<float, 256>");
        QVERIFY(scaleFloat.nameExpression);
        QCOMPARE(scaleFloat.params.size(), size_t(4));
        QVERIFY(scaleFloat.params[0].dtype == DType::Float32);
        QVERIFY(scaleFloat.params[2].kind == ParamKind::Float32);
        QVERIFY(scaleFloat.params[3].kind == ParamKind::UInt64);
        const auto scaleLong = resolveKernel(kernels, "scale<long long>");
        QVERIFY(scaleLong.params[0].dtype == DType::Int64);
        QVERIFY(scaleLong.params[2].kind == ParamKind::Int64);
        QVERIFY(!resolveKernel(kernels, "in_block").nameExpression);
        QVERIFY(resolveKernel(kernels, "plain").nameExpression);
    }

    void emptyParameterIsAnError() {
        // Found by fuzz_candidate: an empty parameter reached the parameter parser.
        const auto c = parseNativeCandidate("#pragma dice device\n__global__ void k(float* x, , "
                                            "int n) {}\n#pragma dice host\ndef forward(x: "
                                            "Tensor) -> Tensor:\n    return x\n",
                                            "k.dice");
        try {
            parseKernelSignatures(c);
            QFAIL("accepted");
        } catch (const dice::Error& e) {
            QVERIFY2(std::string(e.what()).find("kernel k has an empty parameter") !=
                         std::string::npos,
                     e.what());
        }
    }

    void resolveKernelExplainsMistakes_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown") << "nope"
                                 << "defines no __global__ function nope";
        QTest::newRow("template plain") << "tmpl"
                                        << "is a template";
        QTest::newRow("not template") << "plain<4>"
                                      << "is not a template";
        QTest::newRow("too many") << "tmpl<float, 1, 2>"
                                  << "gives 3 template arguments";
        QTest::newRow("bad type") << "tmpl<char>"
                                  << "cannot bind";
    }

    void resolveKernelExplainsMistakes() {
        QFETCH(QString, name);
        QFETCH(QString, expected);
        const auto c = parseNativeCandidate(
            "#pragma dice device\ntemplate <typename T> __global__ void tmpl(T* x) {}\n"
            "extern \"C\" __global__ void plain(float* x) {}\n#pragma dice host\nx\n",
            "t.dice");
        const auto kernels = parseKernelSignatures(c);
        try {
            resolveKernel(kernels, name.toStdString());
            QFAIL("resolved a wrong name");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find(expected.toStdString()) != std::string::npos,
                     e.what());
        }
    }

    void rejectsUnboundTypesWithTheirLine() {
        const auto c = parseNativeCandidate("// x\n#pragma dice device\nstruct P { int a; };\n"
                                            "extern \"C\" __global__ void k(float* x,\n"
                                            "    P p) {}\n#pragma dice host\nx\n",
                                            "bad.dice");
        try {
            parseKernelSignatures(c);
            QFAIL("accepted a struct parameter");
        } catch (const FileError& e) {
            const std::string m = e.what();
            QVERIFY2(m.find("bad.dice: line 5: kernel k: parameter 'P p'") != std::string::npos,
                     m.c_str());
        }
    }

    void findsReducedPrecision() {
        const auto c = parseNativeCandidate(
            "#pragma dice device\n#include <cuda_fp16.h>\n// __half in a comment\n"
            "extern \"C\" __global__ void k(const float* x, float* y) {\n"
            "    const char* s = \"__float2half\";\n"
            "    __half h = __float2half_rn(x[0]);\n"
            "    y[0] = __half2float(h);\n}\n#pragma dice host\nx\n",
            "p.dice");
        const auto findings = scanReducedPrecision(c);
        QCOMPARE(findings.size(), size_t(3));
        QCOMPARE(findings[0].line, 6);
        QCOMPARE(findings[0].token, std::string("__half"));
        QCOMPARE(findings[1].token, std::string("__float2half_rn"));
        QCOMPARE(findings[2].line, 7);
        QCOMPARE(findings[2].token, std::string("__half2float"));
        const auto plain = parseNativeCandidate(kRelu, "relu.dice");
        QVERIFY(scanReducedPrecision(plain).empty());
    }

    void survivesGarbage() {
        // Random bytes and truncations never crash the parsers: they parse or throw Error.
        std::string base = kRelu;
        std::uint32_t state = 12345;
        for (int round = 0; round < 400; ++round) {
            std::string text = base.substr(0, static_cast<std::size_t>(state % base.size()));
            for (int k = 0; k < 8; ++k) {
                state = state * 1664525u + 1013904223u;
                const char c = static_cast<char>("{}()<>,;*\"'/#\n _aZ9"[state % 20]);
                text.insert(text.begin() + static_cast<long>(state % (text.size() + 1)), c);
            }
            try {
                const auto c = parseNativeCandidate(text, "fuzz.dice");
                const auto kernels = parseKernelSignatures(c);
                for (const auto& k : kernels) {
                    try {
                        resolveKernel(kernels, k.name + (k.isTemplate ? "<float>" : ""));
                    } catch (const Error&) {
                    }
                }
                scanReducedPrecision(c);
            } catch (const Error&) {
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestCandidate)
#include "tst_candidate.moc"
