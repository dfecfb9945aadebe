// SPDX-License-Identifier: GPL-3.0-or-later
// The built-in task suite and its native solutions, checked without a GPU: every reference
// compiles with LibTorch's TorchScript compiler and runs on the small preset; every solution's
// device part compiles with NVRTC for sm_90 without a diagnostic and defines the kernels its host
// part launches; every host part compiles, uses only what the native dialect allows, passes each
// kernel arguments that match its parameters, launches grids the GPU accepts (checked at the bench
// sizes on meta tensors) that cover the tensors the kernels write, and returns what the reference
// returns.
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/frontend/resolver.h>
#include <torch/csrc/jit/frontend/sugared_value.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/runtime/custom_operator.h>
#include <torch/jit.h>
#include <torch/torch.h>

#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/tasks/task.h"

#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace {

// The test's own launch operator: the schema of the dialect's dice.launch, in a namespace of its
// own so that it never collides with the evaluator's operator. It records each launch.
constexpr const char* kLaunchNamespace = "dice_suite_check";

struct Launch {
    std::string kernel;
    std::vector<std::int64_t> grid;
    std::vector<std::int64_t> block;
    std::vector<c10::IValue> args;
    std::int64_t sharedMem = 0;
};

std::vector<Launch>& recordedLaunches() {
    static std::vector<Launch> launches;
    return launches;
}

const torch::jit::RegisterOperators registerLaunch({torch::jit::Operator(
    std::string(kLaunchNamespace) +
        "::launch(str kernel, int[] grid, int[] block, Any args, int shared_mem=0) -> ()",
    [](torch::jit::Stack& stack) {
        Launch launch;
        launch.sharedMem = torch::jit::pop(stack).toInt();
        const c10::IValue args = torch::jit::pop(stack);
        launch.block = torch::jit::pop(stack).toIntVector();
        launch.grid = torch::jit::pop(stack).toIntVector();
        launch.kernel = torch::jit::pop(stack).toStringRef();
        if (args.isTuple()) {
            for (const auto& element : args.toTupleRef().elements())
                launch.args.push_back(element);
        } else {
            launch.args.push_back(args);
        }
        recordedLaunches().push_back(std::move(launch));
    },
    c10::AliasAnalysisKind::CONSERVATIVE)});

// Resolves `torch` to the ATen builtins, as the product's compiler does, and `dice` to a chosen
// operator namespace.
struct HostResolver : torch::jit::Resolver {
    explicit HostResolver(std::string launchNamespace)
        : m_namespace(std::move(launchNamespace)) {}

    std::shared_ptr<torch::jit::SugaredValue>
    resolveValue(const std::string& name, torch::jit::GraphFunction&,
                 const torch::jit::SourceRange&) override {
        if (name == "torch")
            return std::make_shared<torch::jit::BuiltinModule>("aten");
        if (name == "dice")
            return std::make_shared<torch::jit::BuiltinModule>(m_namespace);
        return nullptr;
    }

    c10::TypePtr resolveType(const std::string&, const torch::jit::SourceRange&) override {
        return nullptr;
    }

private:
    std::string m_namespace;
};

struct Solution {
    std::string path;
    std::string device;
    int deviceFirstLine = 0; // line of the file where the device part starts
    std::string host;
};

// Splits a .dice file at its two pragma lines, which must each appear once, device first.
Solution parseSolution(const std::string& path) {
    Solution solution;
    solution.path = path;
    const std::string text = dice::readTextFile(path);
    std::istringstream lines(text);
    std::string line;
    int number = 0;
    int deviceAt = 0;
    int hostAt = 0;
    std::string* part = nullptr;
    while (std::getline(lines, line)) {
        ++number;
        if (line == "#pragma dice device") {
            if (deviceAt != 0 || hostAt != 0)
                throw dice::FileError(path, "line " + std::to_string(number) +
                                                ": a second or late #pragma dice device");
            deviceAt = number;
            part = &solution.device;
            continue;
        }
        if (line == "#pragma dice host") {
            if (deviceAt == 0 || hostAt != 0)
                throw dice::FileError(path,
                                      "line " + std::to_string(number) +
                                          ": #pragma dice host must follow the device part, once");
            hostAt = number;
            part = &solution.host;
            continue;
        }
        if (part)
            *part += line + "\n";
    }
    if (deviceAt == 0 || hostAt == 0)
        throw dice::FileError(path, "needs a #pragma dice device and a #pragma dice host line");
    solution.deviceFirstLine = deviceAt + 1;
    return solution;
}

