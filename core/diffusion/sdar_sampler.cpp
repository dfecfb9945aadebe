// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#if DICE_TORCH_CUDA
#include <c10/cuda/CUDAStream.h>
#endif

#include "core/diffusion/sdar_sampler.h"

#include "core/common/error.h"
#include "core/common/splitmix.h"
#include "core/diffusion/fused_cell_sampler.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>

namespace dice {

namespace {

// Uniform in the open interval (0, 1), so that inverse-CDF sampling never picks a zero-probability
// token.
double openUniform(std::mt19937_64& rng) {
    return (static_cast<double>(rng() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

struct Sequence {
    int index = 0;
    std::vector<std::int64_t> canvas; // prompt, then answer cells (masks until committed)
    std::int64_t promptLength = 0;
    std::int64_t budget = 0;
    std::int64_t blockStart = 0; // absolute start of the current block (= cached length)
    std::int64_t step = 0;       // denoising steps in the current block
    std::int64_t block = 0;      // answer block index
    std::int64_t globalStep = 0;
    std::int64_t checked = 0; // absolute position up to which stop ids were searched
    std::mt19937_64 rng;
    GenerationResult result;
    bool done = false;
};

#if DICE_TORCH_CUDA
// The fused sampling kernel of a GPU, built on first use and kept for the process; throws the
// reason where it cannot be built.
const FusedCellSampler& fusedSamplerFor(int deviceIndex) {
    static std::mutex mutex;
    static std::map<int, std::unique_ptr<FusedCellSampler>> built;
    const std::lock_guard<std::mutex> lock(mutex);
    auto& slot = built[deviceIndex];
    if (!slot)
        slot = std::make_unique<FusedCellSampler>(deviceIndex);
    return *slot;
}
#endif

CellDraw copyDraw(const at::Tensor& tokens, const at::Tensor& confidence, const at::Tensor& entropy,
                  bool needEntropy) {
    CellDraw draw;
    const auto t = tokens.to(at::kCPU, at::kLong).contiguous();
    const auto c = confidence.to(at::kCPU, at::kFloat).contiguous();
    draw.tokens.assign(t.data_ptr<std::int64_t>(), t.data_ptr<std::int64_t>() + t.numel());
    draw.confidence.assign(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    if (needEntropy) {
        const auto e = entropy.to(at::kCPU, at::kFloat).contiguous();
        draw.entropy.assign(e.data_ptr<float>(), e.data_ptr<float>() + e.numel());
    }
    return draw;
}

// The sampling of sampleCells in FusedCellSampler's one kernel; logits [m, B, width] on a GPU.
CellDraw sampleCellsFused(const at::Tensor& logits, const std::vector<double>& uniforms,
                          const SamplerOptions& o, bool needEntropy) {
#if DICE_TORCH_CUDA
    const auto rows = logits.size(0) * logits.size(1);
    const auto flat = logits.reshape({rows, logits.size(2)}).contiguous();
    std::int64_t width = flat.size(1);
    if (o.maskBeyondVocab && o.vocabLimit > 0 && o.vocabLimit < width)
        width = o.vocabLimit;
    const auto floats = flat.options().dtype(at::kFloat);
    const auto u = at::tensor(uniforms, at::TensorOptions().dtype(at::kDouble))
                       .to(flat.device(), at::kFloat)
                       .contiguous();
    auto tokens = at::empty({rows}, flat.options().dtype(at::kLong));
    auto confidence = at::empty({rows}, floats);
    auto entropy = needEntropy ? at::empty({rows}, floats) : at::Tensor();
    FusedCellSampler::Cells cells;
    cells.logits = flat.data_ptr<float>();
    cells.rows = rows;
    cells.width = width;
    cells.stride = flat.size(1);
    cells.uniforms = u.data_ptr<float>();
    cells.temperature = static_cast<float>(o.temperature);
    cells.topK = o.topK;
    cells.topP = static_cast<float>(o.topP);
    cells.maskId = o.maskId < width ? o.maskId : -1;
    cells.rawConfidence = o.rawConfidence;
    cells.entropy = needEntropy;
    cells.tokens = tokens.data_ptr<std::int64_t>();
    cells.confidence = confidence.data_ptr<float>();
    cells.entropies = needEntropy ? entropy.data_ptr<float>() : nullptr;
    const int device = static_cast<int>(flat.device().index());
    fusedSamplerFor(device).sample(
        reinterpret_cast<cu::Stream>(
            c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device)).stream()),
        cells);
    return copyDraw(tokens, confidence, entropy, needEntropy);
#else
    (void)logits;
    (void)uniforms;
    (void)o;
    (void)needEntropy;
    throw Error("fused sampling needs a LibTorch built with CUDA");
#endif
}

// Samples every cell of m blocks: temperature, top-k, top-p as the reference sampler does; the
// token by inverse CDF from the given uniforms (so that seeds give the same tokens on any
// device); its confidence under the sampling distribution (or the raw softmax) and, when asked,
// the entropy of that distribution.
CellDraw sampleCells(const at::Tensor& logitsIn, const std::vector<double>& uniforms,
                     const SamplerOptions& o, bool needEntropy) {
    if (o.fusedSampling && logitsIn.is_cuda() && o.temperature > 0 && o.topK != 1)
        return sampleCellsFused(logitsIn.to(at::kFloat), uniforms, o, needEntropy);
    const float inf = std::numeric_limits<float>::infinity();
    at::Tensor logits = logitsIn.to(at::kFloat);
    std::int64_t width = logits.size(-1);
    if (o.maskBeyondVocab && o.vocabLimit > 0 && o.vocabLimit < width) {
        logits = logits.narrow(-1, 0, o.vocabLimit);
        width = o.vocabLimit;
    }
    // A committed mask token would leave its cell masked; the reference never meant to sample it.
    if (o.maskId >= 0 && o.maskId < width)
        logits =
            logits.index_fill(-1, at::tensor({o.maskId}, logits.options().dtype(at::kLong)), -inf);
    const bool greedy = o.temperature <= 0 || o.topK == 1;
    at::Tensor tokens, sampling;
    if (greedy) {
        tokens = logits.argmax(-1);
    } else {
        at::Tensor scaled = o.temperature != 1.0 ? logits / o.temperature : logits;
        if (o.topK > 0 && o.topK < width) {
            const auto kth = std::get<0>(scaled.topk(o.topK, -1)).narrow(-1, o.topK - 1, 1);
            scaled = scaled.masked_fill(scaled < kth, -inf);
        }
        if (o.topP < 1.0) {
            const auto [sorted, order] = scaled.sort(-1, true);
            const auto cumulative = sorted.softmax(-1).cumsum(-1);
            auto remove = cumulative > o.topP;
            // Keep the token that crosses the bound (shift right by one), and always the first.
            remove = at::cat(
                {at::zeros_like(remove.narrow(-1, 0, 1)), remove.narrow(-1, 0, width - 1)}, -1);
            scaled = scaled.scatter(-1, order, sorted.masked_fill(remove, -inf));
        }
        sampling = scaled.softmax(-1);
        const auto cdf = sampling.cumsum(-1);
        const auto u = at::tensor(uniforms, at::TensorOptions().dtype(at::kDouble))
                           .to(cdf.device(), at::kFloat)
                           .view({cdf.size(0), cdf.size(1), 1});
        const auto target = u * cdf.narrow(-1, width - 1, 1);
        tokens = (cdf < target).sum(-1).clamp_max(width - 1);
    }
    at::Tensor distribution;
    if (o.rawConfidence)
        distribution = logits.softmax(-1);
    else if (!greedy)
        distribution = sampling;
    at::Tensor confidence, entropy;
    if (distribution.defined()) {
        confidence = distribution.gather(-1, tokens.unsqueeze(-1)).squeeze(-1);
        if (needEntropy)
            entropy = -at::xlogy(distribution, distribution).sum(-1);
    } else {
        // Greedy decoding samples from a one-hot distribution: confidence 1, entropy 0.
        confidence = at::ones(tokens.sizes(), logits.options());
        entropy = at::zeros(tokens.sizes(), logits.options());
    }
    return copyDraw(tokens, confidence, entropy, needEntropy);
}

// The block cells (0..B-1) to commit this step; `masked` lists the masked cells in order.
std::vector<std::int64_t> selectCells(const std::vector<std::int64_t>& masked, const float* conf,
                                      const float* entropy, std::int64_t scheduled,
                                      const SamplerOptions& o) {
    const std::int64_t k = std::min<std::int64_t>(std::max<std::int64_t>(scheduled, 1),
                                                  static_cast<std::int64_t>(masked.size()));
    std::vector<std::int64_t> byConfidence = masked;
    // Ties go to the left-most cell, so that greedy decoding (every confidence 1) is
    // deterministic.
    std::stable_sort(byConfidence.begin(), byConfidence.end(),
                     [&](std::int64_t a, std::int64_t b) { return conf[a] > conf[b]; });
    std::vector<std::int64_t> chosen;
    switch (o.strategy) {
    case RemaskStrategy::Sequential:
        chosen.assign(masked.begin(), masked.begin() + k);
        break;
    case RemaskStrategy::LowConfidenceStatic:
        chosen.assign(byConfidence.begin(), byConfidence.begin() + k);
        break;
    case RemaskStrategy::LowConfidenceDynamic: {
        for (auto cell : masked)
            if (conf[cell] > o.threshold)
                chosen.push_back(cell);
        if (static_cast<std::int64_t>(chosen.size()) < k)
            chosen.assign(byConfidence.begin(), byConfidence.begin() + k);
        break;
    }
    case RemaskStrategy::EntropyBounded: {
        std::vector<std::int64_t> byEntropy = masked;
        std::stable_sort(byEntropy.begin(), byEntropy.end(),
                         [&](std::int64_t a, std::int64_t b) { return entropy[a] < entropy[b]; });
        double sum = 0;
        for (auto cell : byEntropy) {
            sum += entropy[cell];
            if (!chosen.empty() && sum > o.ebThreshold)
                break;
            chosen.push_back(cell);
        }
        break;
    }
    }
    std::sort(chosen.begin(), chosen.end());
    return chosen;
}

void validate(const SamplerOptions& o, std::int64_t width) {
    if (o.blockLength <= 0 || o.blockLength > 4096)
        throw Error("the block length must be between 1 and 4096");
    if (o.steps <= 0 || o.steps > o.blockLength)
        throw Error("the denoising steps per block must be between 1 and the block length (" +
                    std::to_string(o.blockLength) + ")");
    if (o.maxTokens <= 0)
        throw Error("the token budget must be positive");
    for (auto budget : o.budgets)
        if (budget <= 0)
            throw Error("every prompt's token budget must be positive");
    if (o.maxActive < 0)
        throw Error("the number of sequences decoded at once must not be negative");
    if (o.topK < 0)
        throw Error("top-k must not be negative");
    if (!(o.topP > 0 && o.topP <= 1))
        throw Error("top-p must be in (0, 1]");
    if (o.maskId < 0 || o.maskId >= width)
        throw Error("the mask id " + std::to_string(o.maskId) + " is outside the model's " +
                    std::to_string(width) + " logits");
}

} // namespace

std::string toString(FinishReason reason) {
    switch (reason) {
    case FinishReason::Stop:
        return "stop";
    case FinishReason::Length:
        return "length";
    case FinishReason::Cancelled:
        break;
    }
    return "cancelled";
}

CellDraw drawCells(const at::Tensor& logits, const std::vector<double>& uniforms,
                   const SamplerOptions& options, bool entropy) {
    if (logits.dim() != 3 || logits.size(0) < 1 || logits.size(1) < 1)
        throw Error("drawCells: the logits must be [blocks, block length, vocabulary]");
    validate(options, logits.size(2));
    if (static_cast<std::int64_t>(uniforms.size()) != logits.size(0) * logits.size(1))
        throw Error("drawCells: one uniform per cell");
    for (double u : uniforms)
        if (!(u > 0 && u < 1))
            throw Error("drawCells: uniforms must be in (0, 1)");
    return sampleCells(logits, uniforms, options, entropy);
}

std::vector<std::int64_t> stepSchedule(std::int64_t blockLength, std::int64_t steps) {
    std::vector<std::int64_t> k(static_cast<size_t>(steps), blockLength / steps);
    for (std::int64_t s = 0; s < blockLength % steps; ++s)
        ++k[static_cast<size_t>(s)];
    return k;
}

std::vector<GenerationResult> generate(DiffusionNetwork& network,
                                       const std::vector<std::vector<std::int64_t>>& prompts,
                                       const SamplerOptions& options,
                                       const std::function<void(const DecodeStep&)>& onStep) {
    validate(options, network.logitsWidth());
    c10::InferenceMode inference;
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count();
    };
    const std::int64_t B = options.blockLength;
    const std::int64_t mask = options.maskId;
    const auto schedule = stepSchedule(B, options.steps);
    const bool needEntropy = options.strategy == RemaskStrategy::EntropyBounded;

    if (!options.budgets.empty() && options.budgets.size() != prompts.size())
        throw Error(
            "one token budget per prompt is needed: " + std::to_string(options.budgets.size()) +
            " for " + std::to_string(prompts.size()) + " prompts");
    std::vector<Sequence> seqs(prompts.size());
    std::int64_t capacity = 0;
    for (size_t i = 0; i < prompts.size(); ++i) {
        auto& s = seqs[i];
        s.index = static_cast<int>(i);
        s.promptLength = static_cast<std::int64_t>(prompts[i].size());
        s.budget = options.budgets.empty() ? options.maxTokens : options.budgets[i];
        const std::int64_t total = (s.promptLength + s.budget + B - 1) / B * B;
        s.canvas.assign(static_cast<size_t>(total), mask);
        std::copy(prompts[i].begin(), prompts[i].end(), s.canvas.begin());
        for (auto id : prompts[i])
            if (id < 0 || id >= network.logitsWidth())
                throw Error("prompt " + std::to_string(i) + " holds the token id " +
                            std::to_string(id) + ", outside the model's vocabulary");
        s.blockStart = s.promptLength / B * B;
        s.checked = s.promptLength;
        s.rng.seed(splitmix64(options.seed ^
                              splitmix64(options.firstSequence + static_cast<std::uint64_t>(i))));
        capacity = std::max(capacity, total);
    }
    std::vector<GenerationResult> results(prompts.size());
    if (seqs.empty())
        return results;

    auto emit = [&](const DecodeStep& step) {
        if (onStep)
            onStep(step);
    };
    auto event = [&](const Sequence& s, DecodeStep::Kind kind) {
        DecodeStep step;
        step.kind = kind;
        step.sequence = s.index;
        step.block = static_cast<int>(s.block);
        step.step = static_cast<int>(s.step);
        step.globalStep = static_cast<int>(s.globalStep);
        step.blockStart = s.blockStart - s.promptLength;
        step.blockLength = static_cast<int>(B);
        step.forwardPasses = s.result.forwardPasses;
        step.elapsedMs = elapsed();
        return step;
    };
    auto finish = [&](Sequence& s, FinishReason reason, std::int64_t answerLength) {
        s.done = true;
        s.result.reason = reason;
        s.result.tokens.assign(s.canvas.begin() + s.promptLength,
                               s.canvas.begin() + s.promptLength + answerLength);
        const std::int64_t end = s.promptLength + answerLength;
        const std::int64_t blockEnd = std::min<std::int64_t>(
            (end + B - 1) / B * B, static_cast<std::int64_t>(s.canvas.size()));
        for (std::int64_t p = end; p < blockEnd; ++p) {
            s.result.tailTokens.push_back(s.canvas[static_cast<size_t>(p)]);
            const auto at = static_cast<size_t>(p - s.promptLength);
            s.result.tailCommitStep.push_back(s.canvas[static_cast<size_t>(p)] != mask &&
                                                      at < s.result.commitStep.size()
                                                  ? s.result.commitStep[at]
                                                  : -1);
        }
        s.result.commitStep.resize(static_cast<size_t>(answerLength));
        s.result.milliseconds = elapsed();
        emit(event(s, DecodeStep::Kind::Finished));
    };

    const auto pool = static_cast<std::int64_t>(
        options.maxActive > 0
            ? std::min<std::size_t>(static_cast<std::size_t>(options.maxActive), seqs.size())
            : seqs.size());
    network.allocate(pool, capacity);
    // rows[r] is the sequence in cache row r; the active sequences occupy the first rows, and the
    // waiting ones join in the order given.
    std::vector<int> rows;
    std::size_t nextWaiting = 0;
    bool reusingRows = false;
    const auto longOptions = at::TensorOptions().dtype(at::kLong);
    auto cancelled = [&] { return options.cancel && options.cancel->load(); };

    // Fills the free rows with waiting prompts, in order, while the cache has room for each whole
    // sequence (prompt and answer budget): their full blocks are prefilled into those rows.
    auto admit = [&] {
        std::vector<int> joining;
        while (static_cast<std::int64_t>(rows.size() + joining.size()) < pool &&
               nextWaiting < seqs.size()) {
            const auto need = static_cast<std::int64_t>(seqs[nextWaiting].canvas.size());
            if (!network.admits(need)) {
                if (rows.empty() && joining.empty())
                    throw Error("a sequence of " + std::to_string(need) +
                                " positions does not fit the key/value cache even alone");
                break;
            }
            network.reserve(static_cast<std::int64_t>(rows.size() + joining.size()), need);
            joining.push_back(static_cast<int>(nextWaiting++));
        }
        if (joining.empty())
            return;
        std::int64_t longest = 0;
        for (int i : joining)
            longest = std::max(longest, seqs[static_cast<size_t>(i)].blockStart);
        const auto firstRow = static_cast<std::int64_t>(rows.size());
        // A row that held a finished sequence must be emptied even for a prompt of no full block.
        if (longest > 0 || reusingRows) {
            auto tokens =
                at::zeros({static_cast<std::int64_t>(joining.size()), longest}, longOptions);
            auto* data = tokens.data_ptr<std::int64_t>();
            std::vector<std::int64_t> lengths;
            for (size_t j = 0; j < joining.size(); ++j) {
                const auto& s = seqs[static_cast<size_t>(joining[j])];
                std::copy(s.canvas.begin(), s.canvas.begin() + s.blockStart,
                          data + static_cast<std::int64_t>(j) * longest);
                lengths.push_back(s.blockStart);
            }
            network.prefill(tokens, lengths, B, firstRow);
        }
        for (int i : joining) {
            auto& s = seqs[static_cast<size_t>(i)];
            rows.push_back(i);
            if (s.blockStart == 0)
                continue;
            ++s.result.forwardPasses;
            auto step = event(s, DecodeStep::Kind::Prefill);
            step.block = 0;
            step.blockStart = -s.promptLength;
            step.blockLength = static_cast<int>(s.blockStart);
            emit(step);
        }
        reusingRows = true;
    };
    auto cancelWaiting = [&] {
        for (; nextWaiting < seqs.size(); ++nextWaiting)
            finish(seqs[nextWaiting], FinishReason::Cancelled, 0);
    };

    if (cancelled())
        cancelWaiting();
    else
        admit();
    while (!rows.empty()) {
        const auto n = static_cast<std::int64_t>(rows.size());
        if (cancelled()) {
            cancelWaiting();
            for (int r : rows) {
                auto& s = seqs[static_cast<size_t>(r)];
                std::int64_t frontier = s.blockStart;
                while (frontier < static_cast<std::int64_t>(s.canvas.size()) &&
                       s.canvas[static_cast<size_t>(frontier)] != mask)
                    ++frontier;
                finish(s, FinishReason::Cancelled,
                       std::min(std::max<std::int64_t>(frontier - s.promptLength, 0), s.budget));
            }
            break;
        }
        auto tokens = at::empty({n, B}, longOptions);
        auto* tokenData = tokens.data_ptr<std::int64_t>();
        std::vector<std::uint8_t> commit(static_cast<size_t>(n), 0);
        std::vector<std::int64_t> denoiseRows;
        for (std::int64_t r = 0; r < n; ++r) {
            const auto& s = seqs[static_cast<size_t>(rows[static_cast<size_t>(r)])];
            bool anyMask = false;
            for (std::int64_t c = 0; c < B; ++c) {
                const auto id = s.canvas[static_cast<size_t>(s.blockStart + c)];
                tokenData[r * B + c] = id;
                anyMask = anyMask || id == mask;
            }
            if (anyMask)
                denoiseRows.push_back(r);
            else
                commit[static_cast<size_t>(r)] = 1;
        }
        const auto logits = network.blockPass(tokens, commit, !denoiseRows.empty());
        for (int r : rows)
            ++seqs[static_cast<size_t>(r)].result.forwardPasses;

        CellDraw draw;
        if (!denoiseRows.empty()) {
            std::vector<double> uniforms;
            for (auto r : denoiseRows) {
                auto& s = seqs[static_cast<size_t>(rows[static_cast<size_t>(r)])];
                for (std::int64_t c = 0; c < B; ++c)
                    uniforms.push_back(openUniform(s.rng));
            }
            const bool all = static_cast<std::int64_t>(denoiseRows.size()) == n;
            const auto selected =
                all ? logits
                    : logits.index_select(0,
                                          at::tensor(denoiseRows, longOptions).to(logits.device()));
            draw = sampleCells(selected, uniforms, options, needEntropy);
        }

        std::vector<std::int64_t> finished;
        size_t drawRow = 0;
        for (std::int64_t r = 0; r < n; ++r) {
            auto& s = seqs[static_cast<size_t>(rows[static_cast<size_t>(r)])];
            if (commit[static_cast<size_t>(r)]) {
                emit(event(s, DecodeStep::Kind::Commit));
                s.blockStart += B;
                s.step = 0;
                ++s.block;
                if (s.blockStart >= static_cast<std::int64_t>(s.canvas.size())) {
                    finish(s, FinishReason::Length, s.budget);
                    finished.push_back(r);
                }
                continue;
            }
            const size_t base = drawRow++ * static_cast<size_t>(B);
            std::vector<std::int64_t> masked;
            for (std::int64_t c = 0; c < B; ++c)
                if (s.canvas[static_cast<size_t>(s.blockStart + c)] == mask)
                    masked.push_back(c);
            const std::int64_t scheduled =
                s.step < options.steps ? schedule[static_cast<size_t>(s.step)] : 1;
            const auto chosen =
                selectCells(masked, draw.confidence.data() + base,
                            needEntropy ? draw.entropy.data() + base : nullptr, scheduled, options);
            auto step = event(s, DecodeStep::Kind::Denoise);
            for (auto c : chosen) {
                const std::int64_t position = s.blockStart + c;
                const std::int64_t token = draw.tokens[base + static_cast<size_t>(c)];
                s.canvas[static_cast<size_t>(position)] = token;
                const std::int64_t answerPos = position - s.promptLength;
                if (static_cast<std::int64_t>(s.result.commitStep.size()) <= answerPos)
                    s.result.commitStep.resize(static_cast<size_t>(answerPos) + 1, -1);
                s.result.commitStep[static_cast<size_t>(answerPos)] = s.globalStep;
                step.positions.push_back(answerPos);
                step.tokens.push_back(token);
                step.confidences.push_back(draw.confidence[base + static_cast<size_t>(c)]);
            }
            emit(step);
            ++s.step;
            ++s.globalStep;
            ++s.result.denoisingSteps;
            if (s.step == 1)
                ++s.result.blocks;

            // The answer is final up to the first masked cell.
            std::int64_t frontier = s.blockStart;
            while (frontier < s.blockStart + B && s.canvas[static_cast<size_t>(frontier)] != mask)
                ++frontier;
            bool stopped = false;
            for (; s.checked < frontier; ++s.checked) {
                const auto id = s.canvas[static_cast<size_t>(s.checked)];
                if (std::find(options.stopIds.begin(), options.stopIds.end(), id) !=
                    options.stopIds.end()) {
                    const std::int64_t answerLength = s.checked - s.promptLength + 1;
                    if (answerLength <= s.budget) {
                        finish(s, FinishReason::Stop, answerLength);
                        stopped = true;
                    }
                    break;
                }
            }
            if (stopped) {
                finished.push_back(r);
            } else if (frontier - s.promptLength >= s.budget) {
                finish(s, FinishReason::Length, s.budget);
                finished.push_back(r);
            }
        }
        // Finished rows leave the batch; the last active row takes each one's place.
        for (auto it = finished.rbegin(); it != finished.rend(); ++it) {
            const std::int64_t r = *it;
            const std::int64_t last = static_cast<std::int64_t>(rows.size()) - 1;
            if (r != last) {
                network.moveRow(last, r);
                rows[static_cast<size_t>(r)] = rows[static_cast<size_t>(last)];
            }
            network.release(last);
            rows.pop_back();
        }
        if (!cancelled())
            admit();
    }
    // Prompts still waiting when a cancellation emptied the pool.
    cancelWaiting();
    for (size_t i = 0; i < seqs.size(); ++i)
        results[i] = std::move(seqs[i].result);
    return results;
}

} // namespace dice
