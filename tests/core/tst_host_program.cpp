// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/script.h>
#include <torch/torch.h>

#include "core/common/file_util.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/eval/candidate.h"
#include "core/eval/hack_suite.h"
#include "core/eval/host_program.h"
#include "core/eval/native_evaluator.h"
#include "core/tasks/task.h"

#include <QtTest>

#include <cstring>

using namespace dice;

namespace {

std::string resource(const std::string& relative) {
    return readTextFile(std::string(DICE_SOURCE_DIR) + "/resources/" + relative);
}

Task task(const std::string& name) {
    return loadTask(std::string(DICE_SOURCE_DIR) + "/resources/tasks/" + name + ".json");
}

// Records launches; accepts CPU tensors.
class Recorder : public KernelLauncher {
public:
    explicit Recorder(std::vector<KernelParam> params)
        : m_params(std::move(params)) {}
    const std::vector<KernelParam>& parameters(const std::string&) override { return m_params; }
    bool acceptsCpuTensors() const override { return true; }
    void launch(const LaunchCall& call) override { calls.push_back(call); }
    std::vector<LaunchCall> calls;

private:
    std::vector<KernelParam> m_params;
};

class CountingGuard : public AllocationGuard {
public:
    at::Tensor guard(const at::Tensor& allocated, bool poison) override {
        poisons.push_back(poison);
        return allocated.clone().fill_(-7.0);
    }
    std::vector<bool> poisons;
};

std::string hostError(const std::string& source) {
    try {
        HostProgram::compile(parseNativeCandidate(source, "h.dice"));
    } catch (const HostCompileError& e) {
        return std::to_string(e.diagnostic().line) + " " + e.diagnostic().message;
    }
    return {};
}

} // namespace