// The parameter types of a kernel, read from its definition in the device code (the base name
// of a template), with __restrict__ and the names dropped: "const float*", "float*", "int".
std::vector<std::string> kernelParameters(const std::string& device, const std::string& kernel) {
    const std::string base = kernel.substr(0, kernel.find('<'));
    const std::regex definition("__global__[^;{]*?\\b" + base + "\\s*\\(([^)]*)\\)");
    std::smatch match;
    if (!std::regex_search(device, match, definition))
        return {};
    std::vector<std::string> types;
    std::stringstream list(match[1].str());
    std::string parameter;
    while (std::getline(list, parameter, ',')) {
        const std::string restrict = "__restrict__";
        for (auto at = parameter.find(restrict); at != std::string::npos;
             at = parameter.find(restrict))
            parameter.erase(at, restrict.size());
        std::istringstream words(parameter);
        std::vector<std::string> tokens;
        for (std::string word; words >> word;)
            tokens.push_back(word);
        if (tokens.size() < 2)
            return {};
        std::string type;
        for (size_t i = 0; i + 1 < tokens.size(); ++i)
            type += (type.empty() ? "" : " ") + tokens[i];
        if (tokens.back().front() == '*') // "float *x"
            type += "*";
        types.push_back(type);
    }
    return types;
}

torch::Dtype torchDtype(dice::DType dtype) {
    switch (dtype) {
    case dice::DType::Float32:
        return torch::kFloat32;
    case dice::DType::Float16:
        return torch::kFloat16;
    case dice::DType::BFloat16:
        return torch::kBFloat16;
    case dice::DType::Float64:
        return torch::kFloat64;
    case dice::DType::Int32:
        return torch::kInt32;
    case dice::DType::Int64:
        return torch::kInt64;
    case dice::DType::Bool:
        return torch::kBool;
    }
    return torch::kFloat32;
}

// Values drawn as the task file describes them, on the CPU.
torch::Tensor draw(const dice::Task& task, const dice::TensorSpec& spec,
                   const std::string& preset) {
    const auto shape = task.shape(spec, preset);
    const auto& init = spec.init;
    torch::Tensor values;
    switch (init.kind) {
    case dice::InitSpec::Kind::Normal:
        values = torch::randn(shape, torch::kFloat64) * init.b + init.a;
        break;
    case dice::InitSpec::Kind::Uniform:
        values = torch::rand(shape, torch::kFloat64) * (init.b - init.a) + init.a;
        break;
    case dice::InitSpec::Kind::UniformFanIn: {
        const double bound = 1.0 / std::sqrt(task.evaluate(init.fanIn, preset));
        values = (torch::rand(shape, torch::kFloat64) * 2 - 1) * bound;
        break;
    }
    case dice::InitSpec::Kind::RandInt:
        values = torch::randint(static_cast<std::int64_t>(init.a),
                                static_cast<std::int64_t>(init.b), shape, torch::kInt64);
        break;
    case dice::InitSpec::Kind::Bernoulli:
        values = torch::rand(shape, torch::kFloat64) < init.a;
        break;
    case dice::InitSpec::Kind::Ones:
        values = torch::ones(shape, torch::kFloat64);
        break;
    case dice::InitSpec::Kind::File:
        throw dice::Error(spec.name + ": file initialisation is not drawn by this test");
    }
    return values.to(torchDtype(spec.dtype));
}

