// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/script.h>
#include <torch/torch.h>

#include <torch/csrc/jit/runtime/graph_executor.h>

#include "core/eval/native_evaluator.h"

#include "core/common/error.h"
#include "core/cuda/compiler_options.h"
#include "core/cuda/torch_cuda_bridge.h"
#include "core/eval/candidate_fault.h"
#include "core/eval/native_dry_run.h"
#include "core/eval/native_evaluator_impl.h"
#include "core/eval/native_gpu_run.h"
#include "core/eval/native_inputs.h"
#include "core/eval/native_launchers.h"
#include "core/eval/native_timing.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

namespace dice {

namespace {

using native::Clock;
using native::msSince;

// Kernels of our own: a shared-memory scrubber (so that reads of uninitialised shared memory see
// the trial's poison), a keyed fingerprint of a tensor's bytes (so that a trial checks its inputs
// and the reference's output for writes without holding copies of them), the comparison of an
// output with the reference's in one pass, and the spin and the mark around each timed call
// (native_timing.h).
const char* const kUtilitySource = R"(
extern "C" __global__ void dice_scrub_shared(unsigned int pattern, int words)
{
    extern __shared__ unsigned int dice_scrub_buffer[];
    volatile unsigned int* s = dice_scrub_buffer;
    for (int i = threadIdx.x; i < words; i += blockDim.x)
        s[i] = pattern;
}

__device__ unsigned long long dice_fingerprint_term(unsigned long long word,
                                                    unsigned long long index,
                                                    unsigned long long k0, unsigned long long k1)
{
    unsigned long long v = (word << 32) ^ (index * 0x9e3779b97f4a7c15ULL + k0);
    v ^= k1;
    v ^= v >> 30;
    v *= 0xbf58476d1ce4e5b9ULL;
    v ^= v >> 27;
    v *= 0x94d049bb133111ebULL;
    v ^= v >> 31;
    return v;
}

// The sum of every word's keyed term: the order the threads add in does not change it.
extern "C" __global__ void dice_fingerprint(const unsigned int* words, unsigned long long count,
                                            const unsigned char* tail, int tailBytes,
                                            unsigned long long k0, unsigned long long k1,
                                            unsigned long long* sum)
{
    unsigned long long acc = 0;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < count; i += stride)
        acc += dice_fingerprint_term(words[i], i, k0, k1);
    if (blockIdx.x == 0 && threadIdx.x < tailBytes)
        acc += dice_fingerprint_term(0x100u | tail[threadIdx.x], count + threadIdx.x, k0, k1);
    for (int offset = 16; offset > 0; offset >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(sum, acc);
}

// One pass over a float32 piece of an output and the reference's: what compareOutputs needs
// (native_output_checks.h), with the arithmetic LibTorch's operators do (each step rounded on
// its own, no fused multiply-add), so that counts and maxima are the same. counts: outside, NaN;
// maxima: the bits of the largest absolute and relative errors (non-negative floats order as
// their bits do); sums: squared errors and squared reference values, in double.
extern "C" __global__ void dice_compare_f32(const float* out, const float* ref,
                                            unsigned long long n, float atol, float rtol,
                                            unsigned long long* counts, unsigned int* maxima,
                                            double* sums)
{
    const float big = 3.402823466e+38f;
    unsigned long long outside = 0, nans = 0;
    float largestAbs = 0.0f, largestRel = 0.0f;
    double errors = 0.0, references = 0.0;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const float o = out[i];
        const float r = ref[i];
        const float diff = fabsf(__fsub_rn(o, r));
        const float scale = fabsf(r);
        if (!(diff <= __fadd_rn(__fmul_rn(scale, rtol), atol)))
            ++outside;
        if (isnan(o))
            ++nans;
        const float finite = isnan(diff) ? 0.0f : (isinf(diff) ? big : diff);
        largestAbs = fmaxf(largestAbs, finite);
        const float rel = isnan(scale) ? 0.0f : __fdiv_rn(finite, fmaxf(scale, 1e-30f));
        largestRel = fmaxf(largestRel, isnan(rel) ? 0.0f : (isinf(rel) ? big : rel));
        errors += (double)__fmul_rn(finite, finite);
        references += (double)__fmul_rn(r, r);
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        outside += __shfl_down_sync(0xffffffffu, outside, offset);
        nans += __shfl_down_sync(0xffffffffu, nans, offset);
        largestAbs = fmaxf(largestAbs, __shfl_down_sync(0xffffffffu, largestAbs, offset));
        largestRel = fmaxf(largestRel, __shfl_down_sync(0xffffffffu, largestRel, offset));
        errors += __shfl_down_sync(0xffffffffu, errors, offset);
        references += __shfl_down_sync(0xffffffffu, references, offset);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&counts[0], outside);
        atomicAdd(&counts[1], nans);
        atomicMax(&maxima[0], __float_as_uint(largestAbs));
        atomicMax(&maxima[1], __float_as_uint(largestRel));
        atomicAdd(&sums[0], errors);
        atomicAdd(&sums[1], references);
    }
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

} // namespace