class TestHostProgram : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void compileErrorsCarryFileLines() {
        const std::string head = "// one\n#pragma dice device\n__global__ void k() {}\n"
                                 "#pragma dice host\n";
        const std::string syntax = hostError(head + "def forward(x: Tensor) -> Tensor:\n"
                                                    "    y = (x\n    return y\n");
        QVERIFY2(syntax.rfind("7 ", 0) == 0 || syntax.rfind("6 ", 0) == 0, syntax.c_str());
        const std::string unknown = hostError(head + "def forward(x: Tensor) -> Tensor:\n"
                                                     "    n = x.numel()\n"
                                                     "    return torch.no_such_op(x)\n");
        QVERIFY2(unknown.rfind("7 ", 0) == 0, unknown.c_str());
        QVERIFY2(unknown.find("no_such_op") != std::string::npos, unknown.c_str());
        const std::string noForward = hostError(head + "def other(x: Tensor) -> Tensor:\n"
                                                       "    return x\n");
        QVERIFY2(noForward.find("no function named forward") != std::string::npos,
                 noForward.c_str());
    }

    void analysesTheReluSolution() {
        const auto c = parseNativeCandidate(
            dice::readTextFile(DICE_TEST_FIXTURES "/candidates/relu_basic.dice"), "relu.dice");
        const auto program = HostProgram::compile(c);
        const auto& a = program.analysis();
        QCOMPARE(a.arity, 1);
        QVERIFY(a.fallbacks.empty());
        QVERIFY(a.violations.empty());
        QCOMPARE(a.launches.size(), size_t(1));
        QCOMPARE(a.launches[0].op, std::string("relu_kernel"));
        QCOMPARE(a.launches[0].line, c.hostFirstLine + 5);
        for (const char* op : {"aten::empty_like", "aten::numel", "aten::floordiv", "dice::launch"})
            QVERIFY2(std::find(a.operators.begin(), a.operators.end(), op) != a.operators.end(),
                     op);
    }

    void findsFallbacksThroughHelpers() {
        const std::string source = resource("hacks/fallback_in_helper.dice");
        const auto c = parseNativeCandidate(source, "fallback_in_helper.dice");
        const auto program = HostProgram::compile(c);
        const auto& a = program.analysis();
        QCOMPARE(a.fallbacks.size(), size_t(1));
        QVERIFY2(a.fallbacks[0].op == "aten::clamp", a.fallbacks[0].op.c_str());
        // The line of "return x.clamp(min=0.0)" in the file.
        int line = 0;
        int n = 1;
        for (std::size_t i = 0; i < source.size(); ++i) {
            if (source.compare(i, 13, "x.clamp(min=0") == 0) {
                line = n;
                break;
            }
            if (source[i] == '\n')
                ++n;
        }
        QCOMPARE(a.fallbacks[0].line, line);
    }

    void reportsDialectViolations() {
        const auto printing =
            HostProgram::compile(parseNativeCandidate(resource("hacks/host_print.dice"), "p.dice"));
        QCOMPARE(printing.analysis().violations.size(), size_t(1));
        QVERIFY(printing.analysis().violations[0].op.find("print()") != std::string::npos);
        const auto dynamic = HostProgram::compile(
            parseNativeCandidate(resource("hacks/dynamic_kernel_name.dice"), "d.dice"));
        QCOMPARE(dynamic.analysis().violations.size(), size_t(1));
        QVERIFY(dynamic.analysis().violations[0].op.find("string literal") != std::string::npos);
    }

    void bindsLaunchArguments() {
        const auto c = parseNativeCandidate(
            dice::readTextFile(DICE_TEST_FIXTURES "/candidates/relu_basic.dice"), "relu.dice");
        const auto kernels = parseKernelSignatures(c);
        const auto program = HostProgram::compile(c);
        Recorder recorder(resolveKernel(kernels, "relu_kernel").params);
        const auto x = torch::randn({16, 4096});
        std::vector<c10::IValue> stack = {x};
        c10::IValue returned;
        {
            LauncherScope scope(&recorder);
            returned = program.forward()(stack);
        }
        QCOMPARE(recorder.calls.size(), size_t(1));
        const LaunchCall& call = recorder.calls[0];
        QCOMPARE(call.kernel, std::string("relu_kernel"));
        QCOMPARE(call.grid[0], 256u);
        QCOMPARE(call.block[0], 256u);
        QCOMPARE(call.grid[1], 1u);
        QCOMPARE(call.args.size(), size_t(3));
        QCOMPARE(call.args[0].bits,
                 static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(x.data_ptr())));
        QCOMPARE(call.args[0].bytes, static_cast<std::int64_t>(16 * 4096 * 4));
        const auto y = returned.toTensor();
        QCOMPARE(call.args[1].bits,
                 static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(y.data_ptr())));
        std::int64_t n = 0;
        std::memcpy(&n, &call.args[2].bits, sizeof(n));
        QCOMPARE(n, static_cast<std::int64_t>(16 * 4096));

        // A float64 tensor for a float* parameter is refused with both types named.
        std::vector<c10::IValue> wrong = {torch::randn({8}, torch::kFloat64)};
        try {
            LauncherScope scope(&recorder);
            program.forward()(wrong);
            QFAIL("launched with a float64 tensor");
        } catch (const std::exception& e) {
            const std::string m = e.what();
            QVERIFY2(m.find("relu_kernel") != std::string::npos, m.c_str());
            QVERIFY2(m.find("float32") != std::string::npos &&
                         m.find("float64") != std::string::npos,
                     m.c_str());
        }
        // Outside an evaluation the operator refuses to run.
        std::vector<c10::IValue> outside = {x};
        QVERIFY_EXCEPTION_THROWN(program.forward()(outside), std::exception);
    }

    void checksScalarRanges() {
        const auto c = parseNativeCandidate(
            "#pragma dice device\nextern \"C\" __global__ void k(float* x, int n, unsigned m) {}\n"
            "#pragma dice host\n"
            "def forward(x: Tensor, n: int) -> Tensor:\n"
            "    dice.launch(\"k\", [1], [1], (x, n, 5))\n"
            "    return x\n",
            "r.dice");
        const auto program = HostProgram::compile(c);
        Recorder recorder(resolveKernel(parseKernelSignatures(c), "k").params);
        LauncherScope scope(&recorder);
        std::vector<c10::IValue> ok = {torch::zeros({4}), c10::IValue(int64_t{-3})};
        program.forward()(ok);
        std::int32_t n = 0;
        std::memcpy(&n, &recorder.calls.at(0).args[1].bits, sizeof(n));
        QCOMPARE(n, -3);
        std::vector<c10::IValue> big = {torch::zeros({4}), c10::IValue(int64_t{1} << 40)};
        try {
            program.forward()(big);
            QFAIL("an int parameter took 2^40");
        } catch (const std::exception& e) {
            QVERIFY2(std::string(e.what()).find("outside the range of int") != std::string::npos,
                     e.what());
        }
    }

    void guardsEveryAllocation() {
        const auto c = parseNativeCandidate(resource("hacks/uninitialised_read.dice"), "u.dice");
        const auto kernels = parseKernelSignatures(c);
        const auto program = HostProgram::compile(c);
        Recorder recorder(resolveKernel(kernels, "relu_garbage").params);
        CountingGuard guard;
        std::vector<c10::IValue> stack = {torch::randn({64})};
        c10::IValue returned;
        {
            LauncherScope scope(&recorder, &guard);
            returned = program.guardedForward()(stack);
        }
        QCOMPARE(guard.poisons, (std::vector<bool>{true, true}));
        // The host code got the guard's tensors, not its own.
        QCOMPARE(returned.toTensor()[0].item<float>(), -7.0f);
    }

    void evaluatesWithoutAGpu() {
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        qputenv("DICE_DISABLE_CUDA_DRIVER", "1");
        NativeEvaluator evaluator;
        EvalOptions options;
        for (const char* name : {"relu", "softmax", "matmul"}) {
            const auto r =
                evaluator.evaluate(task(name), resource(std::string("solutions/") + name + ".dice"),
                                   std::string(name) + ".dice", options);
            QVERIFY2(r.verdict == Verdict::NotRun, r.message.c_str());
            QVERIFY(r.compiled);
            QCOMPARE(r.launchesPerCall, 1);
            QVERIFY2(r.message.find("not run") != std::string::npos, r.message.c_str());
            QVERIFY(!r.resources.empty());
        }
    }

    void deviceErrorsCarryFileLines() {
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        NativeEvaluator evaluator;
        const std::string source = "// header\n#pragma dice device\n"
                                   "extern \"C\" __global__ void relu_kernel(const float* x, "
                                   "float* y, long long n)\n{\n    y[0] = undefined_name;\n}\n"
                                   "#pragma dice host\n"
                                   "def forward(x: Tensor) -> Tensor:\n"
                                   "    y = torch.empty_like(x)\n"
                                   "    dice.launch(\"relu_kernel\", [1], [1], (x, y, 1))\n"
                                   "    return y\n";
        const auto r = evaluator.compile(task("relu"), source, "broken.dice", {});
        QVERIFY2(r.verdict == Verdict::CompileError, r.message.c_str());
        QVERIFY(!r.diagnostics.empty());
        QCOMPARE(r.diagnostics[0].file, std::string("broken.dice"));
        QCOMPARE(r.diagnostics[0].line, 5);
    }

    void catchesTheHacksThatNeedNoGpu() {
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        NativeEvaluator evaluator;
        int checked = 0;
        for (const auto& hack : loadHackSuite(std::string(DICE_SOURCE_DIR) + "/resources/hacks")) {
            if (hack.gpu)
                continue;
            EvalOptions options;
            options.preset = hack.preset;
            const auto r = evaluator.compile(task(hack.task), readTextFile(hack.file),
                                             hack.name + ".dice", options);
            std::string why;
            QVERIFY2(hackCaught(hack, r, &why), (hack.name + ": " + why).c_str());
            ++checked;
        }
        QVERIFY(checked >= 5);
    }
};

QTEST_GUILESS_MAIN(TestHostProgram)
#include "tst_host_program.moc"
