// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>
#include <torch/version.h>

#include "core/train/sft_trainer.h"

#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/model/safetensors_torch.h"
#include "core/tokenizer/tokenizer.h"
#include "core/train/bd3_batch.h"
#include "core/train/sft_data.h"
#include "core/train/train_common.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>

namespace dice {

namespace fs = std::filesystem;

double scheduledLearningRate(std::int64_t step, std::int64_t steps, std::int64_t warmup,
                             double peak, double floor) {
    if (warmup > 0 && step < warmup)
        return peak * static_cast<double>(step + 1) / static_cast<double>(warmup);
    const double span = static_cast<double>(std::max<std::int64_t>(1, steps - warmup));
    const double t = std::clamp(static_cast<double>(step - warmup) / span, 0.0, 1.0);
    return floor + 0.5 * (peak - floor) * (1.0 + std::cos(3.14159265358979323846 * t));
}

namespace {

// The order of the sequences: each epoch a seeded permutation, cut into chunks whose sequences
// are sorted by length (so a batch wastes little on padding), cut into batches, and the batches
// shuffled. A step's batch depends only on the seed and the step, so a resumed run sees the same
// data as an uninterrupted one.
class BatchPlan {
public:
    BatchPlan(const std::vector<SftSequence>& data, std::int64_t batchSize, std::uint64_t seed)
        : m_data(data)
        , m_batch(batchSize)
        , m_seed(seed) {
        m_perEpoch = std::max<std::int64_t>(1, static_cast<std::int64_t>(data.size()) / batchSize);
    }

    std::vector<const SftSequence*> batch(std::int64_t step) {
        const std::int64_t epoch = step / m_perEpoch;
        if (epoch != m_epoch)
            plan(epoch);
        const auto& indices = m_batches[static_cast<std::size_t>(step % m_perEpoch)];
        std::vector<const SftSequence*> out;
        for (auto i : indices)
            out.push_back(&m_data[i]);
        return out;
    }

private:
    void plan(std::int64_t epoch) {
        m_epoch = epoch;
        std::mt19937_64 rng(m_seed * 1000003ULL + static_cast<std::uint64_t>(epoch));
        std::vector<std::size_t> order(m_data.size());
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        const std::size_t chunk = static_cast<std::size_t>(m_batch) * 16;
        for (std::size_t at = 0; at < order.size(); at += chunk) {
            const auto end =
                order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), at + chunk));
            std::sort(order.begin() + static_cast<std::ptrdiff_t>(at), end,
                      [&](std::size_t a, std::size_t b) {
                          return m_data[a].ids.size() < m_data[b].ids.size();
                      });
        }
        m_batches.clear();
        for (std::int64_t b = 0; b < m_perEpoch; ++b) {
            std::vector<std::size_t> indices;
            for (std::int64_t k = 0; k < m_batch; ++k) {
                const auto at = static_cast<std::size_t>(b * m_batch + k);
                if (at < order.size())
                    indices.push_back(order[at]);
            }
            m_batches.push_back(indices);
        }
        std::shuffle(m_batches.begin(), m_batches.end(), rng);
    }

    const std::vector<SftSequence>& m_data;
    std::int64_t m_batch;
    std::uint64_t m_seed;
    std::int64_t m_perEpoch = 1;
    std::int64_t m_epoch = -1;
    std::vector<std::vector<std::size_t>> m_batches;
};

double evalLoss(const Qwen3Model& model, const std::vector<SftSequence>& data,
                const SftOptions& options, std::int64_t maskId, std::int64_t padId, bool autocast) {
    if (data.empty())
        return -1;
    at::NoGradGuard noGrad;
    std::mt19937_64 rng(options.seed * 7919ULL + 17);
    const torch::Device device = options.placement.device == ModelDevice::Cuda
                                     ? torch::Device(torch::kCUDA, options.placement.deviceIndex)
                                     : torch::Device(torch::kCPU);
    double total = 0;
    int batches = 0;
    const auto count =
        std::min<std::size_t>(data.size(), static_cast<std::size_t>(options.evalSequences));
    for (std::size_t at = 0; at < count; at += static_cast<std::size_t>(options.batchSize)) {
        std::vector<const SftSequence*> batch;
        for (std::size_t k = at;
             k < std::min(count, at + static_cast<std::size_t>(options.batchSize)); ++k)
            batch.push_back(&data[k]);
        const Bd3Batch b = makeBd3Batch(batch, options.blockLength, maskId, padId, rng);
        AutocastScope scope(autocast);
        const auto logits =
            model.forward(b.tokens.to(device), b.positions.to(device), b.mask.to(device));
        total += bd3Loss(logits, b).item<double>();
        ++batches;
    }
    return total / std::max(1, batches);
}

} // namespace

