// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/script.h>
#include <torch/torch.h>

#include <torch/csrc/jit/runtime/graph_executor.h>

#include "core/eval/native_evaluator.h"

#include "core/common/error.h"
#include "core/cuda/cuda_context.h"
#include "core/cuda/cupti_tracer.h"
#include "core/cuda/device_info.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/cuda/torch_cuda_bridge.h"
#include "core/eval/candidate.h"
#include "core/eval/host_program.h"
#include "core/model/safetensors.h"
#include "core/model/safetensors_torch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

namespace dice {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string fixed(double value, int digits) {
    std::ostringstream out;
    out.precision(digits);
    out << std::fixed << value;
    return out.str();
}

// A candidate fault that ends the evaluation with RuntimeError.
struct CandidateFault {
    std::string message;
};

// Kernels of our own: a shared-memory scrubber (so that reads of uninitialised shared memory see
// the trial's poison) and a spin that keeps the GPU busy while the host enqueues a timed call, so
// that the host's time to interpret the call is not counted.
const char* const kUtilitySource = R"(
extern "C" __global__ void dice_scrub_shared(unsigned int pattern, int words)
{
    extern __shared__ unsigned int dice_scrub_buffer[];
    volatile unsigned int* s = dice_scrub_buffer;
    for (int i = threadIdx.x; i < words; i += blockDim.x)
        s[i] = pattern;
}

extern "C" __global__ void dice_timing_mark() {}

extern "C" __global__ void dice_timing_spin(unsigned long long nanoseconds)
{
    unsigned long long start;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    for (;;) {
        unsigned long long now;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start >= nanoseconds)
            break;
    }
}
)";

constexpr unsigned long long kSpinNanoseconds = 100000;

c10::ScalarType scalarType(DType dtype) {
    switch (dtype) {
    case DType::Float32:
        return c10::ScalarType::Float;
    case DType::Float16:
        return c10::ScalarType::Half;
    case DType::BFloat16:
        return c10::ScalarType::BFloat16;
    case DType::Float64:
        return c10::ScalarType::Double;
    case DType::Int32:
        return c10::ScalarType::Int;
    case DType::Int64:
        return c10::ScalarType::Long;
    case DType::Bool:
        return c10::ScalarType::Bool;
    }
    return c10::ScalarType::Float;
}

std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t salt) {
    // splitmix64: distinct, well-spread seeds for each trial and tensor.
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (salt + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return (z ^ (z >> 31)) & 0x7FFFFFFFFFFFFFFFULL;
}

at::Tensor makeTensor(const Task& task, const TensorSpec& spec, const std::string& preset,
                      std::uint64_t seed, const c10::Device& device) {
    const auto shape = task.shape(spec, preset);
    const auto floatOptions = torch::TensorOptions().dtype(torch::kFloat32).device(device);
    const auto target = scalarType(spec.dtype);
    torch::manual_seed(seed);
    const InitSpec& init = spec.init;
    at::Tensor t;
    switch (init.kind) {
    case InitSpec::Kind::Normal:
        t = torch::randn(shape, floatOptions).mul_(init.b).add_(init.a);
        break;
    case InitSpec::Kind::Uniform:
        t = torch::rand(shape, floatOptions).mul_(init.b - init.a).add_(init.a);
        break;
    case InitSpec::Kind::RandInt:
        t = torch::randint(static_cast<int64_t>(init.a), static_cast<int64_t>(init.b), shape,
                           torch::TensorOptions().dtype(torch::kInt64).device(device));
        break;
    case InitSpec::Kind::Bernoulli:
        t = torch::rand(shape, floatOptions).lt(init.a);
        break;
    case InitSpec::Kind::UniformFanIn: {
        // nn.Linear's and nn.Conv's default initialisation: U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
        const double bound = 1.0 / std::sqrt(task.evaluate(init.fanIn, preset));
        t = torch::rand(shape, floatOptions).mul_(2 * bound).sub_(bound);
        break;
    }
    case InitSpec::Kind::Ones:
        t = torch::ones(shape, floatOptions);
        break;
    case InitSpec::Kind::File: {
        // Imported parameters (the problem's seeded weights), beside the task file. Their shape
        // does not depend on the preset, so they serve every trial unchanged.
        const std::string path =
            (std::filesystem::path(task.path).parent_path() / init.file).string();
        const auto file = SafetensorsFile::open(path);
        const SafetensorsEntry* entry = file->header().find(init.tensor);
        if (!entry)
            throw FileError(path, "has no tensor \"" + init.tensor + "\" for " + spec.name);
        const at::Tensor stored = safetensorsTensor(file, *entry);
        if (stored.sizes() != at::IntArrayRef(shape))
            throw FileError(path, init.tensor + " has the shape " + c10::str(stored.sizes()) +
                                      ", but " + spec.name + " needs " +
                                      c10::str(at::IntArrayRef(shape)));
        t = stored.to(device, target, false, true);
        break;
    }
    }
    return t.scalar_type() == target ? t : t.to(target);
}

std::vector<at::Tensor> outputsOf(const c10::IValue& value) {
    std::vector<at::Tensor> out;
    if (value.isTensor()) {
        out.push_back(value.toTensor());
    } else if (value.isTuple()) {
        for (const auto& e : value.toTupleRef().elements()) {
            if (!e.isTensor())
                throw CandidateFault{"forward returned a tuple holding a " + e.tagKind() +
                                     ", not tensors"};
            out.push_back(e.toTensor());
        }
    } else if (value.isTensorList()) {
        for (const auto& t : value.toTensorVector())
            out.push_back(t);
    } else {
        throw CandidateFault{"forward returned a " + value.tagKind() +
                             ", not a tensor or a tuple of tensors"};
    }
    return out;
}

std::string shapeText(at::IntArrayRef sizes) {
    std::string s = "[";
    for (std::size_t i = 0; i < sizes.size(); ++i)
        s += (i ? ", " : "") + std::to_string(sizes[i]);
    return s + "]";
}

struct Comparison {
    bool passed = false;
    double maxAbs = 0;
    double maxRel = 0;
    std::string detail;
};

Comparison compareOutputs(const std::vector<at::Tensor>& out, const std::vector<at::Tensor>& ref,
                          const Task& task, const EvalOptions& options) {
    Comparison c;
    if (out.size() != ref.size()) {
        c.detail = "forward returned " + std::to_string(out.size()) + " tensors; the reference " +
                   std::to_string(ref.size());
        return c;
    }
    c.passed = true;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const at::Tensor& o = out[i];
        const at::Tensor& r = ref[i];
        const std::string which = out.size() > 1 ? "output " + std::to_string(i) + ": " : "";
        if (!o.defined()) {
            c.passed = false;
            c.detail = which + "undefined tensor";
            return c;
        }
        if (o.sizes() != r.sizes()) {
            c.passed = false;
            c.detail =
                which + "shape " + shapeText(o.sizes()) + ", expected " + shapeText(r.sizes());
            return c;
        }
        if (o.scalar_type() != r.scalar_type()) {
            c.passed = false;
            c.detail = which + "dtype " + std::string(c10::toString(o.scalar_type())) +
                       ", expected " + c10::toString(r.scalar_type());
            return c;
        }
        if (o.device() != r.device()) {
            c.passed = false;
            c.detail = which + "on " + o.device().str() + ", expected " + r.device().str();
            return c;
        }
        if (!at::isFloatingType(r.scalar_type())) {
            if (!torch::equal(o, r)) {
                const auto wrong = o.ne(r).sum().item<int64_t>();
                c.passed = false;
                c.detail = which + std::to_string(wrong) + " of " + std::to_string(r.numel()) +
                           " elements differ";
                return c;
            }
            continue;
        }
        DType dtype = DType::Float32;
        if (r.scalar_type() == c10::ScalarType::Half)
            dtype = DType::Float16;
        else if (r.scalar_type() == c10::ScalarType::BFloat16)
            dtype = DType::BFloat16;
        else if (r.scalar_type() == c10::ScalarType::Double)
            dtype = DType::Float64;
        Tolerance tol = task.tolerance(dtype);
        if (options.tolerance)
            tol = Tolerance{*options.tolerance, *options.tolerance};
        const auto work =
            r.scalar_type() == c10::ScalarType::Double ? torch::kFloat64 : torch::kFloat32;
        const at::Tensor of = o.to(work);
        const at::Tensor rf = r.to(work);
        const at::Tensor diff = (of - rf).abs_();
        const at::Tensor bad = diff.le(rf.abs().mul_(tol.rtol).add_(tol.atol)).logical_not_();
        const auto badCount = bad.sum().item<int64_t>();
        const auto nanCount = of.isnan().sum().item<int64_t>();
        // Errors over the finite elements only (JSON has no infinity); the detail counts NaNs.
        const double big = std::numeric_limits<float>::max();
        const at::Tensor finiteDiff = torch::nan_to_num(diff, 0.0, big, big);
        c.maxAbs = std::max(c.maxAbs, finiteDiff.max().item<double>());
        c.maxRel = std::max(
            c.maxRel, torch::nan_to_num(finiteDiff.div(rf.abs().clamp_min(1e-30)), 0.0, big, big)
                          .max()
                          .item<double>());
        if (badCount > 0) {
            c.passed = false;
            c.detail = which + std::to_string(badCount) + " of " + std::to_string(r.numel()) +
                       " elements outside atol " + fixed(tol.atol, 6) + ", rtol " +
                       fixed(tol.rtol, 6);
            if (nanCount > 0)
                c.detail += " (" + std::to_string(nanCount) +
                            " are NaN: elements never written hold the poison)";
            return c;
        }
    }
    return c;
}