std::vector<c10::IValue> drawAll(const dice::Task& task, const std::string& preset) {
    std::vector<c10::IValue> values;
    for (const auto* specs : {&task.inputs, &task.parameters})
        for (const auto& spec : *specs)
            values.emplace_back(draw(task, spec, preset));
    return values;
}

// Uninitialised tensors of the preset's shapes on the meta device: shapes without memory, so the
// host code can run at the bench sizes.
std::vector<c10::IValue> metaAll(const dice::Task& task, const std::string& preset) {
    std::vector<c10::IValue> values;
    for (const auto* specs : {&task.inputs, &task.parameters})
        for (const auto& spec : *specs)
            values.emplace_back(torch::empty(
                task.shape(spec, preset),
                torch::TensorOptions().dtype(torchDtype(spec.dtype)).device(torch::kMeta)));
    return values;
}

std::vector<torch::Tensor> tensorsOf(const c10::IValue& value) {
    if (value.isTensor())
        return {value.toTensor()};
    std::vector<torch::Tensor> tensors;
    if (value.isTuple())
        for (const auto& element : value.toTupleRef().elements())
            tensors.push_back(element.toTensor());
    return tensors;
}

std::string describe(const torch::Tensor& t) {
    std::ostringstream out;
    out << t.dtype() << t.sizes();
    return out.str();
}

// What the native dialect lets host code do with tensors (docs/native-dialect.md): allocate,
// read metadata, take views. Nodes that touch no tensor (integer arithmetic, lists of ints,
// control flow, asserts) are always allowed.
bool allowedTensorOperator(const std::string& kind) {
    static const std::set<std::string> allowed = {"aten::empty",
                                                  "aten::empty_like",
                                                  "aten::empty_strided",
                                                  "aten::new_empty",
                                                  "aten::zeros",
                                                  "aten::zeros_like",
                                                  "aten::full",
                                                  "aten::full_like",
                                                  "aten::ones",
                                                  "aten::ones_like",
                                                  "aten::size",
                                                  "aten::numel",
                                                  "aten::dim",
                                                  "aten::stride",
                                                  "aten::is_contiguous",
                                                  "aten::view",
                                                  "aten::reshape",
                                                  "aten::unsqueeze",
                                                  "aten::squeeze",
                                                  "aten::flatten",
                                                  "aten::expand",
                                                  "aten::t",
                                                  "aten::transpose",
                                                  "aten::permute",
                                                  "aten::select",
                                                  "aten::slice",
                                                  "prim::dtype",
                                                  "prim::device",
                                                  "prim::TupleConstruct",
                                                  "prim::TupleUnpack",
                                                  "prim::TupleIndex",
                                                  "prim::ListConstruct",
                                                  "prim::ListUnpack",
                                                  "prim::If",
                                                  "prim::Loop",
                                                  "prim::Constant",
                                                  "prim::Uninitialized",
                                                  "prim::unchecked_cast"};
    return allowed.count(kind) != 0;
}

bool touchesTensors(const torch::jit::Node* node) {
    auto isTensor = [](const torch::jit::Value* v) {
        return v->type()->kind() == c10::TypeKind::TensorType;
    };
    for (const auto* v : node->inputs())
        if (isTensor(v))
            return true;
    for (const auto* v : node->outputs())
        if (isTensor(v))
            return true;
    return false;
}

void collectNodes(torch::jit::Block* block, std::vector<torch::jit::Node*>& nodes) {
    for (auto* node : block->nodes()) {
        nodes.push_back(node);
        for (auto* inner : node->blocks())
            collectNodes(inner, nodes);
    }
}

std::int64_t product(const std::vector<std::int64_t>& v) {
    std::int64_t p = 1;
    for (auto x : v)
        p *= x;
    return p;
}

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
    return (a + b - 1) / b;
}