std::string NativeEvaluator::Impl::unavailableReason() const {
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

NativeEvaluator::Impl::Gpu& NativeEvaluator::Impl::ensureGpu() {
    if (gpu)
        return *gpu;
    auto g = std::make_unique<Gpu>();
    g->context = std::make_unique<CudaContext>(deviceIndex);
    const auto& api = cu::Driver::instance().api();
    // No L2 set-aside for persisting lines: device code that marks its loads as persisting
    // cannot keep its data in L2 across the flush before each timed call. GPUs before Ampere
    // have no set-aside to clear.
    const cu::Result setAside = api.cuCtxSetLimit(cu::kLimitPersistingL2CacheSize, 0);
    if (setAside != cu::kErrorUnsupportedLimit)
        cu::check(setAside, "cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 0)");
    // Every tensor of an evaluation comes from LibTorch's caching allocator: host code that
    // allocates past this share of the GPU gets an out-of-memory error (a runtime_error).
    torchcuda::capDeviceMemory(deviceIndex, gpuMemoryShare);
    // References are the tasks' float32 computations, not TF32 approximations of them.
    torchcuda::exactFloat32();
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
    g->fingerprint = g->utility->function("dice_fingerprint");
    g->compare = g->utility->function("dice_compare_f32");
    g->spin = g->utility->function(native::kTimingSpinKernel);
    g->mark = g->utility->function(native::kTimingMarkKernel);
    g->scrubBytes = std::max(g->info.sharedMemoryPerBlockOptin, g->info.sharedMemoryPerBlock);
    cu::check(cu::Driver::instance().api().cuFuncSetAttribute(
                  g->scrub, cu::kFuncMaxDynamicSharedSizeBytes, g->scrubBytes),
              "cuFuncSetAttribute");
    gpu = std::move(g);
    return *gpu;
}

EvaluationResult NativeEvaluator::Impl::start(const Task& task, const EvalOptions& options) const {
    EvaluationResult r;
    r.task = task.name;
    r.level = task.level;
    r.dialect = "native";
    r.preset = options.preset;
    return r;
}

bool NativeEvaluator::Impl::prepare(const Task& task, const std::string& source,
                                    const std::string& origin, const EvalOptions& options,
                                    EvaluationResult& r, native::Prepared& p) {
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
        r.diagnostics.push_back(candidateDiagnostic(e, origin));
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
        r.message = origin + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + why;
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
                           task.name + " passes " + std::to_string(expected) + " (" + names + ")",
                       p.candidate.hostFirstLine);
    }
    // Denied by default: a graph with an operator outside the dialect never runs, here or on
    // the GPU, so what the operator would read or write never happens.
    if (!a.fallbacks.empty() || !a.refused.empty()) {
        auto listOf = [](const std::vector<HostOperatorUse>& uses) {
            std::string list;
            for (const auto& f : uses)
                list += (list.empty() ? "" : ", ") + f.op +
                        (f.line > 0 ? " (line " + std::to_string(f.line) + ")" : std::string());
            return list;
        };
        if (!a.fallbacks.empty())
            native::addFlag(r, "fallback",
                            "the host code computes with PyTorch operators: " +
                                listOf(a.fallbacks));
        std::vector<HostOperatorUse> all = a.fallbacks;
        all.insert(all.end(), a.refused.begin(), a.refused.end());
        std::sort(all.begin(), all.end(), [](const HostOperatorUse& x, const HostOperatorUse& y) {
            return x.line < y.line;
        });
        return invalid(
            "the host code uses operators outside the dialect, so it is not run: " + listOf(all) +
                "; host code may allocate, read shapes, take views and launch "
                "kernels (docs/native-dialect.md)",
            all.front().line);
    }
    if (a.launches.empty())
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
            native::addFlag(r, "precision_downgrade",
                            "the task is float32, the device code computes in 16-bit floats: " +
                                where);
        }
    }
    CompileOptions co;
    co.architecture =
        options.architecture.empty() ? NvrtcCompiler::defaultArchitecture() : options.architecture;
    co.lineInfo = true;
    co.fastCompile = options.fastCompile;
    co.nameExpressions = nameExpressions;
    applyCompilerOptions(co, options.compilerOptions);
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
        r.message = first ? first->file + ":" + std::to_string(first->line) + ": " + first->message
                          : "the device code did not compile";
        return false;
    }
    r.compiled = true;
    return true;
}