// Two passes of one trial agree: bitwise, within tolerance, or not at all.
enum class Agreement { Identical, WithinTolerance, Different };

Agreement agreement(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b,
                    const Task& task, const EvalOptions& options) {
    if (a.size() != b.size())
        return Agreement::Different;
    bool identical = true;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].sizes() != b[i].sizes() || a[i].scalar_type() != b[i].scalar_type())
            return Agreement::Different;
        if (!torch::equal(a[i], b[i]))
            identical = false;
    }
    if (identical)
        return Agreement::Identical;
    return compareOutputs(a, b, task, options).passed ? Agreement::WithinTolerance
                                                      : Agreement::Different;
}

struct PoisonPattern {
    std::uint64_t bits64;
    std::uint32_t bits32;
    std::uint16_t bits16; // float16
    std::uint16_t bf16;
    std::uint8_t bits8;
    std::uint32_t shared;
};

// Pass A: quiet NaN (an element never written fails any comparison). Pass B: a finite value, so
// that an output computed from memory it did not write differs between the passes.
const PoisonPattern kPoisonA = {
    0x7FF8000000000000ULL, 0x7FC00000u, 0x7E00u, 0x7FC0u, 0xA5u, 0x7FC00000u};
const PoisonPattern kPoisonB = {
    0x3FF199999999999AULL, 0x3F8CCCCDu, 0x3C66u, 0x3F8Cu, 0x0Fu, 0x3F8CCCCDu};

void fillPattern(at::Tensor flat, const PoisonPattern& p) {
    switch (flat.element_size()) {
    case 8:
        flat.view(torch::kInt64).fill_(static_cast<int64_t>(p.bits64));
        break;
    case 4:
        flat.view(torch::kInt32).fill_(static_cast<int32_t>(p.bits32));
        break;
    case 2:
        flat.view(torch::kInt16)
            .fill_(static_cast<int16_t>(
                flat.scalar_type() == c10::ScalarType::BFloat16 ? p.bf16 : p.bits16));
        break;
    default:
        flat.view(torch::kUInt8).fill_(static_cast<int64_t>(p.bits8));
        break;
    }
}

bool patternIntact(const at::Tensor& flat, const PoisonPattern& p) {
    if (flat.numel() == 0)
        return true;
    auto expected = torch::empty_like(flat);
    fillPattern(expected, p);
    switch (flat.element_size()) {
    case 8:
        return torch::equal(flat.view(torch::kInt64), expected.view(torch::kInt64));
    case 4:
        return torch::equal(flat.view(torch::kInt32), expected.view(torch::kInt32));
    case 2:
        return torch::equal(flat.view(torch::kInt16), expected.view(torch::kInt16));
    default:
        return torch::equal(flat.view(torch::kUInt8), expected.view(torch::kUInt8));
    }
}

// Every allocation of the host code gets a fresh buffer between two guard bands; uninitialised
// ones are filled with the pass's poison.
class PoisonGuard : public AllocationGuard {
public:
    explicit PoisonGuard(const PoisonPattern& pattern)
        : m_pattern(pattern) {}

    at::Tensor guard(const at::Tensor& allocated, bool poison) override {
        int64_t span = allocated.numel() > 0 ? 1 : 0;
        for (int64_t d = 0; d < allocated.dim(); ++d)
            if (allocated.size(d) > 0)
                span += (allocated.size(d) - 1) * allocated.stride(d);
        const int64_t item = static_cast<int64_t>(allocated.element_size());
        const int64_t bandBytes =
            std::min<int64_t>(16 << 20, std::max<int64_t>(64 << 10, span * item / 8));
        const int64_t band = std::max<int64_t>(1, bandBytes / item);
        at::Tensor base = torch::empty({span + 2 * band}, allocated.options());
        fillPattern(base, m_pattern);
        at::Tensor placed = base.as_strided(allocated.sizes(), allocated.strides(), band);
        if (!poison)
            placed.copy_(allocated);
        m_regions.push_back({base, band, span});
        return placed;
    }