// How many outputs each kernel family covers per block, from the tiling each solution documents.
// Returns an empty string when the launch covers the tensor it writes, else what is wrong.
// `written` is the tensor argument the kernel stores into, `ints` its integer arguments in order.
std::string coverageProblem(const Launch& launch, const torch::Tensor& written,
                            const std::vector<std::int64_t>& ints) {
    const std::string& k = launch.kernel;
    const auto& g = launch.grid;
    const std::int64_t gx = g[0];
    const std::int64_t gy = g.size() > 1 ? g[1] : 1;
    const std::int64_t gz = g.size() > 2 ? g[2] : 1;
    const std::int64_t threads = product(launch.block);
    const std::int64_t numel = written.numel();
    auto need = [](bool ok, const std::string& what) { return ok ? std::string() : what; };
    auto at = [&](size_t i) { return i < ints.size() ? ints[i] : -1; };
    auto ends = [&](const std::string& suffix) {
        const std::string base = k.substr(0, k.find('<'));
        return base.size() >= suffix.size() &&
               base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0;
    };

    if (ends("_map")) // 256 threads x 4 float4 per thread = 4096 values per block
        return need(threads == 256 && at(0) == numel && gx * 4096 >= numel,
                    "a map block covers 4096 values");
    if (k.find("gemm") !=
        std::string::npos) { // (m, n, k): 128 x 128 tiles (64 features for gate_up)
        const std::int64_t columnsPerBlock = k.rfind("gate_up", 0) == 0 ? 64 : 128;
        return need(threads == 256 && gy * 128 >= at(0) && gx * columnsPerBlock >= at(1) &&
                        at(0) * at(1) * gz == numel,
                    "GEMM tiles of 128 rows x " + std::to_string(columnsPerBlock) + " columns");
    }
    if (k.find("_rows") != std::string::npos) { // one block per row (or per output of a dot)
        const std::int64_t d = at(0);
        bool ok = gx == numel || (d > 0 && gx * d == numel);
        const auto open = k.find('<');
        if (open != std::string::npos) { // <THREADS, VECS>: THREADS * 4 * VECS values per row
            const auto comma = k.find(',', open);
            const std::int64_t t = std::stoll(k.substr(open + 1, comma - open - 1));
            const std::int64_t v = std::stoll(k.substr(comma + 1));
            ok = ok && threads == t && t * 4 * v >= d;
        }
        return need(ok, "one block per row, each holding the whole row");
    }
    if (ends("_middle") || k == "column_sums") { // (rows, cols): 32 columns per block
        const std::int64_t cols = at(1);
        return need(cols > 0 && numel % cols == 0 && gx == (numel / cols) * ceilDiv(cols, 32) &&
                        threads == 256,
                    "32 columns of one batch entry per block");
    }
    if (k.rfind("conv_", 0) == 0) { // (cin, cout, h, wi, ho, wo): 8 x 32 pixels x 32 channels
        const std::int64_t cout = at(ints.size() - 5), ho = at(ints.size() - 2),
                           wo = at(ints.size() - 1);
        const bool tiles = gx == ceilDiv(wo, 32) * ceilDiv(ho, 8) && gy * 32 >= cout;
        const bool sizes = numel == gz * cout * ho * wo || numel == gz * cout * gx;
        return need(threads == 256 && tiles && sizes, "8 x 32 pixel tiles of 32 channels");
    }
    if (k == "depthwise3x3") // (channels, h, wi, ho, wo): 16 x 128 outputs per block
        return need(gx * 128 >= at(4) && gy * 16 >= at(3) && gz * at(3) * at(4) == numel,
                    "16 x 128 outputs per block");
    if (k == "max_pool_3s2p1") // (h, wi, ho, wo): 4 x 64 outputs per block
        return need(gx * 64 >= at(3) && gy * 4 >= at(2) && gz * at(2) * at(3) == numel,
                    "4 x 64 outputs per block");
    if (k == "avg_pool_11") // (h, wi, ho, wo): 8 x 32 outputs per block
        return need(gx * 32 >= at(3) && gy * 8 >= at(2) && gz * at(2) * at(3) == numel,
                    "8 x 32 outputs per block");
    if (k.rfind("attention64", 0) ==
        0) // (seq, heads): 128 queries per block, grid.y = batch x heads
        return need(gx * 128 >= at(0) && gy * at(0) * 64 == numel, "128 queries per block");
    if (k == "lenet_features") // one image per block, 400 features each
        return need(gx * 400 == numel, "one image per block");
    if (k == "mean_of_partials") // (planes, tiles): one plane per thread
        return need(gx * threads >= at(0) && at(0) == numel, "one plane per thread");
    return "no coverage rule for this kernel";
}

} // namespace