bool NativeEvaluator::Impl::dryRun(const Task& task, const EvalOptions& options,
                                   native::Prepared& p, EvaluationResult& r) {
    std::vector<std::string> presets = {options.preset};
    if (options.checkSmallPreset && options.preset != "small" && task.hasPreset("small"))
        presets.push_back("small");
    for (const auto& preset : presets) {
        const native::DryRunOutcome outcome = native::dryRunOnMeta(task, preset, p);
        if (!outcome.passed) {
            r.verdict = outcome.verdict;
            r.message = outcome.message;
            if (!outcome.flag.empty())
                native::addFlag(r, outcome.flag, outcome.message);
            return false;
        }
        if (preset == options.preset)
            r.launchesPerCall = outcome.launches;
    }
    return true;
}

std::string NativeEvaluator::Impl::firstLine(const std::string& text) {
    const std::size_t cut = text.find('\n');
    return cut == std::string::npos ? text : text.substr(0, cut);
}

void NativeEvaluator::Impl::runOnGpu(const Task& task, const EvalOptions& options,
                                     native::Prepared& p, EvaluationResult& r,
                                     const ProgressFn& progress) {
    if (options.compileOnly) {
        r.verdict = Verdict::NotRun;
        r.message = "compiled, not run (compile only): a dry run on meta tensors found outputs "
                    "of the reference's shapes and dtypes";
        return;
    }
    const std::string reason = unavailableReason();
    if (!reason.empty()) {
        r.verdict = Verdict::NotRun;
        r.message = "compiled, not run: " + reason +
                    " (a dry run on meta tensors found outputs of the reference's shapes and "
                    "dtypes)";
        return;
    }
    // The evaluator's own GPU state is set up before the candidate's code runs, so that its
    // failure is reported as the evaluator's and never taken for the candidate's fault.
    try {
        ensureGpu();
    } catch (const std::exception& e) {
        r.verdict = Verdict::NotRun;
        r.message = std::string("the evaluator could not prepare the GPU: ") + firstLine(e.what());
        return;
    }
    const auto started = Clock::now();
    registerLimitedLaunch = false;
    const std::int64_t failedAllocations = torchcuda::outOfMemoryEvents(deviceIndex);
    try {
        native::GpuRun(*this, task, options, p, r, progress).run();
    } catch (const native::CandidateFault& fault) {
        r.verdict = Verdict::RuntimeError;
        r.message = fault.message;
    } catch (const std::exception& e) {
        const cu::Result rc = cu::Driver::instance().api().cuCtxSynchronize();
        if (rc != cu::kSuccess) {
            lost = true;
            r.verdict = Verdict::RuntimeError;
            r.message = "the kernel faulted: " + cu::Driver::instance().describe(rc);
        } else {
            r.verdict = Verdict::NotRun;
            r.message = std::string("the evaluation failed: ") + firstLine(e.what());
        }
    }
    if (!lost && torchcuda::outOfMemoryEvents(deviceIndex) > failedAllocations) {
        // The allocator's count, not the message: TorchScript rewraps the error on its way out.
        if (r.verdict != Verdict::Correct)
            r.outOfMemory = true;
        // What the failed evaluation left cached would crowd the next one.
        torchcuda::releaseCachedMemory();
    }
    r.gpuMs = msSince(started);
}