    // True when every guard band still holds the poison.
    bool bandsIntact() const {
        for (const auto& r : m_regions) {
            if (!patternIntact(r.base.narrow(0, 0, r.band), m_pattern) ||
                !patternIntact(r.base.narrow(0, r.band + r.span, r.band), m_pattern))
                return false;
        }
        return true;
    }

private:
    struct Region {
        at::Tensor base;
        int64_t band;
        int64_t span;
    };
    PoisonPattern m_pattern;
    std::vector<Region> m_regions;
};

// Records launches without running them: the dry run of the host code on CPU tensors.
class RecordingLauncher : public KernelLauncher {
public:
    explicit RecordingLauncher(const std::map<std::string, ResolvedKernel>& kernels)
        : m_kernels(kernels) {}
    const std::vector<KernelParam>& parameters(const std::string& kernel) override {
        auto found = m_kernels.find(kernel);
        if (found == m_kernels.end())
            throw Error("dice.launch(\"" + kernel + "\"): no such kernel in the device code");
        return found->second.params;
    }
    bool acceptsCpuTensors() const override { return true; }
    void launch(const LaunchCall& call) override { calls.push_back(call); }
    std::vector<LaunchCall> calls;

private:
    const std::map<std::string, ResolvedKernel>& m_kernels;
};

struct Prepared {
    NativeCandidate candidate;
    std::vector<KernelSignature> kernels;
    std::optional<HostProgram> host;
    std::optional<ReferenceProgram> reference;
    std::map<std::string, ResolvedKernel> resolved;
    CompileResult device;
    bool fallback = false;
};

Diagnostic diagnosticFromFileError(const FileError& e, const std::string& origin) {
    Diagnostic d;
    d.file = origin;
    d.severity = Severity::Error;
    d.message = e.problem();
    static const std::regex linePrefix(R"(^line (\d+): (.*)$)");
    std::smatch m;
    if (std::regex_match(d.message, m, linePrefix)) {
        d.line = std::stoi(m[1].str());
        d.message = m[2].str();
    }
    return d;
}

bool allFloat32(const Task& task) {
    bool anyFloat = false;
    for (const auto* list : {&task.inputs, &task.parameters})
        for (const auto& spec : *list) {
            if (!isFloating(spec.dtype))
                continue;
            anyFloat = true;
            if (spec.dtype != DType::Float32)
                return false;
        }
    return anyFloat;
}

void addFlag(EvaluationResult& r, const std::string& code, const std::string& message) {
    if (!r.hasFlag(code))
        r.flags.push_back({code, message});
}

double median(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const std::size_t mid = v.size() / 2;
    return v.size() % 2 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]);
}

TimingStats statsOf(const std::vector<double>& samples, const std::string& method, int warmups) {
    TimingStats t;
    t.method = method;
    t.warmups = warmups;
    t.trials = static_cast<int>(samples.size());
    t.samplesMs = samples;
    if (samples.empty())
        return t;
    t.medianMs = median(samples);
    t.meanMs = std::accumulate(samples.begin(), samples.end(), 0.0) / samples.size();
    double var = 0;
    for (double s : samples)
        var += (s - t.meanMs) * (s - t.meanMs);
    t.stdMs = samples.size() > 1 ? std::sqrt(var / (samples.size() - 1)) : 0;
    t.minMs = *std::min_element(samples.begin(), samples.end());
    t.maxMs = *std::max_element(samples.begin(), samples.end());
    return t;
}

} // namespace

struct NativeEvaluator::Impl {
    int deviceIndex = 0;
    NvrtcCompiler compiler{64};
    bool lost = false;

    // The GPU side, made on first use.
    struct Gpu {
        std::unique_ptr<CudaContext> context;
        std::unique_ptr<CudaStream> stream;
        DeviceInfo info;
        std::unique_ptr<DeviceBuffer> flush;
        std::unique_ptr<CudaModule> utility;
        cu::Function scrub = nullptr;
        cu::Function spin = nullptr;
        cu::Function mark = nullptr;
        int scrubBytes = 0;
    };
    std::unique_ptr<Gpu> gpu;
    std::string gpuProblem;

    std::string unavailableReason() const {
        const auto& driver = cu::Driver::instance();
        if (!driver.available())
            return driver.unavailableReason();
        if (!NvrtcCompiler::available())
            return "this build has no NVRTC";
        if (!torchcuda::builtWithCuda())
            return "LibTorch was built without CUDA (kernels need a CUDA LibTorch to run)";
        if (!torchcuda::available())
            return "LibTorch sees no GPU";
        if (deviceIndex >= driver.deviceCount())
            return "there is no GPU " + std::to_string(deviceIndex);
        return gpuProblem;
    }

    Gpu& ensureGpu() {
        if (gpu)
            return *gpu;
        auto g = std::make_unique<Gpu>();
        g->context = std::make_unique<CudaContext>(deviceIndex);
        g->stream = std::make_unique<CudaStream>();
        g->info = queryDevices().at(static_cast<std::size_t>(deviceIndex));
        // KernelBench writes 256 MB; at least twice the L2 so that nothing survives.
        const std::size_t flushBytes =
            std::max<std::size_t>(256u << 20, 2 * static_cast<std::size_t>(g->info.l2CacheBytes));
        g->flush = std::make_unique<DeviceBuffer>(flushBytes);
        CompileOptions options;
        options.architecture = g->info.architecture();
        const CompileResult utility = compiler.compile(kUtilitySource, "dice_utility.cu", options);
        if (!utility.ok)
            throw Error("the evaluator's own kernels did not compile: " + utility.log);
        g->utility = std::make_unique<CudaModule>(utility.cubin);
        g->scrub = g->utility->function("dice_scrub_shared");
        g->spin = g->utility->function("dice_timing_spin");
        g->mark = g->utility->function("dice_timing_mark");
        g->scrubBytes = std::max(g->info.sharedMemoryPerBlockOptin, g->info.sharedMemoryPerBlock);
        cu::check(cu::Driver::instance().api().cuFuncSetAttribute(
                      g->scrub, cu::kFuncMaxDynamicSharedSizeBytes, g->scrubBytes),
                  "cuFuncSetAttribute");
        gpu = std::move(g);
        return *gpu;
    }

    EvaluationResult start(const Task& task, const EvalOptions& options) const {
        EvaluationResult r;
        r.task = task.name;
        r.level = task.level;
        r.dialect = "native";
        r.preset = options.preset;
        return r;
    }