SftReport trainSft(const SftOptions& options) {
    auto log = [&](const std::string& line) {
        if (options.log)
            options.log(line);
    };
    if (options.threads > 0)
        at::set_num_threads(options.threads);
    if (options.steps < 1 || options.batchSize < 1 || options.blockLength < 1)
        throw Error("steps, batch size and block length must be positive");
    const fs::path output(options.output);
    std::error_code ec;
    fs::create_directories(output / "checkpoints", ec);
    if (ec)
        throw FileError(output.string(), "cannot create the run folder: " + ec.message());

    const Tokenizer tokenizer = Tokenizer::load(options.tokenizer);
    SftDataOptions trainData;
    trainData.maxLength = options.maxLength;
    SftData train = loadSftData(options.corpus, tokenizer, trainData);
    SftDataOptions heldOut = trainData;
    heldOut.splits = {"heldout_variant"};
    SftData eval = loadSftData(options.corpus, tokenizer, heldOut);
    if (train.sequences.empty())
        throw FileError(options.corpus, "has no training sequence within the length limit");
    log("data: " + std::to_string(train.sequences.size()) + " training sequences (" +
        std::to_string(train.tooLong) + " too long), " + std::to_string(eval.sequences.size()) +
        " held-out sequences, " + std::to_string(train.answerTokens) + " answer tokens");

    ModelPlacement placement = options.placement;
    placement.dtype = ModelDType::Float32;
    const auto existing = options.resume ? listCheckpoints(output) : std::vector<Checkpoint>{};
    std::unique_ptr<Qwen3Model> model;
    std::int64_t start = 0;
    LoadOptions load;
    load.placement = placement;
    if (!existing.empty()) {
        model = Qwen3Model::load(existing.back().folder.string(), load);
        start = existing.back().step;
        log("resuming from " + existing.back().folder.filename().string());
    } else if (!options.initFrom.empty()) {
        model = Qwen3Model::load(options.initFrom, load);
    } else {
        model = Qwen3Model::random(options.config, placement, options.seed);
    }
    const ModelConfig& config = model->config();
    if (!config.maskTokenId)
        throw Error("the model configuration has no mask_token_id");
    const std::int64_t maskId = *config.maskTokenId;
    const std::int64_t padId =
        config.padTokenId ? *config.padTokenId : tokenizer.tokenId("<|endoftext|>").value_or(0);
    if (tokenizer.vocabSize() > config.vocabSize)
        throw Error("the tokenizer's " + std::to_string(tokenizer.vocabSize()) +
                    " tokens do not fit the model's vocabulary of " +
                    std::to_string(config.vocabSize));

    std::vector<at::Tensor> decay, plain;
    for (auto& p : model->parameters()) {
        p.requires_grad_(true);
        (p.dim() >= 2 ? decay : plain).push_back(p);
    }
    const auto adam = torch::optim::AdamWOptions(options.learningRate)
                          .betas({options.beta1, options.beta2})
                          .weight_decay(options.weightDecay);
    auto noDecay = adam;
    noDecay.weight_decay(0.0);
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(decay, std::make_unique<torch::optim::AdamWOptions>(adam));
    groups.emplace_back(plain, std::make_unique<torch::optim::AdamWOptions>(noDecay));
    torch::optim::AdamW optimizer(std::move(groups), adam);
    if (!existing.empty())
        torch::load(optimizer, (existing.back().folder / "optimizer.pt").string());

    const bool autocast = options.mixedPrecision && placement.device == ModelDevice::Cuda;
    const torch::Device device = placement.device == ModelDevice::Cuda
                                     ? torch::Device(torch::kCUDA, placement.deviceIndex)
                                     : torch::Device(torch::kCPU);
    BatchPlan plan(train.sequences, options.batchSize, options.seed);
    if (dropLinesAfterStep(output / "metrics.jsonl", start) > 0)
        log("metrics.jsonl: the steps after " + std::to_string(start) +
            " that the stopped run logged are left out");
    std::ofstream metrics(output / "metrics.jsonl", std::ios::app);
    SftReport report;
    report.firstStep = start;
    report.trainSequences = train.sequences.size();
    report.evalSequences = eval.sequences.size();
    const auto begin = std::chrono::steady_clock::now();
    double window = 0;
    int windowCount = 0;
    double processed = 0;

    auto saveCheckpoint = [&](std::int64_t step) {
        const fs::path folder = checkpointFolder(output, step);
        saveModelFolder(*model, folder.string(), options.tokenizer, ModelDType::Float32);
        torch::save(optimizer, (folder / "optimizer.pt").string());
        nlohmann::json state{{"step", step}, {"seed", options.seed}, {"steps", options.steps}};
        writeFileAtomically((folder / "trainer_state.json").string(), state.dump(2) + "\n");
        pruneCheckpoints(output, 2);
    };

    std::int64_t step = start;
    for (; step < options.steps; ++step) {
        if (options.cancel && options.cancel->load()) {
            report.cancelled = true;
            break;
        }
        const double lr = scheduledLearningRate(step, options.steps, options.warmupSteps,
                                                options.learningRate, options.minLearningRate);
        for (auto& group : optimizer.param_groups())
            static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
        std::mt19937_64 rng(options.seed * 0x9E3779B97F4A7C15ULL +
                            static_cast<std::uint64_t>(step));
        const Bd3Batch batch =
            makeBd3Batch(plan.batch(step), options.blockLength, maskId, padId, rng);
        optimizer.zero_grad();
        at::Tensor loss;
        {
            AutocastScope scope(autocast);
            const auto logits = model->forward(batch.tokens.to(device), batch.positions.to(device),
                                               batch.mask.to(device));
            loss = bd3Loss(logits, batch);
        }
        loss.backward();
        const double norm =
            torch::nn::utils::clip_grad_norm_(model->parameters(), options.clipNorm);
        optimizer.step();
        const double value = loss.item<double>();
        if (!std::isfinite(value))
            throw Error("the loss became " + std::to_string(value) + " at step " +
                        std::to_string(step) + "; lower the learning rate");
        processed += static_cast<double>(batch.tokens.numel());
        window += value;
        ++windowCount;
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        nlohmann::json line{
            {"step", step + 1},      {"loss", value},      {"lr", lr},
            {"grad_norm", norm},     {"seconds", seconds}, {"masked", batch.maskedTokens},
            {"length", batch.length}};
        const bool evaluate = options.evalEvery > 0 &&
                              ((step + 1) % options.evalEvery == 0 || step + 1 == options.steps);
        if (evaluate) {
            report.evalLoss = evalLoss(*model, eval.sequences, options, maskId, padId, autocast);
            line["eval_loss"] = report.evalLoss;
        }
        metrics << line.dump() << "\n" << std::flush;
        if ((step + 1) % 10 == 0 || evaluate || step + 1 == options.steps) {
            const double mean = window / std::max(1, windowCount);
            if (report.steps == 0 && report.firstLoss == 0)
                report.firstLoss = mean;
            report.lastLoss = mean;
            std::string message = "step " + std::to_string(step + 1) + "/" +
                                  std::to_string(options.steps) + " loss " + std::to_string(mean) +
                                  " lr " + std::to_string(lr);
            if (evaluate)
                message += " held-out " + std::to_string(report.evalLoss);
            log(message);
            window = 0;
            windowCount = 0;
        }
        if (options.saveEvery > 0 && (step + 1) % options.saveEvery == 0 &&
            step + 1 < options.steps)
            saveCheckpoint(step + 1);
    }
    report.steps = step;
    report.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    report.tokensPerSecond = report.seconds > 0 ? processed / report.seconds : 0;
    if (!report.cancelled) {
        if (step > start)
            saveCheckpoint(step);
        report.modelFolder = (output / "model").string();
        saveModelFolder(*model, report.modelFolder, options.tokenizer, options.saveDType);
    } else if (step > start) {
        saveCheckpoint(step);
    }
    return report;
}

} // namespace dice
