// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/script.h>
#include <torch/torch.h>

#include <torch/csrc/jit/runtime/graph_executor.h>

#include "core/eval/native_gpu_run.h"

#include "core/common/error.h"
#include "core/common/number_format.h"
#include "core/common/splitmix.h"
#include "core/cuda/nsight_compute.h"
#include "core/cuda/nvtx_range.h"
#include "core/cuda/torch_cuda_bridge.h"
#include "core/eval/candidate_fault.h"
#include "core/eval/native_inputs.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace dice::native {

GpuRun::GpuRun(NativeEvaluator::Impl& impl, const Task& task, const EvalOptions& options,
               Prepared& p, EvaluationResult& r, const NativeEvaluator::ProgressFn& progress)
    : m_impl(impl)
    , m_gpu(impl.ensureGpu())
    , m_task(task)
    , m_options(options)
    , m_p(p)
    , m_r(r)
    , m_progress(progress)
    , m_device(c10::kCUDA, static_cast<c10::DeviceIndex>(impl.deviceIndex))
    , m_keys(std::random_device{}()) {}

void GpuRun::run() {
    torchcuda::StreamScope scope(m_gpu.stream->handle(), m_impl.deviceIndex);
    torch::NoGradGuard noGrad;
    torch::jit::GraphOptimizerEnabledGuard plain(false);
    m_r.device = m_gpu.info.name;
    if (!m_gpu.compareChecked) {
        checkComparer();
        m_gpu.compareChecked = true;
    }
    const std::uint64_t base = m_options.seed ? m_options.seed : m_task.seed;

    if (!correctness(m_options.preset, m_options.correctnessTrials, base, "correctness"))
        return finish();
    if (m_options.checkSmallPreset && m_options.preset != "small" && m_task.hasPreset("small")) {
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
    if (m_options.timing) {
        timing(base);
        lap("timing");
    }
    finish();
}

void GpuRun::lap(const char* stage) {
    const auto now = std::chrono::steady_clock::now();
    m_r.stagesMs[stage] += std::chrono::duration<double, std::milli>(now - m_lap).count();
    m_lap = now;
}

std::string GpuRun::lastFailure(std::size_t from) const {
    for (std::size_t i = from; i < m_r.trials.size(); ++i)
        if (!m_r.trials[i].passed)
            return m_r.trials[i].detail;
    return "a trial failed";
}

void GpuRun::report(const std::string& stage, double fraction, const std::string& message) {
    if (m_progress)
        m_progress(stage, fraction, message);
}

std::vector<at::Tensor> GpuRun::makeAll(const std::vector<TensorSpec>& specs,
                                        const std::string& preset, std::uint64_t seed) {
    return makeTensors(m_task, specs, preset, seed, m_device);
}

std::vector<c10::IValue> GpuRun::stackOf(const std::vector<at::Tensor>& inputs,
                                         const std::vector<at::Tensor>& params) {
    std::vector<c10::IValue> stack;
    for (const auto& t : inputs)
        stack.emplace_back(t);
    for (const auto& t : params)
        stack.emplace_back(t);
    return stack;
}

void GpuRun::syncOrFault(const std::string& during) {
    const cu::Result rc = cu::Driver::instance().api().cuStreamSynchronize(m_gpu.stream->handle());
    if (rc != cu::kSuccess) {
        m_impl.lost = true;
        throw CandidateFault{"the kernel faulted during " + during + ": " +
                             cu::Driver::instance().describe(rc)};
    }
}

std::vector<at::Tensor> GpuRun::callReference(const std::vector<at::Tensor>& inputs,
                                              const std::vector<at::Tensor>& params) {
    auto stack = stackOf(inputs, params);
    const NvtxRange range(kReferenceRange);
    return outputsOf(m_p.reference->function()(std::move(stack)));
}

std::vector<at::Tensor> GpuRun::callCandidate(torch::jit::Function& fn, KernelLauncher& launcher,
                                              AllocationGuard* guard,
                                              const std::vector<at::Tensor>& inputs,
                                              const std::vector<at::Tensor>& params) {
    auto stack = stackOf(inputs, params);
    c10::IValue returned;
    try {
        const NvtxRange range(kCandidateRange);
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

void GpuRun::launchGridStride(cu::Function kernel, unsigned long long elements,
                              std::vector<void*>& args) {
    // Blocks of 256 threads, at most eight per multiprocessor: each thread loops over the rest.
    const unsigned long long wanted = (elements + 255) / 256;
    const unsigned cap = static_cast<unsigned>(std::max(1, m_gpu.info.multiprocessors)) * 8;
    const unsigned grid[3] = {static_cast<unsigned>(std::max<unsigned long long>(
                                  1, std::min<unsigned long long>(wanted, cap))),
                              1, 1};
    const unsigned block[3] = {256, 1, 1};
    launchKernel(kernel, grid, block, 0, m_gpu.stream->handle(), args);
}

std::vector<std::uint64_t> GpuRun::fingerprints(const std::vector<at::Tensor>& tensors,
                                                const FingerprintKey& key) {
    auto sums = torch::zeros({static_cast<int64_t>(tensors.size())},
                             torch::TensorOptions().dtype(torch::kInt64).device(m_device));
    // Copies made for the kernel (of a view, of a tensor elsewhere) live until the sums are read.
    std::vector<at::Tensor> hashed;
    std::vector<std::uint64_t> layout;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const at::Tensor& original = tensors[i];
        // What the bytes mean is part of the fingerprint: a resized or retyped tensor differs.
        std::uint64_t shape = splitmix64(key.k1 ^ i);
        if (!original.defined()) {
            layout.push_back(shape);
            continue;
        }
        shape = splitmix64(shape ^ static_cast<std::uint64_t>(original.scalar_type()));
        shape = splitmix64(shape ^ reinterpret_cast<std::uintptr_t>(original.data_ptr()));
        for (int64_t d = 0; d < original.dim(); ++d)
            shape = splitmix64(shape ^ static_cast<std::uint64_t>(original.size(d)) ^
                               (static_cast<std::uint64_t>(original.stride(d)) << 32));
        layout.push_back(shape);
        at::Tensor t = original.device() == m_device ? original : original.to(m_device);
        t = t.contiguous();
        if (reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 4 != 0)
            t = t.clone();
        hashed.push_back(t);
        const auto bytes = static_cast<unsigned long long>(t.numel()) *
                           static_cast<unsigned long long>(t.element_size());
        void* words = t.data_ptr();
        unsigned long long count = bytes / 4;
        void* tail = static_cast<unsigned char*>(words) + count * 4;
        int tailBytes = static_cast<int>(bytes % 4);
        unsigned long long k0 = key.k0;
        unsigned long long k1 = key.k1;
        void* sum = sums.data_ptr<int64_t>() + i;
        std::vector<void*> args = {&words, &count, &tail, &tailBytes, &k0, &k1, &sum};
        launchGridStride(m_gpu.fingerprint, count, args);
    }
    const auto host = sums.cpu();
    const int64_t* summed = host.data_ptr<int64_t>();
    std::vector<std::uint64_t> prints;
    for (std::size_t i = 0; i < tensors.size(); ++i)
        prints.push_back(static_cast<std::uint64_t>(summed[i]) ^ layout[i]);
    return prints;
}

std::optional<std::vector<std::uint64_t>>
GpuRun::outputFingerprints(const std::vector<at::Tensor>& outputs, const FingerprintKey& key) {
    // A candidate's outputs may be anything its host code returns (sparse, meta): those have no
    // bytes to fingerprint, and the comparison has already failed them.
    try {
        for (const auto& o : outputs)
            if (o.defined() && (o.layout() != c10::kStrided || o.is_meta() || o.is_quantized()))
                return std::nullopt;
        auto prints = fingerprints(outputs, key);
        syncOrFault("the check of the first call's output");
        return prints;
    } catch (const CandidateFault&) {
        throw;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<PieceFigures> GpuRun::figuresOnDevice(const at::Tensor& out, const at::Tensor& ref,
                                                    double atol, double rtol) {
    const auto plain = [&](const at::Tensor& t) {
        return t.scalar_type() == c10::ScalarType::Float && t.device() == m_device &&
               t.is_contiguous() && t.layout() == c10::kStrided && t.numel() > 0;
    };
    if (!plain(out) || !plain(ref) || out.numel() != ref.numel())
        return std::nullopt;
    // counts (2 x u64), the maxima's bits (2 x u32 in one slot), sums (2 x double)
    auto figures = torch::zeros({5}, torch::TensorOptions().dtype(torch::kInt64).device(m_device));
    const void* o = out.data_ptr();
    const void* r = ref.data_ptr();
    unsigned long long n = static_cast<unsigned long long>(ref.numel());
    float a = static_cast<float>(atol);
    float t = static_cast<float>(rtol);
    void* counts = figures.data_ptr<int64_t>();
    void* maxima = figures.data_ptr<int64_t>() + 2;
    void* sums = figures.data_ptr<int64_t>() + 3;
    std::vector<void*> args = {&o, &r, &n, &a, &t, &counts, &maxima, &sums};
    launchGridStride(m_gpu.compare, n, args);
    const at::Tensor host = figures.cpu();
    const auto* words = static_cast<const unsigned char*>(host.data_ptr());
    std::uint64_t outside = 0;
    std::uint64_t nans = 0;
    std::uint32_t maxAbs = 0;
    std::uint32_t maxRel = 0;
    double sumsHost[2] = {0, 0};
    std::memcpy(&outside, words, 8);
    std::memcpy(&nans, words + 8, 8);
    std::memcpy(&maxAbs, words + 16, 4);
    std::memcpy(&maxRel, words + 20, 4);
    std::memcpy(sumsHost, words + 24, 16);
    float largestAbs = 0;
    float largestRel = 0;
    std::memcpy(&largestAbs, &maxAbs, 4);
    std::memcpy(&largestRel, &maxRel, 4);
    return PieceFigures{static_cast<std::int64_t>(outside),
                        static_cast<std::int64_t>(nans),
                        largestAbs,
                        largestRel,
                        sumsHost[0],
                        sumsHost[1]};
}

PieceComparer GpuRun::comparer() {
    return [this](const at::Tensor& out, const at::Tensor& ref, double atol, double rtol) {
        return figuresOnDevice(out, ref, atol, rtol);
    };
}

void GpuRun::checkComparer() {
    const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(m_device);
    // More elements than one block's worth, not a multiple of it; values over many magnitudes,
    // errors near 1e-5 of them.
    const int64_t n = (int64_t(1) << 20) + 37;
    const auto i = torch::arange(n, options);
    const auto ref = (i * 0.37).sin_() * ((i * 0.11).cos_() * 6).exp_();
    const auto out = ref * (1 + 1e-5 * (i * 1.3).cos_());
    // The same with every special case: NaN and infinite outputs, a zero reference with a tiny
    // and a zero output, an infinite reference, an error at the edge of 1e-4, the largest floats.
    auto special = out.clone();
    auto specialRef = ref.clone();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    special.narrow(0, 5, 1).fill_(nan);
    special.narrow(0, 6, 1).fill_(inf);
    special.narrow(0, 7, 1).fill_(-inf);
    specialRef.narrow(0, 8, 1).fill_(0.0);
    special.narrow(0, 8, 1).fill_(1e-31);
    specialRef.narrow(0, 9, 1).fill_(0.0);
    special.narrow(0, 9, 1).fill_(0.0);
    specialRef.narrow(0, 10, 1).fill_(inf);
    special.narrow(0, 11, 1).fill_(specialRef.narrow(0, 11, 1).item<float>() + 2e-4f);
    special.narrow(0, n - 1, 1).fill_(3e38f);
    const auto close = [](double a, double b) {
        return a == b || (std::isnan(a) && std::isnan(b)) ||
               std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
    };
    const std::pair<const at::Tensor*, const at::Tensor*> cases[] = {{&out, &ref},
                                                                     {&special, &specialRef}};
    for (const auto& [o, r] : cases)
        for (const auto& [atol, rtol] :
             {std::pair<double, double>{1e-4, 1e-4}, {1e-2, 1e-2}, {1e-9, 1e-4}, {0.0, 0.0}}) {
            const auto kernel = figuresOnDevice(*o, *r, atol, rtol);
            const PieceFigures expected = pieceFigures(*o, *r, atol, rtol);
            if (kernel && kernel->outside == expected.outside && kernel->nans == expected.nans &&
                kernel->maxAbs == expected.maxAbs && kernel->maxRel == expected.maxRel &&
                close(kernel->errorSquares, expected.errorSquares) &&
                close(kernel->referenceSquares, expected.referenceSquares))
                continue;
            const auto text = [](const PieceFigures& f) {
                return std::to_string(f.outside) + " outside, " + std::to_string(f.nans) +
                       " NaN, largest errors " + std::to_string(f.maxAbs) + " and " +
                       std::to_string(f.maxRel) + ", squares " + std::to_string(f.errorSquares) +
                       " and " + std::to_string(f.referenceSquares);
            };
            throw Error("the evaluator's comparison kernel disagrees with LibTorch's operators "
                        "(atol " +
                        std::to_string(atol) + ", rtol " + std::to_string(rtol) +
                        "): " + (kernel ? text(*kernel) : std::string("no figures")) + " against " +
                        text(expected));
        }
}

void GpuRun::scrubShared(const PoisonPattern& pattern) {
    const int words = m_gpu.scrubBytes / 4;
    unsigned p = pattern.shared;
    int w = words;
    std::vector<void*> params = {&p, &w};
    const unsigned grid[3] = {static_cast<unsigned>(std::max(1, m_gpu.info.multiprocessors)) * 2, 1,
                              1};
    const unsigned block[3] = {1024, 1, 1};
    launchKernel(m_gpu.scrub, grid, block, static_cast<unsigned>(m_gpu.scrubBytes),
                 m_gpu.stream->handle(), params);
}

bool GpuRun::correctness(const std::string& preset, int trials, std::uint64_t base,
                         const std::string& stage) {
    // A fresh module per phase: state kept in __device__ globals does not carry over.
    GpuLauncher launcher(m_p.device, m_p.resolved, m_gpu.info, m_gpu.stream->handle());
    const auto params = makeAll(m_task.parameters, preset, base);
    syncOrFault("the parameters' making");
    lap("module_and_parameters");
    for (int t = 0; t < trials; ++t) {
        report(stage, static_cast<double>(t) / trials,
               stage + " trial " + std::to_string(t + 1) + " of " + std::to_string(trials));
        TrialResult trial;
        trial.trial = static_cast<int>(m_r.trials.size());
        trial.seed = mixSeed(base, static_cast<std::uint64_t>(t) + 1);
        const auto inputs = makeAll(m_task.inputs, preset, trial.seed);
        const FingerprintKey key{m_keys(), m_keys()};
        const auto inputPrints = fingerprints(inputs, key);
        lap("inputs");
        auto reference = callReference(inputs, params);
        syncOrFault("the reference");
        lap("reference");
        const auto referencePrints = fingerprints(reference, key);
        lap("checks");

        std::vector<at::Tensor> passes[2];
        std::optional<std::vector<std::uint64_t>> firstPrints;
        Comparison c;
        bool bandsIntact = true;
        bool inputsIntact = true;
        bool referenceIntact = true;
        bool firstIntact = true;
        const PoisonPattern* patterns[2] = {&kPoisonA, &kPoisonB};
        const PoisonPattern* bands[2] = {&kBandA, &kBandB};
        for (int pass = 0; pass < 2; ++pass) {
            // Each pass says it has begun: the owner's limit on silence then covers one call of
            // the candidate, not the whole trial.
            report(stage, (t + (pass + 1) / 3.0) / trials,
                   stage + " trial " + std::to_string(t + 1) + " of " + std::to_string(trials) +
                       ": the candidate's call " + std::to_string(pass + 1) + " of 2");
            {
                PoisonGuard guard(*patterns[pass], *bands[pass]);
                scrubShared(*patterns[pass]);
                launcher.launches = 0;
                try {
                    passes[pass] =
                        callCandidate(m_p.host->guardedForward(), launcher, &guard, inputs, params);
                    syncOrFault(stage + " trial " + std::to_string(t + 1));
                    lap("candidate");
                } catch (const CandidateFault& fault) {
                    m_impl.registerLimitedLaunch = launcher.registerLimited;
                    trial.detail = fault.message;
                    m_r.trials.push_back(trial);
                    m_r.verdict = Verdict::RuntimeError;
                    m_r.message = fault.message;
                    return false;
                }
                m_r.launchesPerCall = launcher.launches;
                bandsIntact = bandsIntact && guard.bandsIntact();
            }
            inputsIntact = inputsIntact && fingerprints(inputs, key) == inputPrints;
            if (pass == 0) {
                referenceIntact = fingerprints(reference, key) == referencePrints;
                lap("checks");
                c = compareOutputs(passes[0], reference, m_task, m_options, comparer());
                lap("comparison");
                // The second call runs without the reference's output, which is not needed past
                // the comparison: a trial holds the inputs and two sets of outputs at most.
                reference.clear();
                firstPrints = outputFingerprints(passes[0], key);
            } else if (firstPrints) {
                const auto again = outputFingerprints(passes[0], key);
                firstIntact = again && *again == *firstPrints;
            }
            lap("checks");
        }
        if (launcher.launches == 0 && !m_p.fallback)
            addFlag(m_r, "no_launch", "a call launched no kernel");

        trial.passed = c.passed;
        trial.maxAbsError = c.maxAbs;
        trial.maxRelError = c.maxRel;
        trial.detail = c.detail;
        std::vector<at::Tensor> arguments = inputs;
        arguments.insert(arguments.end(), params.begin(), params.end());
        const std::string lazy = unmaterialisedOutput(passes[0], arguments);
        if (!lazy.empty()) {
            addFlag(m_r, "lazy_output", lazy);
            trial.passed = false;
            trial.detail = lazy;
        }
        if (!inputsIntact) {
            addFlag(m_r, "inputs_mutated", "the candidate changed its inputs");
            trial.passed = false;
            trial.detail = "the candidate changed its inputs";
        }
        // An output that shares no memory with the arguments is the first call's own: the
        // second call has no business writing it.
        if (!bandsIntact || !referenceIntact || (lazy.empty() && !firstIntact)) {
            addFlag(m_r, "out_of_bounds_write",
                    !bandsIntact       ? "a kernel wrote past the ends of a tensor it allocated"
                    : !referenceIntact ? "the reference's output changed while the candidate ran"
                                       : "the first call's output changed while the candidate "
                                         "ran again");
            trial.passed = false;
            trial.detail = "a kernel wrote outside its tensors";
        }
        if (trial.passed) {
            const Agreement agree = agreement(passes[0], passes[1], m_task, m_options, comparer());
            lap("comparison");
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

void GpuRun::finish() {
    if (m_r.verdict == Verdict::NotRun) {
        m_r.verdict = m_p.fallback ? Verdict::Fallback : Verdict::Correct;
        if (m_p.fallback)
            m_r.message = "computes with PyTorch operators instead of its kernels";
        else if (m_r.candidateTime && m_r.referenceTime)
            m_r.message = "correct; " + formatFixed(m_r.candidateTime->medianMs, 3) +
                          " ms against the reference's " +
                          formatFixed(m_r.referenceTime->medianMs, 3) + " ms (" +
                          formatFixed(m_r.speedup, 2) + "x)";
        else
            m_r.message = "correct";
    }
}

} // namespace dice::native