class TestSuite : public QObject {
    Q_OBJECT

    std::string source(const std::string& relative) const {
        return std::string(DICE_SOURCE_DIR) + "/" + relative;
    }

    dice::TaskSuite m_suite;

    // Compiles host code with `dice` bound to the given operator namespace.
    std::shared_ptr<torch::jit::CompilationUnit> compileHost(const Solution& solution,
                                                             const std::string& launchNamespace) {
        auto unit = std::make_shared<torch::jit::CompilationUnit>();
        unit->define(c10::nullopt, solution.host, std::make_shared<HostResolver>(launchNamespace),
                     nullptr);
        return unit;
    }

    void taskRows() {
        QTest::addColumn<QString>("name");
        for (const auto& task : m_suite.tasks)
            QTest::newRow(task.name.c_str()) << QString::fromStdString(task.name);
    }

private Q_SLOTS:
    void initTestCase() {
        m_suite = dice::loadTaskSuite(source("resources/tasks"));
        for (const auto& p : m_suite.problems)
            qWarning("%s: %s", p.path.c_str(), p.message.c_str());
        QVERIFY(m_suite.problems.empty());
        torch::manual_seed(20240607);
    }

    void suiteCoversTheThreeLevels() {
        std::map<int, int> perLevel;
        for (const auto& task : m_suite.tasks) {
            ++perLevel[task.level];
            QVERIFY2(task.hasPreset("bench"), task.name.c_str());
            QVERIFY2(!task.flops.empty(), task.name.c_str());
            QVERIFY2(!task.tags.empty(), task.name.c_str());
            QVERIFY2(!task.family.empty(), task.name.c_str());
            QVERIFY2(task.pytorchModule.find("def get_init_inputs()") != std::string::npos,
                     task.name.c_str());
            for (const auto& spec : task.parameters) {
                if (spec.init.kind == dice::InitSpec::Kind::UniformFanIn) {
                    // Fan-in is that of PyTorch's Linear and Conv layers: the product of every
                    // dimension of the weight but the first.
                    QVERIFY2(task.evaluate(spec.init.fanIn, "small") >= 1, spec.name.c_str());
                }
            }
        }
        QVERIFY(m_suite.tasks.size() >= 40);
        QVERIFY(perLevel[1] >= 20);
        QVERIFY(perLevel[2] >= 12);
        QVERIFY(perLevel[3] >= 6);
    }

    void referenceCompilesAndRuns_data() { taskRows(); }

    void referenceCompilesAndRuns() {
        QFETCH(QString, name);
        const dice::Task* task = m_suite.find(name.toStdString());
        QVERIFY(task);
        try {
            checkReference(task);
        } catch (const std::exception& e) {
            QFAIL((task->name + ": " + e.what()).c_str());
        }
    }

    void everyTaskHasASolution_data() { taskRows(); }

    void everyTaskHasASolution() {
        QFETCH(QString, name);
        const std::string path = source("resources/solutions/" + name.toStdString() + ".dice");
        QVERIFY2(std::filesystem::exists(path), path.c_str());
    }