    // Everything up to a loadable module. Returns false with the verdict set when it stops.
    bool prepare(const Task& task, const std::string& source, const std::string& origin,
                 const EvalOptions& options, EvaluationResult& r, Prepared& p) {
        if (!task.hasPreset(options.preset)) {
            r.verdict = Verdict::InvalidCandidate;
            r.message = "task " + task.name + " has no preset \"" + options.preset + "\"";
            return false;
        }
        try {
            p.candidate = parseNativeCandidate(source, origin);
            p.kernels = parseKernelSignatures(p.candidate);
        } catch (const FileError& e) {
            r.verdict = Verdict::InvalidCandidate;
            r.message = e.what();
            r.diagnostics.push_back(diagnosticFromFileError(e, origin));
            return false;
        }
        try {
            p.reference = ReferenceProgram::compile(task.reference, task.path);
        } catch (const Error& e) {
            r.verdict = Verdict::NotRun;
            r.message = std::string("the task's reference does not compile: ") + e.what();
            return false;
        }
        try {
            p.host = HostProgram::compile(p.candidate);
        } catch (const HostCompileError& e) {
            r.verdict = Verdict::CompileError;
            r.message = e.what();
            r.diagnostics.push_back(e.diagnostic());
            return false;
        }
        const HostAnalysis& a = p.host->analysis();
        auto invalid = [&](const std::string& why, int line) {
            r.verdict = Verdict::InvalidCandidate;
            r.message =
                origin + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + why;
            Diagnostic d;
            d.file = origin;
            d.line = line;
            d.message = why;
            r.diagnostics.push_back(d);
            return false;
        };
        if (!a.violations.empty())
            return invalid(a.violations.front().op, a.violations.front().line);
        const int expected = static_cast<int>(task.inputs.size() + task.parameters.size());
        if (a.arity != expected) {
            std::string names;
            for (const auto* list : {&task.inputs, &task.parameters})
                for (const auto& s : *list)
                    names += (names.empty() ? "" : ", ") + s.name;
            return invalid("forward takes " + std::to_string(a.arity) + " parameters; task " +
                               task.name + " passes " + std::to_string(expected) + " (" + names +
                               ")",
                           p.candidate.hostFirstLine);
        }
        if (!a.fallbacks.empty()) {
            p.fallback = true;
            std::string list;
            for (const auto& f : a.fallbacks)
                list += (list.empty() ? "" : ", ") + f.op +
                        (f.line > 0 ? " (line " + std::to_string(f.line) + ")" : std::string());
            addFlag(r, "fallback", "the host code computes with PyTorch operators: " + list);
        }
        if (a.launches.empty() && !p.fallback)
            return invalid("the host code never calls dice.launch", p.candidate.hostFirstLine);
        std::vector<std::string> nameExpressions;
        for (const auto& launch : a.launches) {
            if (p.resolved.count(launch.op))
                continue;
            try {
                ResolvedKernel k = resolveKernel(p.kernels, launch.op);
                if (k.nameExpression)
                    nameExpressions.push_back(launch.op);
                p.resolved.emplace(launch.op, std::move(k));
            } catch (const Error& e) {
                return invalid(e.what(), launch.line);
            }
        }
        if (allFloat32(task)) {
            const auto findings = scanReducedPrecision(p.candidate);
            if (!findings.empty()) {
                std::string where;
                std::set<std::string> tokens;
                for (const auto& f : findings) {
                    if (tokens.insert(f.token).second)
                        where += (where.empty() ? "" : ", ") + f.token + " (line " +
                                 std::to_string(f.line) + ")";
                }
                addFlag(r, "precision_downgrade",
                        "the task is float32, the device code computes in 16-bit floats: " + where);
            }
        }
        CompileOptions co;
        co.architecture = options.architecture.empty() ? NvrtcCompiler::defaultArchitecture()
                                                       : options.architecture;
        co.lineInfo = true;
        co.nameExpressions = nameExpressions;
        p.device = compiler.compile(p.candidate.deviceForCompiler(), origin, co);
        r.compileMs = p.device.milliseconds;
        r.resources = p.device.resources;
        for (const auto& d : p.device.diagnostics)
            r.diagnostics.push_back(d);
        if (!p.device.ok) {
            r.verdict = Verdict::CompileError;
            const Diagnostic* first = nullptr;
            for (const auto& d : p.device.diagnostics)
                if (d.severity == Severity::Error && !first)
                    first = &d;
            r.message =
                first ? first->file + ":" + std::to_string(first->line) + ": " + first->message
                      : "the device code did not compile";
            return false;
        }
        r.compiled = true;
        return true;
    }

    // Runs the host code on uninitialised CPU tensors of the small preset with a recorder, so
    // that every launch's arguments are bound and checked without a GPU.
    bool dryRun(const Task& task, Prepared& p, EvaluationResult& r) {
        const std::string preset = task.hasPreset("small") ? "small" : r.preset;
        torch::NoGradGuard noGrad;
        torch::jit::GraphOptimizerEnabledGuard plain(false);
        std::vector<c10::IValue> stack;
        for (const auto* list : {&task.inputs, &task.parameters})
            for (const auto& spec : *list)
                stack.emplace_back(
                    torch::zeros(task.shape(spec, preset),
                                 torch::TensorOptions().dtype(scalarType(spec.dtype))));
        RecordingLauncher recorder(p.resolved);
        try {
            LauncherScope scope(&recorder);
            p.host->forward()(stack);
        } catch (const std::exception& e) {
            r.verdict = Verdict::RuntimeError;
            r.message = std::string("the host code failed on CPU tensors of the ") + preset +
                        " preset: " + hostErrorMessage(e.what());
            return false;
        }
        r.launchesPerCall = static_cast<int>(recorder.calls.size());
        return true;
    }

    static std::string firstLine(const std::string& text) {
        const std::size_t cut = text.find('\n');
        return cut == std::string::npos ? text : text.substr(0, cut);
    }
};

namespace {

// The GPU launcher: the candidate's kernels, loaded from one module instance.
class GpuLauncher : public KernelLauncher {
public:
    GpuLauncher(const CompileResult& compiled, const std::map<std::string, ResolvedKernel>& kernels,
                const DeviceInfo& info, cu::Stream stream)
        : m_module(std::make_unique<CudaModule>(compiled.cubin))
        , m_info(info)
        , m_stream(stream) {
        const auto& api = cu::Driver::instance().api();
        for (const auto& [name, resolved] : kernels) {
            Loaded k;
            k.params = resolved.params;
            k.symbol = name;
            if (resolved.nameExpression) {
                auto lowered = compiled.loweredNames.find(name);
                if (lowered == compiled.loweredNames.end())
                    throw CandidateFault{"NVRTC did not instantiate \"" + name + "\""};
                k.symbol = lowered->second;
            }
            k.function = m_module->function(k.symbol);
            api.cuFuncGetAttribute(&k.maxThreads, cu::kFuncMaxThreadsPerBlock, k.function);
            api.cuFuncGetAttribute(&k.staticShared, cu::kFuncSharedSizeBytes, k.function);
            symbols.insert(k.symbol);
            m_kernels.emplace(name, std::move(k));
        }
    }

