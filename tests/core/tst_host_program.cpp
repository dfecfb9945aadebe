// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/script.h>
#include <torch/torch.h>

#include "core/common/file_util.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/data/corpus_synth.h"
#include "core/eval/candidate.h"
#include "core/eval/candidate_compile.h"
#include "core/eval/hack_suite.h"
#include "core/eval/host_program.h"
#include "core/eval/native_evaluator.h"
#include "core/tasks/task.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>

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
    TensorHome accepts() const override { return TensorHome::Anywhere; }
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

// A relu candidate whose host code does `hostile` first; its own lines are honest.
std::string reluWith(const std::string& hostile) {
    return "#pragma dice device\n"
           "extern \"C\" __global__ void relu_kernel(const float* x, float* y, long long n)\n"
           "{\n    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
           "    if (i < n)\n        y[i] = fmaxf(x[i], 0.0f);\n}\n"
           "#pragma dice host\n"
           "def forward(x: Tensor) -> Tensor:\n" +
           hostile +
           "    y = torch.empty_like(x)\n"
           "    n = x.numel()\n"
           "    dice.launch(\"relu_kernel\", [(n + 255) // 256], [256], (x, y, n))\n"
           "    return y\n";
}

// The same with `device` as its device code's first lines.
std::string reluIncluding(const std::string& device) {
    std::string s = reluWith("");
    const std::string head = "#pragma dice device\n";
    return head + device + s.substr(head.size());
}

// A file of the build folder whose content must never reach a verdict.
struct Secret {
    QTemporaryDir dir{QStringLiteral(DICE_BIN_DIR "/secret-XXXXXX")};
    std::string path;
    std::string marker = "DICE_SECRET_7c1f09e2";
    Secret() {
        path = dir.filePath("secret.h").toStdString();
        std::ofstream(path) << marker << " = 1;\n" << marker << " broken(\n";
    }
};

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    return text.replace(text.find(from), from.size(), to);
}