    void solutionsFileFormat() {
        namespace fs = std::filesystem;
        int solutions = 0;
        std::set<int> levels;
        for (const auto& entry : fs::directory_iterator(source("resources/solutions"))) {
            QCOMPARE(entry.path().extension().string(), std::string(".dice"));
            const std::string stem = entry.path().stem().string();
            const dice::Task* task = m_suite.find(stem);
            QVERIFY2(task, ("no task for solution " + stem).c_str());
            levels.insert(task->level);
            const Solution solution = parseSolution(entry.path().string());
            QVERIFY(!solution.device.empty());
            QVERIFY(solution.host.find("def forward(") != std::string::npos);
            QVERIFY2(dice::readTextFile(entry.path().string())
                             .rfind("// SPDX-License-Identifier: GPL-3.0-or-later\n", 0) == 0,
                     stem.c_str());
            ++solutions;
        }
        QVERIFY(solutions >= 20);
        QCOMPARE(levels.size(), size_t(3));
    }

    void badSolutionFilesAreRejected() {
        const std::string dir = QDir::tempPath().toStdString() + "/dice-suite-test";
        std::filesystem::create_directories(dir);
        const std::pair<const char*, const char*> cases[] = {
            {"#pragma dice host\ndef forward(x: Tensor) -> Tensor:\n    return x\n",
             "must follow the device part"},
            {"#pragma dice device\n__global__ void k() {}\n", "needs a #pragma dice device"},
            {"#pragma dice device\n#pragma dice device\n#pragma dice host\n", "a second"},
        };
        for (const auto& [text, expected] : cases) {
            const std::string path = dir + "/bad.dice";
            std::ofstream(path, std::ios::binary) << text;
            QVERIFY_EXCEPTION_THROWN(parseSolution(path), dice::FileError);
            try {
                parseSolution(path);
            } catch (const dice::FileError& e) {
                QVERIFY2(std::string(e.what()).find(expected) != std::string::npos, e.what());
                QVERIFY(std::string(e.what()).rfind(path, 0) == 0);
            }
        }
        std::filesystem::remove_all(dir);
    }

    void solutionIsSound_data() { taskRows(); }

    void solutionIsSound() {
        QFETCH(QString, name);
        const dice::Task* task = m_suite.find(name.toStdString());
        QVERIFY(task);
        try {
            checkSolution(task);
        } catch (const std::exception& e) {
            QFAIL((task->name + ": " + e.what()).c_str());
        }
    }

private:
    void checkReference(const dice::Task* task) {
        auto unit = torch::jit::compile(task->reference);
        auto& reference = unit->get_function("reference");
        QCOMPARE(reference.getSchema().arguments().size(),
                 task->inputs.size() + task->parameters.size());
        torch::NoGradGuard noGrad;
        const auto result = reference(drawAll(*task, "small"));
        const auto outputs = tensorsOf(result);
        QVERIFY(!outputs.empty());
        for (const auto& out : outputs) {
            QVERIFY(out.numel() > 0);
            if (out.is_floating_point()) {
                QVERIFY2(torch::isfinite(out).all().item<bool>(), task->name.c_str());
                // An output that is the same everywhere would not tell a candidate from a guess.
                QVERIFY2(out.numel() == 1 ||
                             out.std().item<double>() > 1e-6 * out.abs().mean().item<double>(),
                         task->name.c_str());
            }
        }
    }