    const std::vector<KernelParam>& parameters(const std::string& kernel) override {
        return find(kernel).params;
    }

    void launch(const LaunchCall& call) override {
        Loaded& k = find(call.kernel);
        auto fail = [&](const std::string& why) {
            throw Error("dice.launch(\"" + call.kernel + "\"): " + why);
        };
        const unsigned long long threads = 1ULL * call.block[0] * call.block[1] * call.block[2];
        const int limit =
            std::min(k.maxThreads > 0 ? k.maxThreads : 1024,
                     m_info.maxThreadsPerBlock > 0 ? m_info.maxThreadsPerBlock : 1024);
        if (threads > static_cast<unsigned long long>(limit))
            fail("a block of " + std::to_string(threads) + " threads; this kernel allows " +
                 std::to_string(limit) + " on this GPU");
        if (call.block[0] > 1024 || call.block[1] > 1024 || call.block[2] > 64)
            fail("block dimensions above the device's 1024 x 1024 x 64");
        if (call.grid[0] > 2147483647u || call.grid[1] > 65535 || call.grid[2] > 65535)
            fail("grid dimensions above the device's 2147483647 x 65535 x 65535");
        const int optin = std::max(m_info.sharedMemoryPerBlockOptin, m_info.sharedMemoryPerBlock);
        if (static_cast<long long>(call.sharedBytes) + k.staticShared > optin)
            fail(std::to_string(call.sharedBytes) + " bytes of dynamic shared memory plus " +
                 std::to_string(k.staticShared) + " static exceed the device's " +
                 std::to_string(optin) + " per block");
        const auto& api = cu::Driver::instance().api();
        if (static_cast<int>(call.sharedBytes) > k.dynamicSharedSet) {
            cu::check(api.cuFuncSetAttribute(k.function, cu::kFuncMaxDynamicSharedSizeBytes,
                                             static_cast<int>(call.sharedBytes)),
                      "cuFuncSetAttribute");
            k.dynamicSharedSet = static_cast<int>(call.sharedBytes);
        }
        std::vector<std::uint64_t> values;
        values.reserve(call.args.size());
        for (const auto& a : call.args)
            values.push_back(a.bits);
        std::vector<void*> pointers;
        for (auto& v : values)
            pointers.push_back(&v);
        const cu::Result rc = api.cuLaunchKernel(
            k.function, call.grid[0], call.grid[1], call.grid[2], call.block[0], call.block[1],
            call.block[2], call.sharedBytes, m_stream, pointers.data(), nullptr);
        if (rc != cu::kSuccess)
            fail("cuLaunchKernel failed: " + cu::Driver::instance().describe(rc));
        ++launches;
    }

    int launches = 0;
    std::set<std::string> symbols; // names CUPTI will report for the candidate's kernels

private:
    struct Loaded {
        cu::Function function = nullptr;
        std::vector<KernelParam> params;
        std::string symbol;
        int maxThreads = 0;
        int staticShared = 0;
        int dynamicSharedSet = 48 * 1024;
    };
    Loaded& find(const std::string& kernel) {
        auto found = m_kernels.find(kernel);
        if (found == m_kernels.end())
            throw Error("dice.launch(\"" + kernel + "\"): no such kernel in the device code");
        return found->second;
    }

    std::unique_ptr<CudaModule> m_module;
    DeviceInfo m_info;
    cu::Stream m_stream;
    std::map<std::string, Loaded> m_kernels;
};

} // namespace

// One evaluation on the GPU.
class GpuRun {
public:
    GpuRun(NativeEvaluator::Impl& impl, const Task& task, const EvalOptions& options, Prepared& p,
           EvaluationResult& r, const NativeEvaluator::ProgressFn& progress)
        : m_impl(impl)
        , m_gpu(impl.ensureGpu())
        , m_task(task)
        , m_options(options)
        , m_p(p)
        , m_r(r)
        , m_progress(progress)
        , m_device(c10::kCUDA, static_cast<c10::DeviceIndex>(impl.deviceIndex)) {}

    void run() {
        torchcuda::StreamScope scope(m_gpu.stream->handle(), m_impl.deviceIndex);
        torch::NoGradGuard noGrad;
        torch::jit::GraphOptimizerEnabledGuard plain(false);
        m_r.device = m_gpu.info.name;
        const std::uint64_t base = m_options.seed ? m_options.seed : m_task.seed;

        if (!correctness(m_options.preset, m_options.correctnessTrials, base, "correctness"))
            return finish();
        if (m_options.checkSmallPreset && m_options.preset != "small" &&
            m_task.hasPreset("small")) {
            const std::size_t before = m_r.trials.size();
            if (!correctness("small", m_options.smallPresetTrials, mixSeed(base, 1000),
                             "small preset")) {
                if (m_r.verdict == Verdict::Incorrect)
                    addFlag(m_r, "shape_specialised",
                            "correct on the " + m_options.preset +
                                " preset but wrong on the small one: " + lastFailure(before));
                return finish();
            }
        }
        if (m_options.timing)
            timing(base);
        finish();
    }

private:
    std::string lastFailure(std::size_t from) const {
        for (std::size_t i = from; i < m_r.trials.size(); ++i)
            if (!m_r.trials[i].passed)
                return m_r.trials[i].detail;
        return "a trial failed";
    }

    void report(const std::string& stage, double fraction, const std::string& message) {
        if (m_progress)
            m_progress(stage, fraction, message);
    }

    std::vector<at::Tensor> makeAll(const std::vector<TensorSpec>& specs, const std::string& preset,
                                    std::uint64_t seed) {
        std::vector<at::Tensor> out;
        for (std::size_t i = 0; i < specs.size(); ++i)
            out.push_back(makeTensor(m_task, specs[i], preset, mixSeed(seed, i), m_device));
        return out;
    }

    std::vector<c10::IValue> stackOf(const std::vector<at::Tensor>& inputs,
                                     const std::vector<at::Tensor>& params) {
        std::vector<c10::IValue> stack;
        for (const auto& t : inputs)
            stack.emplace_back(t);
        for (const auto& t : params)
            stack.emplace_back(t);
        return stack;
    }

