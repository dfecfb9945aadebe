// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/error.h"
#include "core/infill/text_diff.h"
#include "core/tasks/holes.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <random>

namespace {

const char* const kRelu = R"(// ReLU.
#pragma dice device
extern "C" __global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y,
                                       long long n)
{
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = fmaxf(x[i], 0.0f); // "}" inside a comment and a string: "{"
}

template <int T>
__global__ void twice(float* y) { y[threadIdx.x] *= 2.0f; }

__global__ void declared_only(float* y);
#pragma dice host
def forward(x: Tensor) -> Tensor:
    y = torch.empty_like(x)
    dice.launch("relu_kernel", [(x.numel() + 255) // 256], [256], (x, y, x.numel()))
    return y
)";

int gnuDiffChangedLines(const std::string& a, const std::string& b) {
    QTemporaryDir dir;
    QFile fa(dir.filePath("a")), fb(dir.filePath("b"));
    fa.open(QIODevice::WriteOnly);
    fa.write(a.data(), static_cast<qint64>(a.size()));
    fa.close();
    fb.open(QIODevice::WriteOnly);
    fb.write(b.data(), static_cast<qint64>(b.size()));
    fb.close();
    QProcess diff;
    diff.start("diff", {"--old-line-format=-\n", "--new-line-format=+\n",
                        "--unchanged-line-format=", "--minimal", fa.fileName(), fb.fileName()});
    if (!diff.waitForFinished(10000))
        return -1;
    return static_cast<int>(diff.readAllStandardOutput().count('\n'));
}

} // namespace

class TestInfill : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void findsHoles() {
        const std::string text =
            "a\n    {{hole:body}}\nb {{hole}} c {{hole:9x}} {{hole:}} {{hol}}\n";
        const auto holes = dice::findHoles(text);
        QCOMPARE(holes.size(), size_t(2));
        QCOMPARE(holes[0].name, std::string("body"));
        QCOMPARE(holes[0].line, 2);
        QCOMPARE(holes[0].column, 5);
        QCOMPARE(holes[0].indentation, std::string("    "));
        QCOMPARE(holes[1].name, std::string());
        QCOMPARE(holes[1].line, 3);
        QCOMPARE(text.substr(holes[1].offset, holes[1].length), std::string("{{hole}}"));
    }

    void fillsExactlyIntoTheHole() {
        const std::string text = "int f() {\n    {{hole:f}}\n}\n";
        const auto holes = dice::findHoles(text);
        const auto filled = dice::fillHole(text, holes[0], "return 1;");
        QCOMPARE(filled, std::string("int f() {\n    return 1;\n}\n"));
        const auto context = dice::infillContext(text, holes[0]);
        QCOMPARE(context.prefix, std::string("int f() {\n    "));
        QCOMPARE(context.suffix, std::string("\n}\n"));
        // A stale hole (text edited since) is refused, not spliced somewhere else.
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::fillHole("x" + text, holes[0], "y"));
    }

    void makesAHoleFromASelection() {
        const std::string text = "void k() {\n    int a = 1;\n    a += 2;\n}\n";
        const std::size_t begin = text.find("    int");
        const std::size_t end = text.find("}\n");
        const auto holed = dice::makeHole(text, begin, end, "body");
        QCOMPARE(holed, std::string("void k() {\n    {{hole:body}}\n}\n"));
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::makeHole(text, 5, 2, "x"));
        QVERIFY_THROWS_EXCEPTION(dice::Error, dice::makeHole(text, 0, 1, "bad name"));
    }

    void skeletonKeepsSignaturesAndHost() {
        const auto skeleton = dice::makeSkeleton(kRelu);
        QVERIFY(skeleton.has_value());
        QCOMPARE(skeleton->holes, (std::vector<std::string>{"relu_kernel", "twice"}));
        QVERIFY(skeleton->text.find("extern \"C\" __global__ void relu_kernel(const float* "
                                    "__restrict__ x") != std::string::npos);
        QVERIFY(skeleton->text.find("{\n    {{hole:relu_kernel}}\n}") != std::string::npos);
        QVERIFY(skeleton->text.find("{ {{hole:twice}} }") != std::string::npos);
        QVERIFY(skeleton->text.find("__global__ void declared_only(float* y);") !=
                std::string::npos);
        QVERIFY(skeleton->text.find("fmaxf") == std::string::npos);
        QVERIFY(skeleton->text.find("dice.launch(\"relu_kernel\"") != std::string::npos);
        // Filling every hole with its body gives the candidate back byte for byte.
        std::string text = skeleton->text;
        for (size_t i = 0; i < skeleton->holes.size(); ++i) {
            const auto holes = dice::findHoles(text);
            text = dice::fillHole(text, holes.front(), skeleton->bodies[i]);
        }
        QCOMPARE(text, std::string(kRelu));
        QVERIFY(
            !dice::makeSkeleton("#pragma dice device\n#pragma dice host\ndef forward(): pass\n"));
    }

    // Attributes between __global__ and the name are not the name.
    void skeletonSeesThroughAttributes() {
        const char* source =
            "#pragma dice device\n"
            "extern \"C\" __global__ void __launch_bounds__(256, 2)\n"
            "    scale(float* y) { y[0] *= 2.0f; }\n"
            "__global__ void __attribute__((noinline)) twice(float* y) { y[0] += y[0]; }\n"
            "#pragma dice host\n"
            "def forward(y):\n    return y\n";
        const auto skeleton = dice::makeSkeleton(source);
        QVERIFY(skeleton.has_value());
        QCOMPARE(skeleton->holes, (std::vector<std::string>{"scale", "twice"}));
        QVERIFY(skeleton->text.find("__launch_bounds__(256, 2)\n    scale(float* y) { "
                                    "{{hole:scale}} }") != std::string::npos);
    }

    void diffIsMinimalAndReconstructs() {
        std::mt19937 rng(7);
        const char* words[] = {"a", "b", "c", "{", "}", "x = 1;", ""};
        for (int round = 0; round < 40; ++round) {
            std::string before, after;
            for (int i = 0; i < 30; ++i) {
                const std::string w = words[rng() % 7];
                if (rng() % 4)
                    before += w + "\n";
                if (rng() % 4)
                    after += (rng() % 5 ? w : std::string("new")) + "\n";
            }
            const auto lines = dice::diffLines(before, after);
            std::string a, b;
            int changed = 0;
            for (const auto& l : lines) {
                if (l.kind != dice::DiffLine::Kind::Added)
                    a += l.text + "\n";
                if (l.kind != dice::DiffLine::Kind::Removed)
                    b += l.text + "\n";
                changed += l.kind != dice::DiffLine::Kind::Same;
            }
            QCOMPARE(a, before);
            QCOMPARE(b, after);
            QCOMPARE(changed, gnuDiffChangedLines(before, after));
        }
        QVERIFY(dice::unifiedDiff("x\n", "x\n", "a", "b").empty());
        const auto u = dice::unifiedDiff("1\n2\n3\n", "1\n3\n4\n", "skeleton", "filled");
        QCOMPARE(u, std::string("--- skeleton\n+++ filled\n@@ -1,3 +1,3 @@\n 1\n-2\n 3\n+4\n"));
    }
};

QTEST_GUILESS_MAIN(TestInfill)
#include "tst_infill.moc"