    void checkSolution(const dice::Task* task) {
        const std::string path = source("resources/solutions/" + task->name + ".dice");
        const Solution solution = parseSolution(path);

        // Host code: compiles, and its graph holds only what the dialect allows.
        auto unit = compileHost(solution, kLaunchNamespace);
        auto& forward = unit->get_function("forward");
        QCOMPARE(forward.getSchema().arguments().size(),
                 task->inputs.size() + task->parameters.size());
        auto graph = torch::jit::toGraphFunction(forward).graph()->copy();
        torch::jit::Inline(*graph);
        std::vector<torch::jit::Node*> nodes;
        collectNodes(graph->block(), nodes);
        const std::string launchKind = std::string(kLaunchNamespace) + "::launch";
        std::set<std::string> kernels;
        for (const auto* node : nodes) {
            const std::string kind = node->kind().toQualString();
            if (kind == launchKind) {
                const auto constant = torch::jit::toIValue(node->input(0));
                QVERIFY2(constant && constant->isString(),
                         (task->name + ": kernel names must be string literals").c_str());
                kernels.insert(constant->toStringRef());
                continue;
            }
            if (touchesTensors(node))
                QVERIFY2(allowedTensorOperator(kind),
                         (task->name + ": host code computes with " + kind).c_str());
        }
        QVERIFY2(!kernels.empty(), task->name.c_str());

        // The same host code compiles against the evaluator's operator where it is registered.
        if (!torch::jit::getAllOperatorsFor(c10::Symbol::fromQualString("dice::launch")).empty())
            compileHost(solution, "dice");

        // Device code: compiles for sm_90 without errors or warnings and defines every kernel.
        if (dice::NvrtcCompiler::available()) {
            dice::NvrtcCompiler compiler(0);
            dice::CompileOptions options;
            options.architecture = "sm_90";
            for (const auto& kernel : kernels)
                if (kernel.find('<') != std::string::npos)
                    options.nameExpressions.push_back(kernel);
            const std::string device = "#line " + std::to_string(solution.deviceFirstLine) + " \"" +
                                       path + "\"\n" + solution.device;
            const auto compiled = compiler.compile(device, path, options);
            QVERIFY2(compiled.ok, compiled.log.c_str());
            QVERIFY2(compiled.errorCount() == 0 && compiled.warningCount() == 0,
                     compiled.log.c_str());
            for (const auto& kernel : kernels) {
                std::string entry = kernel;
                if (kernel.find('<') != std::string::npos) {
                    QVERIFY2(compiled.loweredNames.count(kernel), kernel.c_str());
                    entry = compiled.loweredNames.at(kernel);
                }
                QVERIFY2(compiled.ptx.find(".entry " + entry + "(") != std::string::npos,
                         (task->name + ": no kernel " + kernel).c_str());
            }
            // The GEMMs are capped at 128 registers for two blocks a multiprocessor; ptxas may
            // park a word or two on the stack there, but no more.
            for (const auto& usage : compiled.resources)
                QVERIFY2(usage.spillStoreBytes <= 8,
                         (task->name + " spills in " + usage.function).c_str());
        }

        // Host logic on the small preset: the outputs have the reference's shapes and dtypes.
        torch::NoGradGuard noGrad;
        auto reference = torch::jit::compile(task->reference);
        const auto small = drawAll(*task, "small");
        const auto expected = tensorsOf(reference->get_function("reference")(small));
        recordedLaunches().clear();
        const auto got = tensorsOf(forward(small));
        QCOMPARE(got.size(), expected.size());
        for (size_t i = 0; i < got.size(); ++i)
            QVERIFY2(got[i].sizes() == expected[i].sizes() && got[i].dtype() == expected[i].dtype(),
                     (task->name + ": returns " + describe(got[i]) + ", the reference " +
                      describe(expected[i]))
                         .c_str());
        checkLaunches(*task, solution, got, "small");
        if (QTest::currentTestFailed())
            return;

        // Host logic at the bench sizes, on meta tensors: grids, blocks and integer arguments
        // within what the GPU and the kernels' parameter types accept.
        recordedLaunches().clear();
        const auto benchOutputs = tensorsOf(forward(metaAll(*task, "bench")));
        checkLaunches(*task, solution, benchOutputs, "bench");
    }

