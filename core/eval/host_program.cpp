// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/script.h>

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/frontend/resolver.h>
#include <torch/csrc/jit/frontend/sugared_value.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/runtime/custom_operator.h>
#include <torch/csrc/jit/runtime/graph_executor.h>

#include "core/eval/host_program.h"

#include "core/eval/host_operators.h"

#include "core/common/large_stack.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <regex>
#include <set>

namespace dice {

namespace {

constexpr std::size_t kMaxHostMessage = 240;

thread_local KernelLauncher* t_launcher = nullptr;
thread_local AllocationGuard* t_guard = nullptr;
// Set on the thread with the large stack that a compile moved to.
thread_local bool t_onCompileStack = false;

// TorchScript's frontend recurses once per level of nesting and once per operator of a chain such
// as - - - x or x + x + ... + x, and a stack overflow kills the whole process. Brackets give the
// deepest nesting per byte, so they are limited outright, far above anything real code needs;
// every other chain is bounded by the size of the source, which the compile thread's stack is
// sized for: 256 KiB of unary minus compile on it, half a million overflow it, and the largest
// host code of the built-in solutions is about 2 KiB.
constexpr int kMaxBracketNesting = 200;
constexpr std::size_t kMaxTorchScriptBytes = 64 * 1024;

// The line (from 1) on which brackets first nest deeper than kMaxBracketNesting, 0 when they
// never do. Brackets inside strings and comments do not count.
int lineOfDeepNesting(const std::string& source) {
    int line = 1;
    int depth = 0;
    for (std::size_t i = 0; i < source.size(); ++i) {
        const char c = source[i];
        if (c == '\n') {
            ++line;
        } else if (c == '#') {
            while (i + 1 < source.size() && source[i + 1] != '\n')
                ++i;
        } else if (c == '"' || c == '\'') {
            const bool triple = source.compare(i, 3, std::string(3, c)) == 0;
            const std::size_t quoteLength = triple ? 3 : 1;
            for (i += quoteLength; i < source.size(); ++i) {
                if (source[i] == '\n')
                    ++line;
                if (source[i] == '\\') {
                    if (i + 1 < source.size() && source[i + 1] == '\n')
                        ++line;
                    ++i;
                } else if (source.compare(i, quoteLength, std::string(quoteLength, c)) == 0) {
                    i += quoteLength - 1;
                    break;
                } else if (!triple && source[i] == '\n') {
                    break;
                }
            }
        } else if (c == '(' || c == '[' || c == '{') {
            if (++depth > kMaxBracketNesting)
                return line;
        } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return 0;
}

std::string deepNestingMessage() {
    return "brackets nest deeper than " + std::to_string(kMaxBracketNesting) + " levels";
}

const char* kindName(ParamKind kind) {
    switch (kind) {
    case ParamKind::Pointer:
        return "pointer";
    case ParamKind::Int32:
        return "int";
    case ParamKind::UInt32:
        return "unsigned int";
    case ParamKind::Int64:
        return "long long";
    case ParamKind::UInt64:
        return "unsigned long long";
    case ParamKind::Float32:
        return "float";
    case ParamKind::Float64:
        return "double";
    case ParamKind::Bool:
        return "bool";
    }
    return "?";
}

std::string torchDtypeName(c10::ScalarType t) {
    switch (t) {
    case c10::ScalarType::Float:
        return "float32";
    case c10::ScalarType::Half:
        return "float16";
    case c10::ScalarType::BFloat16:
        return "bfloat16";
    case c10::ScalarType::Double:
        return "float64";
    case c10::ScalarType::Int:
        return "int32";
    case c10::ScalarType::Long:
        return "int64";
    case c10::ScalarType::Bool:
        return "bool";
    case c10::ScalarType::Byte:
        return "uint8";
    default:
        return c10::toString(t);
    }
}

bool dtypeMatches(DType want, c10::ScalarType have) {
    switch (want) {
    case DType::Float32:
        return have == c10::ScalarType::Float;
    case DType::Float16:
        return have == c10::ScalarType::Half;
    case DType::BFloat16:
        return have == c10::ScalarType::BFloat16;
    case DType::Float64:
        return have == c10::ScalarType::Double;
    case DType::Int32:
        return have == c10::ScalarType::Int;
    case DType::Int64:
        return have == c10::ScalarType::Long;
    case DType::Bool:
        return have == c10::ScalarType::Bool || have == c10::ScalarType::Byte;
    }
    return false;
}

[[noreturn]] void launchError(const std::string& kernel, const std::string& why) {
    throw Error("dice.launch(\"" + kernel + "\"): " + why);
}

void readShape(const std::string& kernel, const char* what, const std::vector<int64_t>& dims,
               unsigned out[3]) {
    if (dims.empty() || dims.size() > 3)
        launchError(kernel, std::string(what) + " must have one to three entries, not " +
                                std::to_string(dims.size()));
    for (std::size_t i = 0; i < 3; ++i) {
        const int64_t v = i < dims.size() ? dims[i] : 1;
        if (v < 1 || v > std::numeric_limits<unsigned>::max())
            launchError(kernel, std::string(what) + "[" + std::to_string(i) + "] is " +
                                    std::to_string(v) + ", outside 1.." +
                                    std::to_string(std::numeric_limits<unsigned>::max()));
        out[i] = static_cast<unsigned>(v);
    }
}

LaunchArgument convertArgument(const std::string& kernel, std::size_t index,
                               const KernelParam& param, const c10::IValue& value,
                               KernelLauncher::TensorHome home) {
    const std::string where = "parameter " + std::to_string(index + 1) + " (" + param.type +
                              (param.name.empty() ? std::string() : " " + param.name) + ")";
    LaunchArgument arg;
    arg.kind = param.kind;
    if (param.kind == ParamKind::Pointer) {
        if (!value.isTensor())
            launchError(kernel, where + " needs a tensor, got " + value.tagKind());
        const at::Tensor& t = value.toTensor();
        if (!t.defined())
            launchError(kernel, where + " got an undefined tensor");
        if (!dtypeMatches(param.dtype, t.scalar_type()))
            launchError(kernel, where + " needs a tensor of " + toString(param.dtype) +
                                    ", got one of " + torchDtypeName(t.scalar_type()));
        using Home = KernelLauncher::TensorHome;
        const bool placed =
            t.is_cuda() || home == Home::Anywhere || (home == Home::GpuOrMeta && t.is_meta());
        if (!placed)
            launchError(kernel, where + " got a tensor on " + t.device().str() +
                                    "; kernels read GPU memory only");
        const std::int64_t itemBytes = static_cast<std::int64_t>(t.element_size());
        // A meta tensor has no data: its address is its offset from an allocation, which the
        // caching allocator aligns to far more than any vector type needs.
        const auto address = t.is_meta()
                                 ? static_cast<std::uintptr_t>(t.storage_offset() * itemBytes)
                                 : reinterpret_cast<std::uintptr_t>(t.data_ptr());
        if (param.vectorWidth > 1) {
            const auto alignment = static_cast<std::uintptr_t>(itemBytes * param.vectorWidth);
            if (address % alignment != 0)
                launchError(kernel, where + " reads " + std::to_string(param.vectorWidth) +
                                        " elements at a time, but the tensor's data is not " +
                                        std::to_string(alignment) + "-byte aligned");
        }
        const std::int64_t storageBytes = static_cast<std::int64_t>(t.storage().nbytes());
        arg.bits = address;
        arg.bytes = storageBytes - t.storage_offset() * itemBytes;
        return arg;
    }
    auto intValue = [&](int64_t lo, int64_t hi) -> int64_t {
        if (!value.isInt())
            launchError(kernel, where + " needs an int, got " + value.tagKind());
        const int64_t v = value.toInt();
        if (v < lo || v > hi)
            launchError(kernel, where + ": " + std::to_string(v) + " is outside the range of " +
                                    kindName(param.kind) + " (" + std::to_string(lo) + ".." +
                                    std::to_string(hi) + ")");
        return v;
    };
    switch (param.kind) {
    case ParamKind::Int32: {
        const auto v = static_cast<int32_t>(
            intValue(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
        std::memcpy(&arg.bits, &v, sizeof(v));
        break;
    }
    case ParamKind::UInt32: {
        const auto v = static_cast<uint32_t>(intValue(0, std::numeric_limits<uint32_t>::max()));
        std::memcpy(&arg.bits, &v, sizeof(v));
        break;
    }
    case ParamKind::Int64: {
        const int64_t v =
            intValue(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
        std::memcpy(&arg.bits, &v, sizeof(v));
        break;
    }
    case ParamKind::UInt64: {
        const auto v = static_cast<uint64_t>(intValue(0, std::numeric_limits<int64_t>::max()));
        std::memcpy(&arg.bits, &v, sizeof(v));
        break;
    }
    case ParamKind::Float32:
    case ParamKind::Float64: {
        double v = 0;
        if (value.isDouble())
            v = value.toDouble();
        else if (value.isInt())
            v = static_cast<double>(value.toInt());
        else
            launchError(kernel, where + " needs a float, got " + value.tagKind());
        if (param.kind == ParamKind::Float32) {
            if (std::isfinite(v) && std::abs(v) > std::numeric_limits<float>::max())
                launchError(kernel,
                            where + ": " + std::to_string(v) + " is outside the range of float");
            const auto f = static_cast<float>(v);
            std::memcpy(&arg.bits, &f, sizeof(f));
        } else {
            std::memcpy(&arg.bits, &v, sizeof(v));
        }
        break;
    }
    case ParamKind::Bool: {
        if (!value.isBool())
            launchError(kernel, where + " needs a bool, got " + value.tagKind());
        const unsigned char b = value.toBool() ? 1 : 0;
        std::memcpy(&arg.bits, &b, sizeof(b));
        break;
    }
    case ParamKind::Pointer:
        break;
    }
    return arg;
}

void runLaunch(torch::jit::Stack& stack) {
    auto inputs = torch::jit::pop(stack, 5);
    const std::string kernel = inputs[0].toStringRef();
    KernelLauncher* launcher = t_launcher;
    if (!launcher)
        launchError(kernel, "called outside an evaluation");
    LaunchCall call;
    call.kernel = kernel;
    readShape(kernel, "grid", inputs[1].toIntVector(), call.grid);
    readShape(kernel, "block", inputs[2].toIntVector(), call.block);
    const int64_t shared = inputs[4].toInt();
    if (shared < 0 || shared > std::numeric_limits<int32_t>::max())
        launchError(kernel, "shared_mem is " + std::to_string(shared) + " bytes");
    call.sharedBytes = static_cast<unsigned>(shared);
    const auto& params = launcher->parameters(kernel);
    const c10::IValue& args = inputs[3];
    if (!args.isTuple())
        launchError(kernel, "args must be a tuple such as (x, y, n), got " + args.tagKind());
    const auto& elements = args.toTupleRef().elements();
    if (elements.size() != params.size())
        launchError(kernel, "the kernel takes " + std::to_string(params.size()) +
                                " parameters, args has " + std::to_string(elements.size()));
    for (std::size_t i = 0; i < params.size(); ++i)
        call.args.push_back(
            convertArgument(kernel, i, params[i], elements[i], launcher->accepts()));
    launcher->launch(call);
}

void runGuard(torch::jit::Stack& stack) {
    auto inputs = torch::jit::pop(stack, 2);
    at::Tensor allocated = inputs[0].toTensor();
    const bool poison = inputs[1].toBool();
    if (t_guard)
        torch::jit::push(stack, t_guard->guard(allocated, poison));
    else
        torch::jit::push(stack, std::move(allocated));
}

// CONSERVATIVE alias analysis: an operator that returns nothing would otherwise be removed as
// dead code, and the guard must not be reordered or folded.
const torch::jit::RegisterOperators kDialectOperators({
    torch::jit::Operator("dice::launch(str kernel, int[] grid, int[] block, Any args, "
                         "int shared_mem=0) -> ()",
                         torch::jit::Operation(runLaunch), c10::AliasAnalysisKind::CONSERVATIVE),
    torch::jit::Operator("dice::guard(Tensor t, bool poison) -> Tensor",
                         torch::jit::Operation(runGuard), c10::AliasAnalysisKind::CONSERVATIVE),
});

struct DialectResolver : torch::jit::Resolver {
    std::shared_ptr<torch::jit::SugaredValue>
    resolveValue(const std::string& name, torch::jit::GraphFunction&,
                 const torch::jit::SourceRange&) override {
        if (name == "torch")
            return std::make_shared<torch::jit::BuiltinModule>("aten");
        if (name == "dice")
            return std::make_shared<torch::jit::BuiltinModule>("dice");
        return nullptr;
    }
    c10::TypePtr resolveType(const std::string&, const torch::jit::SourceRange&) override {
        return nullptr;
    }
};

// TorchScript names its source "<string>" and counts its lines from 1.
int lineFromMessage(const std::string& message) {
    static const std::regex pattern(R"(File "<string>", line (\d+))");
    std::smatch match;
    int line = 0;
    std::string rest = message;
    while (std::regex_search(rest, match, pattern)) {
        line = std::stoi(match[1].str());
        rest = match.suffix().str();
    }
    return line;
}

std::string firstParagraph(const std::string& message) {
    // TorchScript's messages may start with blank lines; the first line of text says what is
    // wrong, the rest points at the source.
    std::size_t start = message.find_first_not_of(" \t\r\n");
    if (start == std::string::npos)
        return message;
    std::string text = message.substr(start);
    const std::size_t newline = text.find('\n');
    if (newline != std::string::npos)
        text = text.substr(0, newline);
    while (!text.empty() && (text.back() == ':' || text.back() == ' '))
        text.pop_back();
    return text;
}

int nodeLine(const torch::jit::Node* node) {
    const auto where = node->sourceRange().file_line_col();
    if (!where)
        return 0;
    return static_cast<int>(std::get<1>(*where));
}

bool containsTensor(const c10::TypePtr& type) {
    if (type->kind() == c10::TypeKind::TensorType)
        return true;
    for (const auto& contained : type->containedTypes())
        if (containsTensor(contained))
            return true;
    return false;
}

template <typename Visit>
void forEachNode(torch::jit::Block* block, const Visit& visit) {
    for (torch::jit::Node* node : block->nodes()) {
        visit(node);
        for (torch::jit::Block* sub : node->blocks())
            forEachNode(sub, visit);
    }
}

} // namespace

LauncherScope::LauncherScope(KernelLauncher* launcher, AllocationGuard* guard)
    : m_previousLauncher(t_launcher)
    , m_previousGuard(t_guard) {
    t_launcher = launcher;
    t_guard = guard;
}

LauncherScope::~LauncherScope() {
    t_launcher = m_previousLauncher;
    t_guard = m_previousGuard;
}

std::string hostErrorMessage(const std::string& what) {
    auto lineAt = [&](std::size_t at) {
        const std::size_t end = what.find('\n', at);
        return what.substr(at, end == std::string::npos ? std::string::npos : end - at);
    };
    std::string line;
    const std::size_t launch = what.rfind("dice.launch(\"");
    const std::size_t error = what.rfind("Error: ");
    if (launch != std::string::npos)
        line = lineAt(launch);
    else if (error != std::string::npos)
        line = lineAt(error + 7);
    else
        line = lineAt(0);
    // The text of an assert or a raise is the candidate's: it reaches the verdict as one short
    // line of printable ASCII, whatever it holds.
    std::string safe;
    for (const char c : line) {
        if (safe.size() >= kMaxHostMessage) {
            safe += "...";
            break;
        }
        const auto u = static_cast<unsigned char>(c);
        safe += u >= 0x20 && u < 0x7F ? c : '?';
    }
    return safe;
}

struct HostProgram::Impl {
    std::shared_ptr<torch::jit::CompilationUnit> unit;
    std::shared_ptr<torch::jit::Graph> inlined;
    std::unique_ptr<torch::jit::GraphFunction> guarded;
    HostAnalysis analysis;
};

HostProgram HostProgram::compile(const NativeCandidate& candidate) {
    auto fail = [&](int hostLine, const std::string& message) -> HostCompileError {
        Diagnostic d;
        d.file = candidate.origin;
        d.line = hostLine > 0 ? candidate.fileLineOfHostLine(hostLine) : candidate.hostFirstLine;
        d.severity = Severity::Error;
        d.message = message;
        return HostCompileError(d);
    };
    if (!t_onCompileStack) {
        if (candidate.host.size() > kMaxTorchScriptBytes)
            throw fail(0, "host code: longer than 64 KiB");
        if (const int line = lineOfDeepNesting(candidate.host); line > 0)
            throw fail(line, "host code: " + deepNestingMessage());
        HostProgram program;
        runOnLargeStack([&] {
            t_onCompileStack = true;
            program = compile(candidate);
        });
        return program;
    }
    HostProgram program;
    program.m_impl = std::make_shared<Impl>();
    Impl& impl = *program.m_impl;
    impl.unit = std::make_shared<torch::jit::CompilationUnit>();
    try {
        impl.unit->define(c10::nullopt, candidate.host, std::make_shared<DialectResolver>(),
                          nullptr);
    } catch (const std::exception& e) {
        const std::string message = e.what();
        throw fail(lineFromMessage(message), "host code: " + firstParagraph(message));
    }
    torch::jit::Function* forward = impl.unit->find_function("forward");
    if (!forward)
        throw fail(0, "host code: no function named forward (the entry point)");
    impl.inlined = torch::jit::toGraphFunction(*forward).graph()->copy();
    torch::jit::Inline(*impl.inlined);

    HostAnalysis& a = impl.analysis;
    a.arity = static_cast<int>(forward->getSchema().arguments().size());
    std::set<std::string> seen;
    forEachNode(impl.inlined->block(), [&](torch::jit::Node* node) {
        const std::string op = node->kind().toQualString();
        const int line = nodeLine(node) > 0 ? candidate.fileLineOfHostLine(nodeLine(node)) : 0;
        seen.insert(op);
        if (op == "dice::launch") {
            const auto name = torch::jit::toIValue(node->input(0));
            if (!name || !name->isString())
                a.violations.push_back(
                    {"the kernel name given to dice.launch must be a string literal", line});
            else
                a.launches.push_back({name->toStringRef(), line});
            return;
        }
        if (op == "prim::Print") {
            a.violations.push_back({"print() is not allowed in host code", line});
            return;
        }
        if (node->kind().is_prim() && (op == "prim::CallFunction" || op == "prim::CallMethod")) {
            a.violations.push_back({"a call that cannot be inlined (recursion?)", line});
            return;
        }
        if (!node->kind().is_aten() && !node->kind().is_prim()) {
            a.violations.push_back({"operator " + op + " is not part of the dialect", line});
            return;
        }
        if (isHostAllocation(op)) {
            // Every tensor lives where the inputs do, so that the dry run allocates meta tensors
            // and no allocation reaches the worker's own memory: a device is either left to a
            // *_like or new_* allocation or read from a tensor (device=x.device).
            const c10::FunctionSchema* schema = node->maybeSchema();
            const auto index = schema ? schema->argumentIndexWithName("device") : c10::nullopt;
            const torch::jit::Value* device =
                index ? node->input(static_cast<std::size_t>(*index)) : nullptr;
            const bool inherited = hostAllocationCopiesDevice(op) && device &&
                                   device->type()->kind() == c10::TypeKind::NoneType;
            const bool read = device && device->node()->kind() == c10::prim::device;
            if (!inherited && !read)
                a.violations.push_back({"torch." + op.substr(6) +
                                            " must allocate on the inputs' device, named as "
                                            "device=x.device",
                                        line});
        }
        if (hostOperatorOnTensors(op))
            return;
        bool tensors = false;
        for (const torch::jit::Value* v : node->inputs())
            tensors = tensors || containsTensor(v->type());
        for (const torch::jit::Value* v : node->outputs())
            tensors = tensors || containsTensor(v->type());
        if (tensors)
            a.fallbacks.push_back({op, line});
        else if (!hostOperatorOnScalars(op))
            a.refused.push_back({op, line});
    });
    a.operators.assign(seen.begin(), seen.end());

    // The guarded variant: every allocation goes through dice::guard.
    auto guardedGraph = impl.inlined->copy();
    std::vector<torch::jit::Node*> allocations;
    forEachNode(guardedGraph->block(), [&](torch::jit::Node* node) {
        const std::string op = node->kind().toQualString();
        if (isHostAllocation(op) && node->outputs().size() == 1 &&
            node->output()->type()->kind() == c10::TypeKind::TensorType)
            allocations.push_back(node);
    });
    const auto guardSymbol = c10::Symbol::fromQualString("dice::guard");
    for (torch::jit::Node* node : allocations) {
        const bool poison = hostAllocationIsPoisoned(node->kind().toQualString());
        torch::jit::Value* allocated = node->output();
        torch::jit::Value* flag = nullptr;
        {
            torch::jit::WithInsertPoint point(node->next());
            flag = guardedGraph->insertConstant(poison);
        }
        torch::jit::Node* guard = guardedGraph->create(guardSymbol, {allocated, flag}, 1);
        guard->output()->setType(allocated->type());
        guard->insertAfter(flag->node());
        allocated->replaceAllUsesWith(guard->output());
        guard->replaceInput(0, allocated);
    }
    impl.guarded = std::make_unique<torch::jit::GraphFunction>(
        c10::QualifiedName("forward_guarded"), guardedGraph, nullptr);
    return program;
}

const HostAnalysis& HostProgram::analysis() const {
    return m_impl->analysis;
}

torch::jit::Function& HostProgram::forward() const {
    return m_impl->unit->get_function("forward");
}

torch::jit::Function& HostProgram::guardedForward() const {
    return *m_impl->guarded;
}

struct ReferenceProgram::Impl {
    std::shared_ptr<torch::jit::CompilationUnit> unit;
};

std::vector<Diagnostic> hostPartDiagnostics(const NativeCandidate& candidate,
                                            const std::string& file,
                                            std::vector<std::string>* launched) {
    std::vector<Diagnostic> out;
    const auto add = [&](int line, const std::string& message) {
        Diagnostic d;
        d.file = file;
        d.line = line > 0 ? line : candidate.hostFirstLine;
        d.message = message;
        out.push_back(d);
    };
    try {
        const HostProgram program = HostProgram::compile(candidate);
        const HostAnalysis& a = program.analysis();
        for (const auto& v : a.violations)
            add(v.line, v.op);
        for (const auto& f : a.fallbacks)
            add(f.line, f.op + " computes with a PyTorch operator on tensors: host code may "
                               "allocate, read shapes, take views and launch kernels");
        for (const auto& r : a.refused)
            add(r.line, r.op + " is outside the host dialect");
        if (a.launches.empty())
            add(candidate.hostFirstLine, "the host code never calls dice.launch");
        if (launched)
            for (const auto& launch : a.launches)
                launched->push_back(launch.op);
    } catch (const HostCompileError& e) {
        Diagnostic d = e.diagnostic();
        d.file = file;
        out.push_back(d);
    }
    return out;
}

ReferenceProgram ReferenceProgram::compile(const std::string& source, const std::string& origin) {
    if (!t_onCompileStack) {
        if (source.size() > kMaxTorchScriptBytes)
            throw FileError(origin, "reference: longer than 64 KiB");
        if (const int line = lineOfDeepNesting(source); line > 0)
            throw FileError(origin,
                            "reference line " + std::to_string(line) + ": " + deepNestingMessage());
        ReferenceProgram program;
        runOnLargeStack([&] {
            t_onCompileStack = true;
            program = compile(source, origin);
        });
        return program;
    }
    ReferenceProgram program;
    program.m_impl = std::make_shared<Impl>();
    program.m_impl->unit = std::make_shared<torch::jit::CompilationUnit>();
    try {
        program.m_impl->unit->define(c10::nullopt, source, std::make_shared<DialectResolver>(),
                                     nullptr);
    } catch (const std::exception& e) {
        const std::string message = e.what();
        const int line = lineFromMessage(message);
        throw FileError(origin, "reference" +
                                    (line > 0 ? " line " + std::to_string(line) : std::string()) +
                                    ": " + firstParagraph(message));
    }
    if (!program.m_impl->unit->find_function("reference"))
        throw FileError(origin, "reference: no function named reference");
    return program;
}

torch::jit::Function& ReferenceProgram::function() const {
    return m_impl->unit->get_function("reference");
}

} // namespace dice