void NativeEvaluator::Impl::judgeAgainFullyOptimised(const Task& task, const std::string& source,
                                                     const std::string& origin,
                                                     const EvalOptions& options,
                                                     EvaluationResult& r,
                                                     const ProgressFn& progress) {
    if (options.fastCompile.empty() || !registerLimitedLaunch || lost ||
        r.verdict != Verdict::RuntimeError)
        return;
    EvalOptions full = options;
    full.fastCompile.clear();
    const std::string first = r.message;
    r = start(task, full);
    native::Prepared p;
    if (prepare(task, source, origin, full, r, p) && dryRun(task, full, p, r))
        runOnGpu(task, full, p, r, progress);
    native::addFlag(r, "fully_optimised_again",
                    "built with --Ofast-compile=" + options.fastCompile +
                        ", the kernel could not launch (" + first +
                        "); this verdict is that of its fully optimised build");
}

void NativeEvaluator::setGpuMemoryShare(double share) {
    m_impl->gpuMemoryShare = share;
    if (m_impl->gpu) {
        torchcuda::releaseCachedMemory();
        torchcuda::capDeviceMemory(m_impl->deviceIndex, share);
    }
}

namespace {

// Everything before the GPU (parse, both compilers, the dry run), with its stages' times.
bool prepareTimed(NativeEvaluator::Impl& impl, const Task& task, const std::string& source,
                  const std::string& origin, const EvalOptions& options, EvaluationResult& r,
                  native::Prepared& p) {
    auto mark = Clock::now();
    const bool prepared = impl.prepare(task, source, origin, options, r, p);
    // NVRTC's part is compile_ms; the rest of "prepare" is parsing and TorchScript.
    r.stagesMs["prepare"] = msSince(mark);
    if (!prepared)
        return false;
    mark = Clock::now();
    const bool ran = impl.dryRun(task, options, p, r);
    r.stagesMs["dry_run"] = msSince(mark);
    return ran;
}

} // namespace

NativeEvaluator::NativeEvaluator(int deviceIndex, double gpuMemoryShare)
    : m_impl(std::make_unique<Impl>()) {
    m_impl->deviceIndex = deviceIndex;
    m_impl->gpuMemoryShare = gpuMemoryShare;
}

NativeEvaluator::~NativeEvaluator() = default;

int NativeEvaluator::setCpuThreads(int threads) {
    if (threads > 0)
        at::set_num_threads(threads);
    return at::get_num_threads();
}

std::string NativeEvaluator::prepareGpu() {
    const std::string reason = m_impl->unavailableReason();
    if (!reason.empty())
        return reason;
    try {
        m_impl->ensureGpu();
    } catch (const std::exception& e) {
        return std::string("the GPU could not be prepared: ") + e.what();
    }
    return "ready";
}

bool NativeEvaluator::contextLost() const {
    return m_impl->lost;
}

