// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/script.h>
#include <torch/torch.h>

#include "core/eval/native_timing.h"

#include "core/common/number_format.h"
#include "core/common/statistics.h"
#include "core/cuda/cuda_context.h"
#include "core/eval/native_gpu_run.h"
#include "core/eval/native_inputs.h"

#include <algorithm>
#include <cctype>
#include <random>
#include <set>

namespace dice::native {

TimingStats statsOf(const std::vector<double>& samples, const std::string& method, int warmups) {
    TimingStats t;
    t.method = method;
    t.warmups = warmups;
    t.trials = static_cast<int>(samples.size());
    t.samplesMs = samples;
    if (samples.empty())
        return t;
    t.medianMs = median(samples);
    t.meanMs = mean(samples);
    t.stdMs = sampleStandardDeviation(samples);
    t.minMs = *std::min_element(samples.begin(), samples.end());
    t.maxMs = *std::max_element(samples.begin(), samples.end());
    return t;
}

std::vector<std::vector<KernelRecord>> splitTimedCalls(std::vector<KernelRecord> records,
                                                       int warmups) {
    std::sort(records.begin(), records.end(),
              [](const KernelRecord& a, const KernelRecord& b) { return a.startNs < b.startNs; });
    std::vector<std::vector<KernelRecord>> calls;
    bool open = false;
    int window = 0;
    for (auto& rec : records) {
        if (rec.name == kTimingSpinKernel) {
            open = true;
            if (window >= warmups)
                calls.emplace_back();
            continue;
        }
        if (rec.name == kTimingMarkKernel) {
            open = false;
            ++window;
            continue;
        }
        if (open && window >= warmups && !calls.empty())
            calls.back().push_back(std::move(rec));
    }
    return calls;
}

std::vector<double> kernelSpansMs(const std::vector<std::vector<KernelRecord>>& calls) {
    std::vector<double> spans;
    for (const auto& call : calls) {
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
    return spans;
}

std::set<std::string> foreignKernels(const std::vector<std::vector<KernelRecord>>& calls,
                                     const std::set<std::string>& own,
                                     const std::set<LaunchShape>& ownShapes,
                                     const std::function<bool(const std::string&)>& loadedEarlier) {
    std::set<std::string> foreign;
    for (const auto& call : calls)
        for (const auto& rec : call) {
            if (own.count(rec.name))
                continue;
            if (ownShapes.count(rec.shape()) && loadedEarlier(rec.name))
                continue;
            std::string lower = rec.name;
            std::transform(lower.begin(), lower.end(), lower.begin(),
                           [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
            if (lower.find("fill") != std::string::npos)
                continue;
            foreign.insert(rec.name.substr(0, 120));
        }
    return foreign;
}

double physicalBoundMs(double bytes, double flops, bool halfPrecision, const DeviceInfo& device) {
    const double bandwidth = device.peakBandwidth();
    const double rate = halfPrecision
                            ? device.peakTensorFlops()
                            : std::max(device.peakFp32Flops(), device.peakTensorFlops() / 2);
    double boundMs = 0;
    if (bandwidth > 0)
        boundMs = std::max(boundMs, bytes / bandwidth * 1e3);
    if (rate > 0 && flops > 0)
        boundMs = std::max(boundMs, flops / rate * 1e3);
    return boundMs;
}

std::set<int> checkedTimedCalls(const EvalOptions& options, std::uint64_t entropy) {
    std::set<int> checked;
    const int n = std::min(std::max(0, options.checkedTimedCalls), options.timingTrials);
    std::mt19937_64 pick(entropy);
    while (static_cast<int>(checked.size()) < n)
        checked.insert(options.warmups +
                       static_cast<int>(pick() % static_cast<std::uint64_t>(options.timingTrials)));
    return checked;
}

template <typename Call, typename After>
GpuRun::Timed GpuRun::timeCalls(const std::string& stage, std::uint64_t base, const Call& call,
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
        // Every call starts from a cold L2: the flush buffer is at least twice its size.
        cu::check(api.cuMemsetD8Async(m_gpu.flush->pointer(), static_cast<unsigned char>(i & 0xFF),
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
        timed.calls = splitTimedCalls(tracer.stop(), m_options.warmups);
        if (static_cast<int>(timed.calls.size()) != m_options.timingTrials)
            timed.cupti = false;
    }
    return timed;
}

std::optional<TimingStats> GpuRun::cuptiStats(const Timed& timed) const {
    if (!timed.cupti)
        return std::nullopt;
    return statsOf(kernelSpansMs(timed.calls), "cupti", m_options.warmups);
}

void GpuRun::timing(std::uint64_t base) {
    m_timingPreset = m_options.preset;
    const auto params = makeAll(m_task.parameters, m_timingPreset, base);
    // Yet another module: whatever the correctness calls left in __device__ globals is gone.
    GpuLauncher launcher(m_p.device, m_p.resolved, m_gpu.info, m_gpu.stream->handle());
    // Which timed calls are checked is drawn afresh for every evaluation from the operating
    // system's entropy: a kernel that counts its calls in a __device__ global cannot know which
    // of them to compute honestly.
    const std::set<int> checked = checkedTimedCalls(m_options, std::random_device{}());
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
                compareOutputs(out, callReference(in, params), m_task, m_options, comparer());
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
        const std::set<std::string> foreign =
            foreignKernels(candidate.calls, launcher.symbols, launcher.shapes, loadedByThisProcess);
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
    if (m_r.candidateTime->meanMs > 0)
        m_r.speedupOfMeans = m_r.referenceTime->meanMs / m_r.candidateTime->meanMs;
    if (m_r.candidateKernelTime && cand > 0 &&
        m_r.candidateKernelTime->medianMs > 1.2 * cand + 0.01)
        addFlag(m_r, "timing_mismatch",
                "CUPTI saw " + formatFixed(m_r.candidateKernelTime->medianMs, 3) +
                    " ms of kernels per call, the events on our stream " + formatFixed(cand, 3) +
                    " ms: work ran outside the timed stream");
    if (m_r.speedup > m_options.excessiveSpeedup)
        addFlag(m_r, "excessive_speedup",
                formatFixed(m_r.speedup, 1) + "x faster than the reference (above " +
                    formatFixed(m_options.excessiveSpeedup, 0) + "x): check it by hand");
    physicalBound(params);
}

void GpuRun::physicalBound(const std::vector<at::Tensor>& params) {
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
    const double boundMs = physicalBoundMs(bytes, flops, half, m_gpu.info);
    m_r.physicalBoundMs = boundMs;
    if (boundMs > 0 && m_r.candidateTime && m_r.candidateTime->medianMs > 0 &&
        m_r.candidateTime->medianMs < boundMs)
        addFlag(m_r, "below_physical_bound",
                "the candidate took " + formatFixed(m_r.candidateTime->medianMs, 4) +
                    " ms; moving its bytes at peak bandwidth and doing its FLOPs at the peak "
                    "rate takes at least " +
                    formatFixed(boundMs, 4) + " ms");
}

} // namespace dice::native