// Everything a result says, as its JSON.
std::string everything(const EvaluationResult& r) {
    return toJson(r).dump();
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

    // NVRTC compiles a template kernel only when a name expression asks for it: the editor and
    // `dice compile` ask for those the host part launches, as the evaluator does, so that each
    // shows its resources and an error inside one is marked.
    void templateKernelsAreCompiledAsLaunched() {
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        NvrtcCompiler compiler(0);
        const std::string file = "transformer_block.dice";
        const NativeCandidate block =
            parseNativeCandidate(resource("solutions/transformer_block.dice"), file);
        const CompileResult all = compileNativeCandidate(compiler, block, file, CompileOptions());
        QVERIFY2(all.ok, all.log.c_str());
        // layer_norm_rows<256, 8>, linear_gemm<0>, <1> and <2>, attention64<true>.
        QCOMPARE(all.resources.size(), std::size_t(5));
        QVERIFY(
            compiler.compile(block.deviceForCompiler(), file, CompileOptions()).resources.empty());

        const std::string broken = "#pragma dice device\n"
                                   "template <typename T>\n"
                                   "__global__ void fill(T* y)\n"
                                   "{\n"
                                   "    y[0] = T::missing;\n"
                                   "}\n"
                                   "#pragma dice host\n"
                                   "def forward(x: Tensor) -> Tensor:\n"
                                   "    y = torch.empty_like(x)\n"
                                   "    dice.launch(\"fill<float>\", [1], [1], (y,))\n"
                                   "    return y\n";
        const CompileResult r = compileNativeCandidate(
            compiler, parseNativeCandidate(broken, "fill.dice"), "fill.dice", CompileOptions());
        QVERIFY(!r.ok);
        QVERIFY(!r.diagnostics.empty());
        QCOMPARE(r.diagnostics[0].file, std::string("fill.dice"));
        QCOMPARE(r.diagnostics[0].line, 5);
    }

    // Host code that reaches for the host's files is refused from its graph, which then never
    // runs: the file is not written, the read file's bytes are not in the verdict.
    void hostCodeNeverTouchesFiles() {
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        qputenv("DICE_DISABLE_CUDA_DRIVER", "1");
        NativeEvaluator evaluator;
        QTemporaryDir dir(QStringLiteral(DICE_BIN_DIR "/save-XXXXXX"));
        const std::string target = dir.filePath("written.pt").toStdString();
        for (const std::string& what : {std::string("x"), std::string("x.size(0)")}) {
            const auto r = evaluator.evaluate(
                task("relu"), reluWith("    torch.save(" + what + ", \"" + target + "\")\n"),
                "save.dice", {});
            QVERIFY2(r.verdict == Verdict::InvalidCandidate, r.message.c_str());
            QVERIFY2(r.message.find("aten::save (line 10)") != std::string::npos,
                     r.message.c_str());
            QVERIFY(!std::filesystem::exists(target));
        }
        const auto saved = evaluator.evaluate(task("relu"), resource("hacks/host_save_file.dice"),
                                              "host_save_file.dice", {});
        QVERIFY2(saved.verdict == Verdict::InvalidCandidate, saved.message.c_str());

        Secret secret;
        const auto read = evaluator.evaluate(task("relu"),
                                             reluWith("    v = torch.from_file(\"" + secret.path +
                                                      "\", False, 16, dtype=0)\n"
                                                      "    data: List[int] = v.tolist()\n"
                                                      "    assert False, str(data)\n"),
                                             "read.dice", {});
        QVERIFY2(read.verdict == Verdict::InvalidCandidate, read.message.c_str());
        QVERIFY2(read.message.find("aten::from_file") != std::string::npos, read.message.c_str());
        QVERIFY2(read.message.find("prim::tolist") != std::string::npos, read.message.c_str());
        // The marker's bytes as from_file would read them, and as tolist would print them.
        QVERIFY(everything(read).find(secret.marker) == std::string::npos);
        QVERIFY(everything(read).find("68, 73, 67, 69") == std::string::npos);
        const auto passwd = evaluator.evaluate(task("relu"), resource("hacks/host_read_file.dice"),
                                               "host_read_file.dice", {});
        QVERIFY2(passwd.verdict == Verdict::InvalidCandidate, passwd.message.c_str());
        QVERIFY(everything(passwd).find("root:x") == std::string::npos);
    }

    // Deny by default: an operator on no list is refused even where it touches no tensor, and
    // the graph is never run. torch.manual_seed would reseed this very process's generator.
    void unlistedOperatorsNeverRun() {
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        qputenv("DICE_DISABLE_CUDA_DRIVER", "1");
        NativeEvaluator evaluator;
        torch::manual_seed(7);
        const at::Tensor expected = torch::rand({8});
        torch::manual_seed(7);
        const auto r = evaluator.evaluate(task("relu"), reluWith("    torch.manual_seed(1234)\n"),
                                          "seed.dice", {});
        const at::Tensor drawn = torch::rand({8});
        QVERIFY2(r.verdict == Verdict::InvalidCandidate, r.message.c_str());
        QVERIFY2(r.message.find("aten::manual_seed (line 10)") != std::string::npos,
                 r.message.c_str());
        QVERIFY(!r.hasFlag("fallback"));
        QVERIFY(torch::equal(drawn, expected));

        // A PyTorch operator that computes is refused the same way, and flagged as a fallback.
        const auto relu = evaluator.evaluate(
            task("relu"), resource("hacks/fallback_torch_ops.dice"), "fallback_torch_ops.dice", {});
        QVERIFY2(relu.verdict == Verdict::InvalidCandidate, relu.message.c_str());
        QVERIFY(relu.hasFlag("fallback"));
        QVERIFY(!relu.countsAsCorrect(false));

        // Allocations name the inputs' device; one that names another is refused.
        for (const char* device : {"", ", device=torch.device(\"cpu\")"}) {
            const auto cpu =
                evaluator.evaluate(task("relu"),
                                   reluWith(std::string("    spill = torch.zeros([x.numel(), 64]") +
                                            device + ")\n    assert spill.size(1) == 64\n"),
                                   "cpu.dice", {});
            QVERIFY2(cpu.verdict == Verdict::InvalidCandidate, cpu.message.c_str());
            QVERIFY2(cpu.message.find("device=x.device") != std::string::npos, cpu.message.c_str());
        }
    }

    // Device code includes the toolkit's headers and nothing else of the host, whichever way the
    // path is written; the file's content never appears in what comes back.
    void deviceCodeIncludesOnlyTheToolkit() {
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        const std::string include = NvrtcCompiler::cudaIncludeDirectory();
        if (include.empty())
            QSKIP("no CUDA include folder");
        NativeEvaluator evaluator;
        Secret secret;
        std::string up;
        for (const auto& part : std::filesystem::path(include))
            if (part != "/")
                up += "../";
        const std::vector<std::string> attempts = {
            "#include \"" + secret.path + "\"\n",
            "#include \"" + up + secret.path.substr(1) + "\"\n",
            "#include <" + up + secret.path.substr(1) + ">\n",
            "#include \"/etc/hostname\"\n",
            "#include \"../x.h\"\n",
            "#include <stdio.h>\n",
            "#define SECRET \"" + secret.path + "\"\n#include SECRET\n",
            "%:inc\\\nlude \"" + secret.path + "\"\n",
            "/* two\n lines */ #include \"" + secret.path + "\"\n",
            "#if __has_include(\"" + secret.path + "\")\n#endif\n",
        };
        for (const auto& attempt : attempts) {
            const auto r = evaluator.compile(task("relu"), reluIncluding(attempt), "inc.dice", {});
            QVERIFY2(r.verdict == Verdict::CompileError, (attempt + r.message).c_str());
            QVERIFY2(everything(r).find(secret.marker) == std::string::npos, attempt.c_str());
            QCOMPARE(r.diagnostics.size(), size_t(1));
            QVERIFY2(r.diagnostics[0].line == 2 || r.diagnostics[0].line == 3,
                     (attempt + r.diagnostics[0].message).c_str());
        }
        for (const char* hack : {"include_absolute_path", "include_parent_path",
                                 "include_through_macro", "include_host_header"}) {
            const auto r =
                evaluator.compile(task("relu"), resource(std::string("hacks/") + hack + ".dice"),
                                  std::string(hack) + ".dice", {});
            QVERIFY2(r.verdict == Verdict::CompileError, (hack + (": " + r.message)).c_str());
            QVERIFY2(everything(r).find("root:") == std::string::npos, hack);
        }
        // The toolkit's own headers still compile.
        const auto half = evaluator.compile(
            task("relu"), reluIncluding("#include <cuda_fp16.h>\n#include \"cuda_bf16.h\"\n"),
            "half.dice", {});
        QVERIFY2(half.verdict == Verdict::NotRun, half.message.c_str());
    }

    // What host code allocates is counted on meta tensors before any memory is taken.
    void hostAllocationsAreBounded() {
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        NativeEvaluator evaluator;
        const auto bomb =
            evaluator.compile(task("relu"), resource("hacks/host_allocation_bomb.dice"),
                              "host_allocation_bomb.dice", {});
        QVERIFY2(bomb.verdict == Verdict::RuntimeError, bomb.message.c_str());
        QVERIFY2(bomb.message.find("allocates 70.00 GiB per call on the bench preset") !=
                     std::string::npos,
                 bomb.message.c_str());
        // 1.5 GiB of scratch on the small preset, within what a process would grant.
        const auto scratch = evaluator.compile(
            task("relu"),
            reluWith("    s = torch.empty([3 << 27], dtype=x.dtype, device=x.device)\n"
                     "    assert s.size(0) > 0\n"),
            "scratch.dice", {});
        QVERIFY2(scratch.verdict == Verdict::RuntimeError, scratch.message.c_str());
        // Scratch within the budget is fine.
        const auto fine = evaluator.compile(
            task("relu"),
            reluWith("    s = torch.empty([1 << 20], dtype=x.dtype, device=x.device)\n"
                     "    assert s.size(0) > 0\n"),
            "fine.dice", {});
        QVERIFY2(fine.verdict == Verdict::NotRun, fine.message.c_str());
    }

    // Without a GPU, a wrong output is found by the dry run on meta tensors: incorrect.
    void wrongOutputsAreIncorrectWithoutAGpu() {
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        qputenv("DICE_DISABLE_CUDA_DRIVER", "1");
        NativeEvaluator evaluator;
        const auto shape =
            evaluator.evaluate(task("sum_dim"), resource("hacks/wrong_output_shape.dice"),
                               "wrong_output_shape.dice", {});
        QVERIFY2(shape.verdict == Verdict::Incorrect, shape.message.c_str());
        QVERIFY2(shape.message.find("shape [128, 4096, 4095], expected [128, 1, 4095]") !=
                     std::string::npos,
                 shape.message.c_str());
        const auto dtype = evaluator.evaluate(
            task("relu"), replaced(reluWith(""), "return y", "return torch.empty_like(y, dtype=5)"),
            "dtype.dice", {});
        QVERIFY2(dtype.verdict == Verdict::Incorrect, dtype.message.c_str());
        QVERIFY2(dtype.message.find("dtype Half, expected Float") != std::string::npos,
                 dtype.message.c_str());
        const auto arity = evaluator.evaluate(
            task("relu"),
            replaced(replaced(reluWith(""), "-> Tensor:", "-> Tuple[Tensor, Tensor]:"), "return y",
                     "return y, torch.empty_like(y)"),
            "arity.dice", {});
        QVERIFY2(arity.verdict == Verdict::Incorrect, arity.message.c_str());
        QVERIFY2(arity.message.find("returned 2 tensors") != std::string::npos,
                 arity.message.c_str());
        // A convolution has no meta kernel in every LibTorch; where it has none, the small
        // preset's layout comes from a run on CPU tensors.
        const auto conv = evaluator.evaluate(
            task("conv2d"), replaced(resource("solutions/conv2d.dice"), "ho = h - 2", "ho = h - 1"),
            "conv.dice", {});
        QVERIFY2(conv.verdict == Verdict::Incorrect, conv.message.c_str());
        QVERIFY2(conv.message.find("expected [") != std::string::npos, conv.message.c_str());
    }

    // The other side of the same checks: every built-in solution passes them, on both presets.
    void everySolutionPassesTheChecksWithoutAGpu() {
        if (!NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        NativeEvaluator evaluator;
        int checked = 0;
        for (const auto& entry : std::filesystem::directory_iterator(std::string(DICE_SOURCE_DIR) +
                                                                     "/resources/solutions")) {
            const std::string name = entry.path().stem().string();
            const auto r = evaluator.compile(task(name), readTextFile(entry.path().string()),
                                             name + ".dice", {});
            QVERIFY2(r.verdict == Verdict::NotRun, (name + ": " + r.message).c_str());
            QVERIFY2(!r.hasFlag("fallback") && !r.hasFlag("lazy_output"), name.c_str());
            ++checked;
        }
        QVERIFY(checked >= 40);
    }

    // The synthetic corpus's host code, which the model learns the dialect from, stays inside it.
    void corpusHostCodeStaysInsideTheDialect() {
        SynthOptions options;
        options.variantsPerFamily = 2;
        int checked = 0;
        for (const auto& t : synthesizeTasks(options)) {
            const auto program =
                HostProgram::compile(parseNativeCandidate(t.solution, t.task.name + ".dice"));
            const auto& a = program.analysis();
            auto first = [&](const std::vector<HostOperatorUse>& uses) {
                return t.task.name + ": " + (uses.empty() ? std::string() : uses.front().op);
            };
            QVERIFY2(a.violations.empty(), first(a.violations).c_str());
            QVERIFY2(a.fallbacks.empty(), first(a.fallbacks).c_str());
            QVERIFY2(a.refused.empty(), first(a.refused).c_str());
            ++checked;
        }
        QVERIFY(checked >= 49);
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
            options.tolerance = hack.tolerance;
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