EvaluationResult NativeEvaluator::compile(const Task& task, const std::string& source,
                                          const std::string& origin, const EvalOptions& options,
                                          std::string* ptx) {
    const auto start = Clock::now();
    EvaluationResult r = m_impl->start(task, options);
    native::Prepared p;
    if (m_impl->prepare(task, source, origin, options, r, p) &&
        m_impl->dryRun(task, options, p, r)) {
        r.verdict = Verdict::NotRun;
        r.message = "compiled; " + std::to_string(r.launchesPerCall) +
                    " launch(es) per call bind their arguments, and the outputs have the "
                    "reference's shapes and dtypes";
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
    native::Prepared p;
    if (!prepareTimed(*m_impl, task, source, origin, options, r, p)) {
        r.wallMs = msSince(start);
        return r;
    }
    m_impl->runOnGpu(task, options, p, r, progress);
    m_impl->judgeAgainFullyOptimised(task, source, origin, options, r, progress);
    r.wallMs = msSince(start);
    return r;
}

std::size_t NativeEvaluator::evaluateBatch(const std::vector<BatchItem>& items, int compileThreads,
                                           int lookahead, const BatchDone& done,
                                           const ProgressFn& progress) {
    // What the compile threads hand to this one: each item's result so far and its module,
    // and whether it may go on to the GPU.
    struct Slot {
        EvaluationResult result;
        native::Prepared prepared;
        bool ready = false;
        bool runnable = false;
        Clock::time_point start;
    };
    std::vector<Slot> slots(items.size());
    std::mutex mutex;
    std::condition_variable readyChanged;
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    // How far the compilers may run ahead of the GPU: enough that the GPU never waits for a
    // compile while they keep pace, few enough that a fault, which ends this process, throws
    // away little compiled work (the owner sends the rest to a fresh worker, which compiles it
    // again).
    const std::size_t ahead = lookahead > 0
                                  ? static_cast<std::size_t>(lookahead)
                                  : 2 * static_cast<std::size_t>(std::max(1, compileThreads));
    std::size_t onGpu = 0;
    std::condition_variable gpuMoved;
    const auto compileAhead = [&] {
        for (;;) {
            const std::size_t i = next++;
            if (i >= items.size() || stop)
                return;
            {
                std::unique_lock<std::mutex> lock(mutex);
                gpuMoved.wait(lock, [&] { return stop || i < onGpu + ahead; });
            }
            if (stop)
                return;
            const BatchItem& item = items[i];
            Slot& slot = slots[i];
            slot.start = Clock::now();
            slot.result = m_impl->start(item.task, item.options);
            const bool runnable = prepareTimed(*m_impl, item.task, item.source, item.origin,
                                               item.options, slot.result, slot.prepared);
            {
                std::lock_guard<std::mutex> lock(mutex);
                slot.runnable = runnable;
                slot.ready = true;
            }
            readyChanged.notify_all();
        }
    };
    std::vector<std::thread> compilers;
    for (int t = 0; t < std::max(1, compileThreads); ++t)
        compilers.emplace_back(compileAhead);
    std::size_t evaluated = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
        Slot& slot = slots[i];
        {
            std::lock_guard<std::mutex> lock(mutex);
            onGpu = i;
        }
        // Before waiting: the compiler of this very item may be waiting for the GPU to move.
        gpuMoved.notify_all();
        {
            const auto waited = Clock::now();
            std::unique_lock<std::mutex> lock(mutex);
            readyChanged.wait(lock, [&] { return slot.ready; });
            // How long the GPU's thread stood idle for this candidate's compile: where the batch
            // waits for the CPU rather than the GPU.
            slot.result.stagesMs["waited_for_compile"] = msSince(waited);
        }
        if (slot.runnable) {
            m_impl->runOnGpu(items[i].task, items[i].options, slot.prepared, slot.result, progress);
            m_impl->judgeAgainFullyOptimised(items[i].task, items[i].source, items[i].origin,
                                             items[i].options, slot.result, progress);
        }
        slot.result.wallMs = msSince(slot.start);
        if (done)
            done(i, slot.result);
        // The module and its programs are not needed once the verdict is out.
        slot.prepared = native::Prepared();
        ++evaluated;
        if (m_impl->lost)
            break;
    }
    {
        std::lock_guard<std::mutex> lock(mutex);
        stop = true;
    }
    gpuMoved.notify_all();
    for (auto& t : compilers)
        t.join();
    return evaluated;
}

} // namespace dice