    void checkLaunches(const dice::Task& task, const Solution& solution,
                       const std::vector<torch::Tensor>& outputs, const std::string& preset) {
        const auto& launches = recordedLaunches();
        QVERIFY(!launches.empty());
        std::set<const void*> written;
        for (const auto& launch : launches) {
            const std::string where = task.name + " (" + preset + ") " + launch.kernel + ": ";
            QVERIFY2(!launch.grid.empty() && launch.grid.size() <= 3, where.c_str());
            QVERIFY2(!launch.block.empty() && launch.block.size() <= 3, where.c_str());
            QVERIFY2(launch.grid[0] >= 1 && launch.grid[0] <= 2147483647LL,
                     (where + "grid.x").c_str());
            for (size_t i = 1; i < launch.grid.size(); ++i)
                QVERIFY2(launch.grid[i] >= 1 && launch.grid[i] <= 65535,
                         (where + "grid.y and grid.z are at most 65535").c_str());
            QVERIFY2(product(launch.block) >= 1 && product(launch.block) <= 1024,
                     (where + "at most 1024 threads a block").c_str());
            QVERIFY2(launch.sharedMem >= 0 && launch.sharedMem <= 48 * 1024,
                     (where + "dynamic shared memory above the default 48 KiB").c_str());

            const auto types = kernelParameters(solution.device, launch.kernel);
            QVERIFY2(types.size() == launch.args.size(),
                     (where + std::to_string(launch.args.size()) + " arguments for " +
                      std::to_string(types.size()) + " parameters")
                         .c_str());
            std::vector<std::int64_t> ints;
            torch::Tensor target;
            for (size_t i = 0; i < types.size(); ++i) {
                const auto& type = types[i];
                const auto& arg = launch.args[i];
                const std::string what =
                    where + "parameter " + std::to_string(i) + " (" + type + ")";
                if (type.back() == '*') {
                    QVERIFY2(arg.isTensor(), (what + " needs a tensor").c_str());
                    const auto t = arg.toTensor();
                    const bool readOnly = type.rfind("const ", 0) == 0;
                    const std::string pointer = readOnly ? type.substr(6) : type;
                    const std::map<std::string, torch::Dtype> pointee = {
                        {"float*", torch::kFloat32},
                        {"long long*", torch::kInt64},
                        {"int*", torch::kInt32}};
                    QVERIFY2(pointee.count(pointer) && pointee.at(pointer) == t.scalar_type(),
                             (what + " gets " + describe(t)).c_str());
                    QVERIFY2(t.is_contiguous(), (what + " gets a strided view").c_str());
                    if (!readOnly && !target.defined())
                        target = t;
                } else if (type == "int") {
                    QVERIFY2(arg.isInt(), (what + " needs an int").c_str());
                    QVERIFY2(arg.toInt() >= -2147483648LL && arg.toInt() <= 2147483647LL,
                             (what + " out of range: " + std::to_string(arg.toInt())).c_str());
                    ints.push_back(arg.toInt());
                } else if (type == "long long") {
                    QVERIFY2(arg.isInt(), (what + " needs an int").c_str());
                    ints.push_back(arg.toInt());
                } else if (type == "float") {
                    QVERIFY2(arg.isDouble(), (what + " needs a float").c_str());
                } else {
                    QFAIL((what + ": a parameter type the suite does not use").c_str());
                }
            }
            // Suite kernels declare what they only read const: the first pointer without const
            // is the tensor the kernel writes.
            QVERIFY2(target.defined(), (where + "writes no tensor").c_str());
            const std::string problem = coverageProblem(launch, target, ints);
            QVERIFY2(problem.empty(),
                     (where + "does not cover " + describe(target) + ": " + problem).c_str());
            written.insert(target.storage().unsafeGetStorageImpl());
        }
        for (const auto& out : outputs)
            QVERIFY2(written.count(out.storage().unsafeGetStorageImpl()),
                     (task.name + ": an output is written by no kernel").c_str());
    }
};

QTEST_GUILESS_MAIN(TestSuite)
#include "tst_suite.moc"