    // Waits for the stream; a fault there is sticky, so the context is lost.
    void syncOrFault(const std::string& during) {
        const cu::Result rc =
            cu::Driver::instance().api().cuStreamSynchronize(m_gpu.stream->handle());
        if (rc != cu::kSuccess) {
            m_impl.lost = true;
            throw CandidateFault{"the kernel faulted during " + during + ": " +
                                 cu::Driver::instance().describe(rc)};
        }
    }

    std::vector<at::Tensor> callReference(const std::vector<at::Tensor>& inputs,
                                          const std::vector<at::Tensor>& params) {
        auto stack = stackOf(inputs, params);
        return outputsOf(m_p.reference->function()(std::move(stack)));
    }

    std::vector<at::Tensor> callCandidate(torch::jit::Function& fn, KernelLauncher& launcher,
                                          AllocationGuard* guard,
                                          const std::vector<at::Tensor>& inputs,
                                          const std::vector<at::Tensor>& params) {
        auto stack = stackOf(inputs, params);
        c10::IValue returned;
        try {
            LauncherScope scope(&launcher, guard);
            returned = fn(std::move(stack));
        } catch (const CandidateFault&) {
            throw;
        } catch (const std::exception& e) {
            // A failed launch may hide a fault from an earlier kernel.
            const cu::Result rc = cu::Driver::instance().api().cuCtxSynchronize();
            if (rc != cu::kSuccess) {
                m_impl.lost = true;
                throw CandidateFault{"the kernel faulted: " + cu::Driver::instance().describe(rc)};
            }
            throw CandidateFault{"the host code failed: " + hostErrorMessage(e.what())};
        }
        return outputsOf(returned);
    }

    void scrubShared(const PoisonPattern& pattern) {
        const int words = m_gpu.scrubBytes / 4;
        unsigned p = pattern.shared;
        int w = words;
        std::vector<void*> params = {&p, &w};
        const unsigned grid[3] = {
            static_cast<unsigned>(std::max(1, m_gpu.info.multiprocessors)) * 2, 1, 1};
        const unsigned block[3] = {1024, 1, 1};
        launchKernel(m_gpu.scrub, grid, block, static_cast<unsigned>(m_gpu.scrubBytes),
                     m_gpu.stream->handle(), params);
    }

    // Runs trials of one preset. Returns false when the evaluation ends here (verdict set).
    bool correctness(const std::string& preset, int trials, std::uint64_t base,
                     const std::string& stage) {
        // A fresh module per phase: state kept in __device__ globals does not carry over.
        GpuLauncher launcher(m_p.device, m_p.resolved, m_gpu.info, m_gpu.stream->handle());
        const auto params = makeAll(m_task.parameters, preset, base);
        for (int t = 0; t < trials; ++t) {
            report(stage, static_cast<double>(t) / trials,
                   stage + " trial " + std::to_string(t + 1) + " of " + std::to_string(trials));
            TrialResult trial;
            trial.trial = static_cast<int>(m_r.trials.size());
            trial.seed = mixSeed(base, static_cast<std::uint64_t>(t) + 1);
            const auto inputs = makeAll(m_task.inputs, preset, trial.seed);
            std::vector<at::Tensor> inputCopies;
            for (const auto& x : inputs)
                inputCopies.push_back(x.clone());
            const auto reference = callReference(inputs, params);
            std::vector<at::Tensor> referenceCopies;
            for (const auto& y : reference)
                referenceCopies.push_back(y.clone());
            syncOrFault("the reference");

            std::vector<at::Tensor> passes[2];
            bool bandsIntact = true;
            const PoisonPattern* patterns[2] = {&kPoisonA, &kPoisonB};
            for (int pass = 0; pass < 2; ++pass) {
                PoisonGuard guard(*patterns[pass]);
                scrubShared(*patterns[pass]);
                launcher.launches = 0;
                try {
                    passes[pass] =
                        callCandidate(m_p.host->guardedForward(), launcher, &guard, inputs, params);
                    syncOrFault(stage + " trial " + std::to_string(t + 1));
                } catch (const CandidateFault& fault) {
                    trial.detail = fault.message;
                    m_r.trials.push_back(trial);
                    m_r.verdict = Verdict::RuntimeError;
                    m_r.message = fault.message;
                    return false;
                }
                m_r.launchesPerCall = launcher.launches;
                bandsIntact = bandsIntact && guard.bandsIntact();
            }
            if (launcher.launches == 0 && !m_p.fallback)
                addFlag(m_r, "no_launch", "a call launched no kernel");

            const Comparison c = compareOutputs(passes[0], reference, m_task, m_options);
            trial.passed = c.passed;
            trial.maxAbsError = c.maxAbs;
            trial.maxRelError = c.maxRel;
            trial.detail = c.detail;
            bool inputsIntact = true;
            for (std::size_t i = 0; i < inputs.size(); ++i)
                inputsIntact = inputsIntact && torch::equal(inputs[i], inputCopies[i]);
            bool referenceIntact = true;
            for (std::size_t i = 0; i < reference.size(); ++i)
                referenceIntact = referenceIntact && torch::equal(reference[i], referenceCopies[i]);
            if (!inputsIntact) {
                addFlag(m_r, "inputs_mutated", "the candidate changed its inputs");
                trial.passed = false;
                trial.detail = "the candidate changed its inputs";
            }
            if (!bandsIntact || !referenceIntact) {
                addFlag(m_r, "out_of_bounds_write",
                        !bandsIntact ? "a kernel wrote past the ends of a tensor it allocated"
                                     : "the reference's output changed while the candidate ran");
                trial.passed = false;
                trial.detail = "a kernel wrote outside its tensors";
            }
            if (trial.passed) {
                const Agreement agree = agreement(passes[0], passes[1], m_task, m_options);
                if (agree == Agreement::Different) {
                    addFlag(m_r, "uninitialised_output",
                            "the output depends on what memory held before the call (two runs "
                            "over differently poisoned memory disagree)");
                    trial.passed = false;
                    trial.detail = "the output changes with the previous content of memory";
                } else if (agree == Agreement::WithinTolerance) {
                    addFlag(m_r, "nondeterministic",
                            "two runs on the same inputs differ within the tolerance");
                }
            }
            m_r.trials.push_back(trial);
            if (!trial.passed) {
                m_r.verdict = Verdict::Incorrect;
                m_r.message = stage + " trial " + std::to_string(t + 1) + ": " + trial.detail;
                return false;
            }
        }
        return true;
    }

    struct Timed {
        std::vector<double> eventMs;
        // CUPTI's records of each timed call (warm-ups left out), whatever stream they ran on.
        std::vector<std::vector<KernelRecord>> calls;
        bool cupti = false;
    };

