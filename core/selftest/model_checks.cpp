// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include <ATen/CPUGeneratorImpl.h>

#include "core/selftest/model_checks.h"

#include "core/common/error.h"
#include "core/common/number_format.h"
#include "core/cuda/cuda_driver.h"
#include "core/diffusion/qwen3_network.h"
#include "core/diffusion/sdar_sampler.h"
#include "core/model/qwen3_model.h"
#include "core/model/safetensors.h"
#include "core/model/safetensors_torch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <random>

namespace dice {

namespace {

at::Tensor blockCausal(std::int64_t rows, std::int64_t length, std::int64_t block) {
    const auto idx = at::arange(length, at::TensorOptions().dtype(at::kLong));
    const auto blocks = at::div(idx, block, "floor");
    return (blocks.unsqueeze(0) <= blocks.unsqueeze(1)).expand({rows, 1, length, length});
}

double maxDifference(const at::Tensor& a, const at::Tensor& b) {
    return (a.to(at::kCPU, at::kDouble) - b.to(at::kCPU, at::kDouble)).abs().max().item<double>();
}

at::Tensor fixtureTensor(const std::shared_ptr<const SafetensorsFile>& file,
                         const std::string& name) {
    const auto* entry = file->header().find(name);
    if (!entry)
        throw FileError(file->path(), "has no tensor '" + name + "'");
    return safetensorsTensor(file, *entry).clone();
}

} // namespace

ModelConfig tinyModelConfig() {
    ModelConfig c;
    c.modelType = "sdar";
    c.vocabSize = 96;
    c.hiddenSize = 64;
    c.numLayers = 2;
    c.numHeads = 4;
    c.numKvHeads = 2;
    c.headDim = 16;
    c.intermediateSize = 96;
    c.ropeTheta = 10000.0;
    c.maskTokenId = 95;
    c.blockSize = 4;
    return c;
}

double cachedDecodingDeviation(Qwen3Model& model, std::int64_t blockLength, std::uint64_t seed) {
    at::NoGradGuard noGrad;
    const std::int64_t B = blockLength, V = model.config().vocabSize;
    const std::int64_t length = 5 * B;
    auto generator = at::detail::createCPUGenerator(seed);
    const auto sequences =
        at::randint(V, {2, length}, generator, at::TensorOptions().dtype(at::kLong));
    // Prompts of 2B and B + 1 tokens: the rows start their first block at different positions.
    model.allocateCache(2, length);
    model.prefill(sequences.narrow(1, 0, 2 * B), {2 * B, B}, B);
    double worst = 0;
    for (int round = 0; round < 3; ++round) {
        const auto starts = model.cacheLengths();
        auto block = at::empty({2, B}, at::TensorOptions().dtype(at::kLong));
        for (std::int64_t row = 0; row < 2; ++row)
            block[row].copy_(sequences[row].narrow(0, starts[static_cast<size_t>(row)], B));
        const auto logits = model.blockPass(block, {0, 0}, true);
        for (std::int64_t row = 0; row < 2; ++row) {
            const std::int64_t end = starts[static_cast<size_t>(row)] + B;
            const auto tokens = sequences[row].narrow(0, 0, end).unsqueeze(0);
            const auto positions =
                at::arange(end, at::TensorOptions().dtype(at::kLong)).unsqueeze(0);
            const auto reference = model.forward(tokens, positions, blockCausal(1, end, B));
            worst = std::max(worst, maxDifference(logits[row], reference[0].narrow(0, end - B, B)));
        }
        if (model.cacheLengths() != starts)
            throw Error("a denoising pass changed the cache lengths");
        model.blockPass(block, {1, 1}, false);
    }
    return worst;
}

double fusedAgainstUnfused(Qwen3Model& model, std::int64_t blockLength, std::uint64_t seed) {
    at::NoGradGuard noGrad;
    const std::int64_t B = blockLength, V = model.config().vocabSize;
    auto generator = at::detail::createCPUGenerator(seed);
    const auto sequences =
        at::randint(V, {2, 6 * B}, generator, at::TensorOptions().dtype(at::kLong));
    auto run = [&](bool fused) {
        model.setFusedKernels(fused);
        model.allocateCache(2, 6 * B);
        model.prefill(sequences.narrow(1, 0, 2 * B), {2 * B, B + 1}, B);
        std::vector<at::Tensor> logits;
        for (int round = 0; round < 3; ++round) {
            const auto starts = model.cacheLengths();
            auto block = at::empty({2, B}, at::TensorOptions().dtype(at::kLong));
            for (std::int64_t row = 0; row < 2; ++row)
                block[row].copy_(sequences[row].narrow(0, starts[static_cast<size_t>(row)], B));
            logits.push_back(model.blockPass(block, {0, 0}, true).to(at::kCPU));
            model.blockPass(block, {1, 1}, false);
        }
        return at::stack(logits);
    };
    const auto fused = run(true);
    const auto reference = run(false);
    model.setFusedKernels(true);
    const double range = reference.abs().max().item<double>();
    return maxDifference(fused, reference) / std::max(range, 1e-6);
}

double fixtureDeviation(Qwen3Model& model, const std::string& fixtureFolder) {
    const auto file = SafetensorsFile::open(
        (std::filesystem::path(fixtureFolder) / "expected.safetensors").string());
    const auto tokens = fixtureTensor(file, "tokens");
    const std::int64_t n = tokens.size(0), T = tokens.size(1);
    const auto positions =
        at::arange(T, at::TensorOptions().dtype(at::kLong)).unsqueeze(0).expand({n, T});
    const auto causal = blockCausal(n, T, 1);
    c10::InferenceMode inference;
    double worst = maxDifference(model.forward(tokens, positions, causal),
                                 fixtureTensor(file, "causal_logits"));
    worst = std::max(
        worst, maxDifference(model.forward(tokens, fixtureTensor(file, "offset_positions"), causal),
                             fixtureTensor(file, "offset_logits")));
    worst = std::max(
        worst, maxDifference(model.forward(tokens, positions, fixtureTensor(file, "block_mask")),
                             fixtureTensor(file, "block_logits")));
    return worst;
}

namespace {

void checkModelCachedDecoding(CheckResult& result) {
    ModelPlacement cpu;
    auto model = Qwen3Model::random(tinyModelConfig(), cpu, 5, 0.2);
    const double blockFour = cachedDecodingDeviation(*model, 4, 11);
    const double autoregressive = cachedDecodingDeviation(*model, 1, 12);
    result.data["block4_max_abs_difference"] = blockFour;
    result.data["block1_max_abs_difference"] = autoregressive;
    if (!(blockFour <= 1e-4) || !(autoregressive <= 1e-4))
        throw Error("cached decoding differs from the block-causal forward pass by " +
                    formatScientific(std::max(blockFour, autoregressive), 2));
    result.message = "prefill + denoise + commit match the block-causal forward pass within " +
                     formatScientific(std::max(blockFour, autoregressive), 2) + " (fp32, CPU)";
}

// Continuous batching on a real model: six prompts with uneven budgets sampled at temperature 1
// in a pool of 2 rows (a finished sequence's row prefilled with the next prompt while the other
// row decodes on), and in a pool of 3 rows over a paged cache of three pages of 32 positions (a
// sequence of two pages waits for them; pages change hands as rows move), against all six at
// once. Returns what differs, or nothing.
std::string pooledAsAtOnce(Qwen3Model& model) {
    const std::vector<std::vector<std::int64_t>> prompts = {
        {3, 14, 15}, {7, 1, 8, 28, 27, 18, 28, 18, 28},
        {2},         {27, 18, 28, 18, 28, 45, 90, 45, 23},
        {},          {60, 61, 62, 63, 64}};
    SamplerOptions options;
    options.temperature = 1.0;
    options.strategy = RemaskStrategy::LowConfidenceDynamic;
    options.maskId = 95;
    options.seed = 17;
    options.budgets = {7, 16, 3, 40, 5, 9};
    Qwen3Network network(model);
    const auto atOnce = generate(network, prompts, options);
    options.maxActive = 2;
    const auto pooled = generate(network, prompts, options);
    CachePaging paging;
    paging.pageTokens = 32;
    paging.tokens = 3 * 32;
    Qwen3Network pagedNetwork(model, paging);
    options.maxActive = 3;
    const auto paged = generate(pagedNetwork, prompts, options);
    const std::int64_t peak = model.cachePeakPages();
    for (std::size_t i = 0; i < prompts.size(); ++i) {
        for (const auto* other : {&pooled, &paged})
            if ((*other)[i].tokens != atOnce[i].tokens ||
                (*other)[i].commitStep != atOnce[i].commitStep ||
                (*other)[i].tailTokens != atOnce[i].tailTokens)
                return "sequence " + std::to_string(i) + " decodes differently in a pool of " +
                       (other == &pooled ? "2 rows" : "3 rows over 3 pages") +
                       " than with all prompts at once";
    }
    if (peak != 3)
        return "the paged pool held at most " + std::to_string(peak) + " of its 3 pages";
    return {};
}

// The generation path on the CPU, as `dice generate --device cpu` takes it: prompts of different
// lengths whose prefill needs no mask and whose blocks need one, greedy with both remasking
// rules; each sequence decoded in the batch must be decoded as alone, trace included.
void checkGenerationOnCpu(CheckResult& result) {
    ModelPlacement cpu;
    auto model = Qwen3Model::random(tinyModelConfig(), cpu, 7, 0.2);
    Qwen3Network network(*model);
    const std::vector<std::vector<std::int64_t>> prompts = {
        {3, 14, 15},
        {7, 1, 8, 28, 27, 18, 28, 18, 28},
        {27, 18, 28, 18, 28, 45, 90, 45, 23, 53, 11, 12}};
    std::int64_t tokens = 0;
    for (const auto strategy :
         {RemaskStrategy::LowConfidenceStatic, RemaskStrategy::LowConfidenceDynamic}) {
        SamplerOptions options;
        options.temperature = 0;
        options.strategy = strategy;
        options.maxTokens = 16;
        options.maskId = 95;
        const auto batch = generate(network, prompts, options);
        for (std::size_t i = 0; i < prompts.size(); ++i) {
            const auto alone = generate(network, {prompts[i]}, options);
            if (alone[0].tokens != batch[i].tokens || alone[0].commitStep != batch[i].commitStep)
                throw Error(
                    "prompt " + std::to_string(i) + " decodes differently alone and in a batch (" +
                    (strategy == RemaskStrategy::LowConfidenceStatic ? "static" : "dynamic") +
                    " remasking)");
            tokens += static_cast<std::int64_t>(batch[i].tokens.size());
        }
    }
    result.data["tokens"] = tokens;
    const std::string pooled = pooledAsAtOnce(*model);
    if (!pooled.empty())
        throw Error(pooled);
    result.message = "greedy generation of prompts of 3, 9 and 12 tokens, static and dynamic "
                     "remasking: " +
                     std::to_string(tokens) +
                     " tokens, each sequence as alone; sampled with a pool of 2 rows refilled as "
                     "sequences finish, and with 3 rows over a paged cache of 3 pages, as all at "
                     "once (fp32, CPU)";
}

// Skips a check where the driver or LibTorch's CUDA runtime sees no GPU.
void requireTorchGpu() {
    const auto& driver = cu::Driver::instance();
    if (!driver.available())
        throw SkipCheck{driver.unavailableReason()};
    if (!torch::cuda::is_available())
        throw SkipCheck{"LibTorch sees no GPU (a CUDA build of LibTorch is needed)"};
}

void checkModelGpu(CheckResult& result) {
    requireTorchGpu();
    ModelPlacement gpu;
    gpu.device = ModelDevice::Cuda;
    std::string message;
    const char* fixture = std::getenv("DICE_QWEN3_FIXTURE");
    if (fixture && *fixture && std::filesystem::exists(fixture)) {
        LoadOptions load;
        load.placement = gpu;
        auto model = Qwen3Model::load(fixture, load);
        const double parity = fixtureDeviation(*model, fixture);
        result.data["transformers_max_abs_difference"] = parity;
        if (!(parity <= 1e-4))
            throw Error("float32 logits on the GPU differ from transformers' by " +
                        formatScientific(parity, 2));
        message += "transformers parity " + formatScientific(parity, 2) + "; ";
    } else {
        message += "no parity fixture (set DICE_QWEN3_FIXTURE); ";
    }

    auto model = Qwen3Model::random(tinyModelConfig(), gpu, 5, 0.2);
    if (!model->fusedKernelsActive())
        throw Error(model->fusedKernelsProblem());
    const double graphs = cachedDecodingDeviation(*model, 4, 11);
    model->setCudaGraphs(false);
    const double eager = cachedDecodingDeviation(*model, 4, 11);
    model->setFusedKernels(false);
    const double unfused = cachedDecodingDeviation(*model, 4, 11);
    model->setFusedKernels(true);
    result.data["cached_graphs_max_abs_difference"] = graphs;
    result.data["cached_eager_max_abs_difference"] = eager;
    result.data["cached_unfused_max_abs_difference"] = unfused;
    const double worst = std::max({graphs, eager, unfused});
    if (!(worst <= 1e-4))
        throw Error("cached decoding on the GPU differs from the forward pass by " +
                    formatScientific(worst, 2) + " (fused with graphs " +
                    formatScientific(graphs, 2) + ", fused eager " + formatScientific(eager, 2) +
                    ", unfused eager " + formatScientific(unfused, 2) + ")");

    // The fused kernels in 16-bit types against LibTorch's operators on the same passes: both
    // round every step to the dtype, so they differ only where a sum's order does.
    for (const auto dtype : {ModelDType::BFloat16, ModelDType::Float16}) {
        ModelPlacement placement = gpu;
        placement.dtype = dtype;
        auto half = Qwen3Model::random(tinyModelConfig(), placement, 6, 0.2);
        if (!half->fusedKernelsActive())
            throw Error(half->fusedKernelsProblem());
        const double fusedDifference = fusedAgainstUnfused(*half, 4, 13);
        result.data["fused_" + toString(dtype) + "_relative_difference"] = fusedDifference;
        if (!(fusedDifference <= 2e-2))
            throw Error("fused " + toString(dtype) + " decoding passes differ from LibTorch's by " +
                        formatScientific(fusedDifference, 2) + " of the logits' range");
        message +=
            "fused " + toString(dtype) + " within " + formatScientific(fusedDifference, 2) + "; ";
        // The layers' products through the fused kernel for few rows (two rows of 4: 8).
        half->setSmallRowProducts(true);
        const double smallRows = fusedAgainstUnfused(*half, 4, 13);
        half->setSmallRowProducts(false);
        result.data["small_rows_" + toString(dtype) + "_relative_difference"] = smallRows;
        if (!(smallRows <= 2e-2))
            throw Error("fused " + toString(dtype) +
                        " passes with the products for few rows differ from LibTorch's by " +
                        formatScientific(smallRows, 2) + " of the logits' range");
        message += "with the products for few rows within " + formatScientific(smallRows, 2) + "; ";
    }

    // Greedy decoding of a batch of different lengths, with and without graphs, and each
    // sequence alone: the same tokens every time.
    SamplerOptions options;
    options.temperature = 0;
    options.strategy = RemaskStrategy::LowConfidenceStatic;
    options.maxTokens = 24;
    options.maskId = 95;
    const std::vector<std::vector<std::int64_t>> prompts = {
        {3, 14, 15, 92, 65, 35, 89}, {7, 1, 8, 28}, {27, 18, 28, 18, 28, 45, 90, 45, 23, 53}};
    Qwen3Network network(*model);
    const auto eagerTokens = generate(network, prompts, options);
    model->setCudaGraphs(true);
    const auto graphTokens = generate(network, prompts, options);
    for (size_t i = 0; i < prompts.size(); ++i) {
        const auto alone = generate(network, {prompts[i]}, options);
        if (graphTokens[i].tokens != eagerTokens[i].tokens)
            throw Error("sequence " + std::to_string(i) + " decodes differently with CUDA graphs");
        if (alone[0].tokens != graphTokens[i].tokens)
            throw Error("sequence " + std::to_string(i) +
                        " decodes differently alone and in a batch");
    }
    const std::string pooled = pooledAsAtOnce(*model);
    if (!pooled.empty())
        throw Error(pooled + " (with CUDA graphs)");
    result.message = message + "cached decoding within " +
                     formatScientific(std::max(graphs, eager), 2) +
                     " (graphs and eager); batched greedy decoding identical with and without "
                     "graphs and alone; a pool of 2 rows refilled as sequences finish, and one "
                     "of 3 rows over a paged cache of 3 pages, sample as all at once";
}

// What a cell's draw must be, in double precision from its float32 logits: the kept set of
// temperature, top-k and top-p as the sampler defines it, and the token's interval of the
// cumulative distribution in vocabulary order.
struct ExactCell {
    std::vector<double> probability; // [width], 0 outside the kept set
    double entropy = 0;
};

ExactCell exactCell(const float* logits, std::int64_t width, const SamplerOptions& o) {
    const double inf = std::numeric_limits<double>::infinity();
    // The kernel scales by the float reciprocal of the temperature.
    const float inverse = 1.0f / static_cast<float>(o.temperature);
    std::vector<double> x(static_cast<size_t>(width));
    for (std::int64_t i = 0; i < width; ++i)
        x[static_cast<size_t>(i)] = i == o.maskId ? -inf : static_cast<double>(logits[i] * inverse);
    std::vector<std::int64_t> order(static_cast<size_t>(width));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        return x[static_cast<size_t>(a)] > x[static_cast<size_t>(b)];
    });
    const double top = x[static_cast<size_t>(order[0])];
    std::vector<bool> kept(static_cast<size_t>(width), true);
    if (o.topK > 0 && o.topK < width) {
        const double kth = x[static_cast<size_t>(order[static_cast<size_t>(o.topK - 1)])];
        for (std::int64_t i = 0; i < width; ++i)
            kept[static_cast<size_t>(i)] = x[static_cast<size_t>(i)] >= kth;
    }
    if (o.topP < 1) {
        double mass = 0;
        for (auto i : order)
            if (kept[static_cast<size_t>(i)])
                mass += std::exp(x[static_cast<size_t>(i)] - top);
        double before = 0;
        for (auto i : order) {
            if (!kept[static_cast<size_t>(i)])
                continue;
            const double p = std::exp(x[static_cast<size_t>(i)] - top) / mass;
            kept[static_cast<size_t>(i)] = before <= o.topP;
            before += p;
        }
    }
    ExactCell cell;
    cell.probability.assign(static_cast<size_t>(width), 0.0);
    double total = 0;
    for (std::int64_t i = 0; i < width; ++i)
        if (kept[static_cast<size_t>(i)])
            total += cell.probability[static_cast<size_t>(i)] =
                std::exp(x[static_cast<size_t>(i)] - top);
    for (auto& p : cell.probability) {
        p /= total;
        if (p > 0)
            cell.entropy -= p * std::log(p);
    }
    return cell;
}

