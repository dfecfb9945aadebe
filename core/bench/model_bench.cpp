// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#if DICE_TORCH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

#include "core/bench/model_bench.h"

#include "core/bench/pass_breakdown.h"
#include "core/common/child_process.h"
#include "core/common/error.h"
#include "core/common/statistics.h"
#include "core/cuda/cupti_tracer.h"
#include "core/diffusion/qwen3_network.h"
#include "core/diffusion/sdar_sampler.h"
#include "core/model/cpu_threads.h"
#include "core/model/device_memory.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <thread>

namespace dice {

namespace {

void synchronize(const ModelBenchOptions& o) {
#if DICE_TORCH_CUDA
    if (o.device == ModelDevice::Cuda)
        c10::cuda::device_synchronize();
#else
    (void)o;
#endif
}

void resetPeakMemory(const ModelBenchOptions& o) {
    if (o.device == ModelDevice::Cuda)
        resetPeakDeviceMemory(0);
}

std::int64_t peakMemory(const ModelBenchOptions& o) {
    return o.device == ModelDevice::Cuda ? peakDeviceMemory(0) : 0;
}

// Milliseconds of one call, measured the way decoding uses it: the pass and the wait for it.
template <typename F>
double timeCall(const ModelBenchOptions& o, F&& call) {
#if DICE_TORCH_CUDA
    if (o.device == ModelDevice::Cuda) {
        at::cuda::CUDAEvent begin(0), end(0);
        begin.record();
        call();
        end.record();
        end.synchronize();
        return begin.elapsed_time(end);
    }
#endif
    const auto t0 = std::chrono::steady_clock::now();
    call();
    synchronize(o);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string join(const std::vector<std::int64_t>& values) {
    std::string out;
    for (size_t i = 0; i < values.size(); ++i)
        out += (i ? "," : "") + std::to_string(values[i]);
    return out;
}

std::string joinText(const std::vector<std::string>& values) {
    std::string out;
    for (size_t i = 0; i < values.size(); ++i)
        out += (i ? "," : "") + values[i];
    return out;
}

std::string shellQuote(const std::string& word) {
    std::string out = "'";
    for (char c : word)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

nlohmann::json runTransformers(const ModelBenchOptions& o) {
    const std::vector<std::string> argv = {
        o.python,   o.transformersScript,
        "--shapes", joinText(o.shapes),
        "--dtype",  toString(o.dtype),
        "--batch",  join(o.batches),
        "--cached", std::to_string(o.cached),
        "--block",  std::to_string(o.blockLength),
        "--device", o.device == ModelDevice::Cuda ? "cuda" : "cpu"};
    if (o.log) {
        std::string command;
        for (const auto& word : argv)
            command += (command.empty() ? "" : " ") + shellQuote(word);
        o.log("transformers: " + command);
    }
    // Its progress goes to our stderr as it runs; its stdout is the JSON.
    ChildRunOptions options;
    options.err = ChildStream::Inherit;
    const ChildResult run = runChild({argv}, options);
    if (!run.exit.started())
        return {{"error", run.exit.startError}};
    if (!run.ok())
        return {{"error", "the transformers script " + run.exit.describe()}};
    try {
        return nlohmann::json::parse(run.out);
    } catch (const nlohmann::json::exception& e) {
        return {{"error", std::string("the transformers script printed no JSON: ") + e.what()}};
    }
}

} // namespace

ModelConfig benchmarkShape(const std::string& name) {
    ModelConfig c;
    c.modelType = "sdar";
    c.vocabSize = 151936;
    c.headDim = 128;
    c.numKvHeads = 8;
    c.ropeTheta = 1e6;
    c.rmsNormEps = 1e-6;
    c.maxPositionEmbeddings = 32768;
    c.blockSize = 4;
    c.maskTokenId = 151669;
    c.tieWordEmbeddings = false;
    if (name == "1.7b") {
        c.hiddenSize = 2048, c.numLayers = 28, c.numHeads = 16, c.intermediateSize = 6144;
    } else if (name == "4b") {
        c.hiddenSize = 2560, c.numLayers = 36, c.numHeads = 32, c.intermediateSize = 9728;
    } else if (name == "8b") {
        c.hiddenSize = 4096, c.numLayers = 36, c.numHeads = 32, c.intermediateSize = 12288;
    } else if (name == "20m") {
        c.vocabSize = 32000;
        c.hiddenSize = 256, c.numLayers = 6, c.numHeads = 4, c.numKvHeads = 2, c.headDim = 64;
        c.intermediateSize = 768;
        c.maskTokenId = 31999;
    } else {
        throw Error("unknown benchmark shape '" + name + "' (1.7b, 4b, 8b, 20m)");
    }
    return c;
}

nlohmann::json runModelBenchmark(const ModelBenchOptions& o) {
    setCpuThreads(o.cpuThreads);
    auto log = [&](const std::string& text) {
        if (o.log)
            o.log(text);
    };
    nlohmann::json results = nlohmann::json::array();
    for (const auto& shapeName : o.shapes) {
        const ModelConfig config = benchmarkShape(shapeName);
        resetPeakMemory(o);
        ModelPlacement placement;
        placement.device = o.device;
        placement.dtype = o.dtype;
        log("building " + shapeName + " (" + std::to_string(config.parameterCount()) +
            " parameters) in " + toString(o.dtype));
        auto model = Qwen3Model::random(config, placement, 1234);
        model->setCudaGraphs(o.cudaGraphs);
        const double weightBytes = static_cast<double>(model->weightBytes());
        const double boundMs = weightBytes / o.bandwidth * 1e3;
        nlohmann::json shape = {{"shape", shapeName},
                                {"parameters", config.parameterCount()},
                                {"weight_bytes", model->weightBytes()},
                                {"hidden", config.hiddenSize},
                                {"layers", config.numLayers},
                                {"heads", config.numHeads},
                                {"kv_heads", config.numKvHeads},
                                {"intermediate", config.intermediateSize},
                                {"vocab", config.vocabSize},
                                {"bound_ms", boundMs}};
        const std::int64_t vocabLimit = config.maskTokenId.value_or(config.vocabSize - 1) + 1;
        const std::int64_t tokenRange = std::min<std::int64_t>(vocabLimit - 1, 151643);

        nlohmann::json passes = nlohmann::json::array();
        for (auto batch : o.batches) {
            torch::manual_seed(static_cast<std::uint64_t>(batch));
            model->allocateCache(batch, o.cached + o.blockLength);
            const auto prefix = torch::randint(0, tokenRange, {batch, o.cached}, torch::kLong);
            model->prefill(prefix, std::vector<std::int64_t>(static_cast<size_t>(batch), o.cached),
                           o.blockLength);
            const auto block = torch::randint(0, tokenRange, {batch, o.blockLength}, torch::kLong);
            const std::vector<std::uint8_t> commit(static_cast<size_t>(batch), 0);
            auto pass = [&] { model->blockPass(block, commit, true); };
            // Milliseconds of each timed pass, after warm-ups in the model's current mode.
            auto timePasses = [&] {
                for (int i = 0; i < 5; ++i)
                    timeCall(o, pass);
                std::vector<double> times;
                for (std::int64_t i = 0; i < o.passIterations; ++i)
                    times.push_back(timeCall(o, pass));
                return times;
            };
            const std::vector<double> ms = timePasses();
            const double med = median(ms);
            log(shapeName + " batch " + std::to_string(batch) + ": " + std::to_string(med) +
                " ms per denoising pass (bound " + std::to_string(boundMs) + " ms)");
            nlohmann::json entry = {{"batch", batch},
                                    {"cached", o.cached},
                                    {"block", o.blockLength},
                                    {"iterations", o.passIterations},
                                    {"median_ms", med},
                                    {"min_ms", *std::min_element(ms.begin(), ms.end())},
                                    {"max_ms", *std::max_element(ms.begin(), ms.end())},
                                    {"bound_ms", boundMs},
                                    {"ratio_to_bound", med / boundMs}};
            if (o.device == ModelDevice::Cuda && CuptiTracer::available()) {
                // Kernel time against the pass's time tells launch gaps from GPU work, and the
                // longest kernels tell which part of the network holds the pass back.
                constexpr int kTracedPasses = 10;
                CuptiTracer tracer;
                std::string error;
                if (tracer.start(&error)) {
                    for (int i = 0; i < kTracedPasses; ++i)
                        pass();
                    synchronize(o);
                    const PassBreakdown breakdown = passBreakdown(tracer.stop(), kTracedPasses);
                    entry["kernels"] = toJson(breakdown, med);
                    log(shapeName + " batch " + std::to_string(batch) + ": kernels busy " +
                        std::to_string(breakdown.busyMsPerPass) + " ms, idle " +
                        std::to_string(std::max(0.0, med - breakdown.busyMsPerPass)) +
                        " ms per pass");
                } else {
                    entry["kernels"] = {{"error", error}};
                }
            }
            if (model->fusedKernelsActive() && batch * o.blockLength <= 8) {
                // The layers' products through the fused kernel for few rows instead of cuBLAS,
                // timed in the same run: it stays off until this says it is faster.
                model->setSmallRowProducts(true);
                const double small = median(timePasses());
                model->setSmallRowProducts(false);
                entry["small_row_products_median_ms"] = small;
                entry["small_row_products_speedup"] = med / small;
                log(shapeName + " batch " + std::to_string(batch) + ": " + std::to_string(small) +
                    " ms with the fused products for few rows");
            }
            if (model->fusedKernelsActive()) {
                // The same passes with LibTorch's operators alone, timed in the same run.
                model->setFusedKernels(false);
                const double unfused = median(timePasses());
                model->setFusedKernels(true);
                entry["unfused_median_ms"] = unfused;
                entry["fused_speedup"] = unfused / med;
                log(shapeName + " batch " + std::to_string(batch) + ": " + std::to_string(unfused) +
                    " ms without the fused kernels");
            }
            passes.push_back(entry);
        }
        shape["denoise_pass"] = passes;

        nlohmann::json generation = nlohmann::json::array();
        Qwen3Network network(*model);
        for (auto batch : o.batches) {
            for (auto strategy :
                 {RemaskStrategy::LowConfidenceStatic, RemaskStrategy::LowConfidenceDynamic}) {
                torch::manual_seed(static_cast<std::uint64_t>(100 + batch));
                const auto prompt = torch::randint(0, tokenRange, {o.cached}, torch::kLong);
                const std::vector<std::int64_t> ids(prompt.data_ptr<std::int64_t>(),
                                                    prompt.data_ptr<std::int64_t>() + o.cached);
                const std::vector<std::vector<std::int64_t>> prompts(static_cast<size_t>(batch),
                                                                     ids);
                SamplerOptions so;
                so.blockLength = o.blockLength;
                so.steps = o.blockLength;
                so.strategy = strategy;
                so.maxTokens = o.generateTokens;
                so.seed = 7;
                so.maskId = config.maskTokenId.value_or(config.vocabSize - 1);
                so.vocabLimit = vocabLimit;
                synchronize(o);
                const auto t0 = std::chrono::steady_clock::now();
                const auto out = generate(network, prompts, so);
                synchronize(o);
                const double seconds =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                std::int64_t tokens = 0, forward = 0;
                for (const auto& r : out) {
                    tokens += static_cast<std::int64_t>(r.tokens.size());
                    forward = std::max(forward, r.forwardPasses);
                }
                log(shapeName + " batch " + std::to_string(batch) + " " + toString(strategy) +
                    ": " + std::to_string(tokens / seconds) + " tokens/s");
                generation.push_back({{"batch", batch},
                                      {"strategy", toString(strategy)},
                                      {"prompt_tokens", o.cached},
                                      {"tokens", tokens},
                                      {"seconds", seconds},
                                      {"tokens_per_s", tokens / seconds},
                                      {"forward_passes_per_sequence", forward}});
            }
        }
        shape["generation"] = generation;
        shape["cuda_graphs"] = model->cudaGraphsActive();
        shape["fused_kernels"] = model->fusedKernelsActive();
        if (!model->fusedKernelsProblem().empty())
            shape["fused_kernels_problem"] = model->fusedKernelsProblem();
        shape["peak_memory_bytes"] = peakMemory(o);
        model.reset();
        resetPeakMemory(o);
        results.push_back(shape);
    }

    if (!o.transformersScript.empty()) {
        const auto hf = runTransformers(o);
        for (auto& shape : results) {
            shape["transformers"] = nlohmann::json::object();
            if (hf.contains("error")) {
                shape["transformers"]["error"] = hf["error"];
                continue;
            }
            for (const auto& k : {"transformers", "torch", "attn_implementation"})
                if (hf.contains(k))
                    shape["transformers"][k] = hf[k];
            if (!hf.contains("results") || !hf["results"].is_array())
                continue;
            for (const auto& r : hf["results"]) {
                if (r.value("shape", "") != shape["shape"].get<std::string>())
                    continue;
                shape["transformers"]["denoise_pass"] = r.value("passes", nlohmann::json::array());
                shape["transformers"]["peak_memory_bytes"] = r.value("peak_memory_bytes", 0);
                for (auto& ours : shape["denoise_pass"]) {
                    for (const auto& theirs : shape["transformers"]["denoise_pass"]) {
                        if (theirs.value("batch", -1) == ours["batch"].get<std::int64_t>() &&
                            theirs.value("median_ms", 0.0) > 0) {
                            ours["transformers_median_ms"] = theirs["median_ms"];
                            ours["speedup_vs_transformers"] =
                                theirs["median_ms"].get<double>() / ours["median_ms"].get<double>();
                        }
                    }
                }
            }
        }
    }
    return results;
}

} // namespace dice