    template <typename Call, typename After>
    Timed timeCalls(const std::string& stage, std::uint64_t base, const Call& call,
                    const After& after) {
        Timed timed;
        const int total = m_options.warmups + m_options.timingTrials;
        const auto& api = cu::Driver::instance().api();
        const cu::Stream stream = m_gpu.stream->handle();
        const unsigned one[3] = {1, 1, 1};
        EventTimer timer;
        CuptiTracer tracer;
        std::string cuptiError;
        timed.cupti = tracer.start(&cuptiError);
        auto lastReport = Clock::now();
        for (int i = 0; i < total; ++i) {
            if (i == 0 || msSince(lastReport) > 250 || i + 1 == total) {
                report(stage, static_cast<double>(i) / total,
                       stage + " " + std::to_string(std::max(0, i - m_options.warmups + 1)) + "/" +
                           std::to_string(m_options.timingTrials));
                lastReport = Clock::now();
            }
            const auto seed = mixSeed(base, 5000 + static_cast<std::uint64_t>(i));
            auto inputs = makeAll(m_task.inputs, m_timingPreset, seed);
            cu::check(api.cuMemsetD8Async(m_gpu.flush->pointer(),
                                          static_cast<unsigned char>(i & 0xFF),
                                          m_gpu.flush->bytes(), stream),
                      "cuMemsetD8Async");
            // The spin opens the call's window in CUPTI's record and the mark closes it, so that
            // the kernels drawing the inputs are not counted.
            unsigned long long spin = kSpinNanoseconds;
            std::vector<void*> spinParams = {&spin};
            launchKernel(m_gpu.spin, one, one, 0, stream, spinParams);
            timer.start(stream);
            const auto outputs = call(i, inputs);
            timer.stop(stream);
            std::vector<void*> noParams;
            launchKernel(m_gpu.mark, one, one, 0, stream, noParams);
            float ms = 0;
            try {
                ms = timer.milliseconds();
            } catch (const Error&) {
                syncOrFault(stage);
                throw;
            }
            syncOrFault(stage);
            if (i >= m_options.warmups)
                timed.eventMs.push_back(static_cast<double>(ms));
            after(i, inputs, outputs);
        }
        if (timed.cupti) {
            auto records = tracer.stop();
            std::sort(
                records.begin(), records.end(),
                [](const KernelRecord& a, const KernelRecord& b) { return a.startNs < b.startNs; });
            bool open = false;
            int window = 0;
            for (auto& rec : records) {
                if (rec.name == "dice_timing_spin") {
                    open = true;
                    if (window >= m_options.warmups)
                        timed.calls.emplace_back();
                    continue;
                }
                if (rec.name == "dice_timing_mark") {
                    open = false;
                    ++window;
                    continue;
                }
                if (open && window >= m_options.warmups && !timed.calls.empty())
                    timed.calls.back().push_back(std::move(rec));
            }
            if (static_cast<int>(timed.calls.size()) != m_options.timingTrials)
                timed.cupti = false;
        }
        return timed;
    }

    // Per call: from the first kernel's start to the last kernel's end, on any stream.
    std::optional<TimingStats> cuptiStats(const Timed& timed) {
        if (!timed.cupti)
            return std::nullopt;
        std::vector<double> spans;
        for (const auto& call : timed.calls) {
            if (call.empty()) {
                spans.push_back(0);
                continue;
            }
            std::uint64_t first = call.front().startNs;
            std::uint64_t last = 0;
            for (const auto& rec : call) {
                first = std::min(first, rec.startNs);
                last = std::max(last, rec.endNs);
            }
            spans.push_back(static_cast<double>(last - first) * 1e-6);
        }
        return statsOf(spans, "cupti", m_options.warmups);
    }