// The fused sampling kernel against an exact computation and against LibTorch's operators on the
// same logits and uniforms: a vocabulary of Qwen's size, flat and peaked cells, each way of
// filtering. A token must lie where its uniform falls in the exact cumulative distribution, but
// for a few cells whose uniform or top-p bound is within rounding of a boundary.
void checkFusedSampling(CheckResult& result) {
    requireTorchGpu();
    constexpr std::int64_t kBlocks = 16, kBlock = 4, kVocabulary = 151936, kLimit = 151669;
    auto generator = at::make_generator<at::CPUGeneratorImpl>(17);
    // Blocks of flat (scale 1) to peaked (scale 12) cells.
    const auto scales =
        at::linspace(1.0, 12.0, kBlocks, at::TensorOptions().dtype(at::kFloat)).view({-1, 1, 1});
    const auto hostLogits = (at::randn({kBlocks, kBlock, kVocabulary}, generator,
                                       at::TensorOptions().dtype(at::kFloat)) *
                             scales)
                                .contiguous();
    const auto logits = hostLogits.to(at::kCUDA);
    std::mt19937_64 rng(5);
    std::vector<double> uniforms;
    for (std::int64_t i = 0; i < kBlocks * kBlock; ++i)
        uniforms.push_back((static_cast<double>(rng() >> 11) + 0.5) / 9007199254740992.0);

    struct Case {
        const char* name;
        double temperature;
        std::int64_t topK;
        double topP;
        bool raw;
    };
    const Case cases[] = {{"plain", 1.0, 0, 1.0, false},     {"top_k_50", 1.0, 50, 1.0, false},
                          {"top_p_0.9", 1.0, 0, 0.9, false}, {"both", 0.7, 40, 0.95, false},
                          {"top_p_0.5", 1.3, 0, 0.5, false}, {"raw_confidence", 1.0, 0, 1.0, true}};
    const auto timeDraw = [&](const SamplerOptions& o) {
        std::vector<double> ms;
        for (int run = 0; run < 5; ++run) {
            torch::cuda::synchronize();
            const auto start = std::chrono::steady_clock::now();
            (void)drawCells(logits, uniforms, o, true);
            ms.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count());
        }
        std::sort(ms.begin(), ms.end());
        return ms[ms.size() / 2];
    };
    const std::int64_t cells = kBlocks * kBlock;
    std::string summary;
    for (const auto& c : cases) {
        SamplerOptions o;
        o.temperature = c.temperature;
        o.topK = c.topK;
        o.topP = c.topP;
        o.rawConfidence = c.raw;
        o.maskId = kLimit - 4;
        o.vocabLimit = kLimit;
        SamplerOptions fusedOptions = o;
        fusedOptions.fusedSampling = true;
        const CellDraw fused = drawCells(logits, uniforms, fusedOptions, true);
        const CellDraw operators = drawCells(logits, uniforms, o, true);
        int fusedOutside = 0, operatorsOutside = 0, different = 0;
        double confidenceError = 0, entropyError = 0;
        for (std::int64_t cell = 0; cell < cells; ++cell) {
            const float* row = hostLogits.data_ptr<float>() + cell * kVocabulary;
            SamplerOptions exactOptions = o;
            if (c.raw) {
                exactOptions.temperature = 1.0;
                exactOptions.topK = 0;
                exactOptions.topP = 1.0;
            }
            const ExactCell sampling = exactCell(row, kLimit, o);
            const ExactCell confidenceOf = c.raw ? exactCell(row, kLimit, exactOptions) : sampling;
            const double u = uniforms[static_cast<size_t>(cell)];
            const auto inside = [&](std::int64_t token) {
                if (token < 0 || token >= kLimit)
                    return false;
                const auto& p = sampling.probability;
                const double below = std::accumulate(p.begin(), p.begin() + token, 0.0);
                constexpr double kSlack = 1e-6;
                return p[static_cast<size_t>(token)] > 0 && below - kSlack <= u &&
                       u <= below + p[static_cast<size_t>(token)] + kSlack;
            };
            const auto t = fused.tokens[static_cast<size_t>(cell)];
            fusedOutside += inside(t) ? 0 : 1;
            operatorsOutside += inside(operators.tokens[static_cast<size_t>(cell)]) ? 0 : 1;
            different += t == operators.tokens[static_cast<size_t>(cell)] ? 0 : 1;
            if (t >= 0 && t < kLimit)
                confidenceError = std::max(
                    confidenceError, std::abs(fused.confidence[static_cast<size_t>(cell)] -
                                              confidenceOf.probability[static_cast<size_t>(t)]));
            entropyError =
                std::max(entropyError,
                         std::abs(fused.entropy[static_cast<size_t>(cell)] - confidenceOf.entropy) /
                             std::max(1.0, confidenceOf.entropy));
        }
        const double fusedMs = timeDraw(fusedOptions);
        const double operatorsMs = timeDraw(o);
        result.data["cases"][c.name] = {{"cells", cells},
                                        {"fused_outside_exact_interval", fusedOutside},
                                        {"operators_outside_exact_interval", operatorsOutside},
                                        {"tokens_different", different},
                                        {"fused_confidence_max_error", confidenceError},
                                        {"fused_entropy_max_relative_error", entropyError},
                                        {"fused_ms", fusedMs},
                                        {"operators_ms", operatorsMs}};
        if (fusedOutside > cells / 50)
            throw Error(std::string(c.name) + ": " + std::to_string(fusedOutside) + " of " +
                        std::to_string(cells) +
                        " fused draws lie outside their uniform's interval of the exact "
                        "distribution");
        if (!(confidenceError <= 1e-4) || !(entropyError <= 1e-3))
            throw Error(std::string(c.name) + ": fused confidence off by " +
                        formatScientific(confidenceError, 2) + ", entropy by " +
                        formatScientific(entropyError, 2));
        summary += (summary.empty() ? "" : ", ") + std::string(c.name) + " " +
                   formatFixed(fusedMs, 2) + " ms against " + formatFixed(operatorsMs, 2);
    }
    result.message = std::to_string(cells) + " cells of " + std::to_string(kLimit) +
                     " logits: fused draws within their uniforms' intervals of the exact "
                     "distribution; fused against LibTorch's operators: " +
                     summary;
}

} // namespace

void addModelChecks(std::vector<SelfTestCheck>& checks) {
    checks.insert(
        checks.end(),
        {
            {"cpu.model_cache", "cpu", "cached SDAR decoding matches the block-causal forward pass",
             checkModelCachedDecoding},
            {"cpu.generate", "cpu", "generation on the CPU: batched as alone, with its trace",
             checkGenerationOnCpu},
            {"gpu.model", "gpu", "the model on CUDA: transformers parity, cached passes, graphs",
             checkModelGpu},
            {"gpu.fused_sampling", "gpu",
             "the fused sampling kernel draws from the exact distribution, as LibTorch's "
             "operators do",
             checkFusedSampling},
        });
}

} // namespace dice