    void timing(std::uint64_t base) {
        m_timingPreset = m_options.preset;
        const auto params = makeAll(m_task.parameters, m_timingPreset, base);
        // Yet another module: whatever the correctness calls left in __device__ globals is gone.
        GpuLauncher launcher(m_p.device, m_p.resolved, m_gpu.info, m_gpu.stream->handle());
        std::set<int> checked;
        if (m_options.checkedTimedCalls > 0) {
            const int n = std::min(m_options.checkedTimedCalls, m_options.timingTrials);
            for (int k = 0; k < n; ++k)
                checked.insert(m_options.warmups +
                               (m_options.timingTrials - 1) * (k + 1) / std::max(1, n));
        }
        std::string cachedProblem;
        const Timed candidate = timeCalls(
            "timing", base,
            [&](int, const std::vector<at::Tensor>& in) {
                return callCandidate(m_p.host->forward(), launcher, nullptr, in, params);
            },
            [&](int i, const std::vector<at::Tensor>& in, const std::vector<at::Tensor>& out) {
                if (!checked.count(i) || !cachedProblem.empty())
                    return;
                const Comparison c =
                    compareOutputs(out, callReference(in, params), m_task, m_options);
                if (!c.passed)
                    cachedProblem = c.detail;
            });
        report("reference timing", 0, "timing the reference");
        const Timed reference = timeCalls(
            "reference timing", base,
            [&](int, const std::vector<at::Tensor>& in) { return callReference(in, params); },
            [](int, const std::vector<at::Tensor>&, const std::vector<at::Tensor>&) {});
        m_r.candidateTime = statsOf(candidate.eventMs, "cuda_events", m_options.warmups);
        m_r.referenceTime = statsOf(reference.eventMs, "cuda_events", m_options.warmups);
        m_r.candidateKernelTime = cuptiStats(candidate);
        m_r.referenceKernelTime = cuptiStats(reference);
        if (!cachedProblem.empty()) {
            addFlag(m_r, "cached_results",
                    "a timed call returned wrong values (results kept across calls?): " +
                        cachedProblem);
            m_r.verdict = Verdict::Incorrect;
            m_r.message = "a timed call returned wrong values: " + cachedProblem;
        }
        if (candidate.cupti) {
            std::set<std::string> foreign;
            for (const auto& call : candidate.calls)
                for (const auto& rec : call) {
                    if (launcher.symbols.count(rec.name))
                        continue;
                    std::string lower = rec.name;
                    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) {
                        return static_cast<char>(std::tolower(ch));
                    });
                    if (lower.find("fill") != std::string::npos)
                        continue;
                    foreign.insert(rec.name.substr(0, 120));
                }
            if (!foreign.empty()) {
                std::string list;
                for (const auto& f : foreign)
                    list += (list.empty() ? "" : ", ") + f;
                addFlag(m_r, "foreign_kernels",
                        "kernels that are not the candidate's ran during its calls: " + list);
                m_p.fallback = true;
            }
        }
        const double cand = m_r.candidateTime->medianMs;
        const double ref = m_r.referenceTime->medianMs;
        if (cand > 0)
            m_r.speedup = ref / cand;
        if (m_r.candidateKernelTime && cand > 0 &&
            m_r.candidateKernelTime->medianMs > 1.2 * cand + 0.01)
            addFlag(m_r, "timing_mismatch",
                    "CUPTI saw " + fixed(m_r.candidateKernelTime->medianMs, 3) +
                        " ms of kernels per call, the events on our stream " + fixed(cand, 3) +
                        " ms: work ran outside the timed stream");
        if (m_r.speedup > m_options.excessiveSpeedup)
            addFlag(m_r, "excessive_speedup",
                    fixed(m_r.speedup, 1) + "x faster than the reference (above " +
                        fixed(m_options.excessiveSpeedup, 0) + "x): check it by hand");
        physicalBound(params);
    }

    void physicalBound(const std::vector<at::Tensor>& params) {
        double bytes = 0;
        bool half = false;
        for (const auto& spec : m_task.inputs) {
            double n = 1;
            for (auto d : m_task.shape(spec, m_timingPreset))
                n *= static_cast<double>(d);
            bytes += n * dtypeSize(spec.dtype);
            half = half || spec.dtype == DType::Float16 || spec.dtype == DType::BFloat16;
        }
        for (const auto& t : params)
            bytes += static_cast<double>(t.numel()) * static_cast<double>(t.element_size());
        // The outputs' size: one reference call on fresh inputs of the timed preset.
        const auto inputs = makeAll(m_task.inputs, m_timingPreset, 7);
        for (const auto& y : callReference(inputs, params))
            bytes += static_cast<double>(y.numel()) * static_cast<double>(y.element_size());
        double flops = 0;
        if (!m_task.flops.empty())
            flops = m_task.evaluate(m_task.flops, m_timingPreset);
        const double bandwidth = m_gpu.info.peakBandwidth();
        // The most generous rate the dtype allows: 16-bit tensor cores, or TF32 for float32.
        const double rate =
            half ? m_gpu.info.peakTensorFlops()
                 : std::max(m_gpu.info.peakFp32Flops(), m_gpu.info.peakTensorFlops() / 2);
        double boundMs = 0;
        if (bandwidth > 0)
            boundMs = std::max(boundMs, bytes / bandwidth * 1e3);
        if (rate > 0 && flops > 0)
            boundMs = std::max(boundMs, flops / rate * 1e3);
        m_r.physicalBoundMs = boundMs;
        if (boundMs > 0 && m_r.candidateTime && m_r.candidateTime->medianMs > 0 &&
            m_r.candidateTime->medianMs < boundMs)
            addFlag(m_r, "below_physical_bound",
                    "the candidate took " + fixed(m_r.candidateTime->medianMs, 4) +
                        " ms; moving its bytes at peak bandwidth and doing its FLOPs at the peak "
                        "rate takes at least " +
                        fixed(boundMs, 4) + " ms");
    }

    void finish() {
        if (m_r.verdict == Verdict::NotRun) {
            m_r.verdict = m_p.fallback ? Verdict::Fallback : Verdict::Correct;
            if (m_p.fallback)
                m_r.message = "computes with PyTorch operators instead of its kernels";
            else if (m_r.candidateTime && m_r.referenceTime)
                m_r.message = "correct; " + fixed(m_r.candidateTime->medianMs, 3) +
                              " ms against the reference's " +
                              fixed(m_r.referenceTime->medianMs, 3) + " ms (" +
                              fixed(m_r.speedup, 2) + "x)";
            else
                m_r.message = "correct";
        }
    }

    NativeEvaluator::Impl& m_impl;
    NativeEvaluator::Impl::Gpu& m_gpu;
    const Task& m_task;
    const EvalOptions& m_options;
    Prepared& m_p;
    EvaluationResult& m_r;
    const NativeEvaluator::ProgressFn& m_progress;
    c10::Device m_device;
    std::string m_timingPreset;
};

NativeEvaluator::NativeEvaluator(int deviceIndex)
    : m_impl(std::make_unique<Impl>()) {
    m_impl->deviceIndex = deviceIndex;
}

NativeEvaluator::~NativeEvaluator() = default;

std::string NativeEvaluator::gpuUnavailableReason() const {
    return m_impl->unavailableReason();
}

bool NativeEvaluator::contextLost() const {
    return m_impl->lost;
}

EvaluationResult NativeEvaluator::compile(const Task& task, const std::string& source,
                                          const std::string& origin, const EvalOptions& options,
                                          std::string* ptx) {
    const auto start = Clock::now();
    EvaluationResult r = m_impl->start(task, options);
    Prepared p;
    if (m_impl->prepare(task, source, origin, options, r, p) && m_impl->dryRun(task, p, r)) {
        r.verdict = p.fallback ? Verdict::Fallback : Verdict::NotRun;
        r.message = p.fallback ? "computes with PyTorch operators instead of its kernels"
                               : "compiled; " + std::to_string(r.launchesPerCall) +
                                     " launch(es) per call bind their arguments";
    }
    if (ptx)
        *ptx = p.device.ptx;
    r.wallMs = msSince(start);
    return r;
}

EvaluationResult NativeEvaluator::evaluate(const Task& task, const std::string& source,
                                           const std::string& origin, const EvalOptions& options,
                                           const ProgressFn& progress) {
    const auto start = Clock::now();
    EvaluationResult r = m_impl->start(task, options);
    if (progress)
        progress("compile", 0, "compiling");
    Prepared p;
    if (!m_impl->prepare(task, source, origin, options, r, p) || !m_impl->dryRun(task, p, r)) {
        r.wallMs = msSince(start);
        return r;
    }
    const std::string reason = m_impl->unavailableReason();
    if (!reason.empty()) {
        r.verdict = p.fallback ? Verdict::Fallback : Verdict::NotRun;
        r.message = (p.fallback ? "computes with PyTorch operators instead of its kernels; "
                                : "compiled, not run: ") +
                    reason;
        r.wallMs = msSince(start);
        return r;
    }
    try {
        GpuRun(*m_impl, task, options, p, r, progress).run();
    } catch (const CandidateFault& fault) {
        r.verdict = Verdict::RuntimeError;
        r.message = fault.message;
    } catch (const std::exception& e) {
        const cu::Result rc = cu::Driver::instance().api().cuCtxSynchronize();
        if (rc != cu::kSuccess) {
            m_impl->lost = true;
            r.verdict = Verdict::RuntimeError;
            r.message = "the kernel faulted: " + cu::Driver::instance().describe(rc);
        } else {
            r.verdict = Verdict::NotRun;
            r.message = std::string("the evaluation failed: ") + Impl::firstLine(e.what());
        }
    }
    r.wallMs = msSince(start);
    return r;
}

} // namespace dice
