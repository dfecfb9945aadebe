// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/distributed/sharded_adamw.h"

#include "core/common/error.h"
#include "core/distributed/communicator.h"
#include "core/model/safetensors.h"
#include "core/model/safetensors_torch.h"

#include <algorithm>
#include <cmath>

namespace dice {

namespace {

// Parameters are gathered in pieces of this many elements per rank, so that no rank ever holds a
// second copy of all the weights.
constexpr std::int64_t kGatherPiece = std::int64_t(1) << 24;

} // namespace

ShardedAdamW::ShardedAdamW(std::vector<at::Tensor> parameters, const AdamWSettings& settings,
                           Communicator* communicator)
    : m_parameters(std::move(parameters))
    , m_settings(settings)
    , m_communicator(communicator) {
    if (m_parameters.empty())
        throw Error("the optimiser has no parameters");
    if (m_communicator) {
        m_rank = m_communicator->rank();
        m_ranks = m_communicator->size();
    }
    for (const auto& p : m_parameters) {
        m_offsets.push_back(m_total);
        m_total += p.numel();
    }
    m_shardSize = (m_total + m_ranks - 1) / m_ranks;
    m_shardStart = std::min(m_total, m_rank * m_shardSize);
    m_shardEnd = std::min(m_total, m_shardStart + m_shardSize);
    const auto options = m_parameters.front().options().requires_grad(false);
    m_expAvg = at::zeros({shardElements()}, options);
    m_expAvgSq = at::zeros({shardElements()}, options);
}

template <class F>
void ShardedAdamW::forEachPiece(std::int64_t start, std::int64_t length, F&& f) const {
    const std::int64_t end = std::min(m_total, start + length);
    auto first = std::upper_bound(m_offsets.begin(), m_offsets.end(), start);
    std::size_t k = static_cast<std::size_t>(std::distance(m_offsets.begin(), first)) - 1;
    for (; k < m_parameters.size() && m_offsets[k] < end; ++k) {
        const std::int64_t from = std::max(start, m_offsets[k]);
        const std::int64_t to = std::min(end, m_offsets[k] + m_parameters[k].numel());
        if (to > from)
            f(k, from - m_offsets[k], from - start, to - from);
    }
}

void ShardedAdamW::step() {
    at::NoGradGuard noGrad;
    ++m_steps;
    const double lr = m_settings.learningRate;
    const double beta1 = m_settings.beta1;
    const double beta2 = m_settings.beta2;
    // The same scalars, in the same order of operations, as torch::optim::AdamW.
    const double biasCorrection1 = 1 - std::pow(beta1, static_cast<double>(m_steps));
    const double biasCorrection2 = 1 - std::pow(beta2, static_cast<double>(m_steps));
    const double stepSize = lr / biasCorrection1;
    forEachPiece(
        m_shardStart, shardElements(),
        [&](std::size_t k, std::int64_t inParameter, std::int64_t inShard, std::int64_t count) {
            at::Tensor p = m_parameters[k].view({-1}).narrow(0, inParameter, count);
            const at::Tensor fullGradient = m_parameters[k].grad();
            const at::Tensor grad = fullGradient.defined()
                                        ? fullGradient.reshape({-1}).narrow(0, inParameter, count)
                                        : at::zeros({count}, p.options());
            at::Tensor expAvg = m_expAvg.narrow(0, inShard, count);
            at::Tensor expAvgSq = m_expAvgSq.narrow(0, inShard, count);
            if (m_settings.weightDecay != 0)
                p.mul_(1 - lr * m_settings.weightDecay);
            expAvg.mul_(beta1).add_(grad, 1 - beta1);
            expAvgSq.mul_(beta2).addcmul_(grad, grad, 1 - beta2);
            const at::Tensor denom =
                (expAvgSq.sqrt() / std::sqrt(biasCorrection2)).add_(m_settings.epsilon);
            p.addcdiv_(expAvg, denom, -stepSize);
        });
    if (m_ranks > 1)
        gatherParameters();
}

void ShardedAdamW::gatherParameters() {
    const std::int64_t piece = std::min(kGatherPiece, m_shardSize);
    const auto options = m_parameters.front().options().requires_grad(false);
    at::Tensor mine = at::zeros({piece}, options);
    at::Tensor all = at::zeros({piece * m_ranks}, options);
    for (std::int64_t at = 0; at < m_shardSize; at += piece) {
        const std::int64_t count = std::min(piece, m_shardSize - at);
        mine.zero_();
        forEachPiece(
            m_rank * m_shardSize + at, count,
            [&](std::size_t k, std::int64_t inParameter, std::int64_t inPiece, std::int64_t n) {
                mine.narrow(0, inPiece, n)
                    .copy_(m_parameters[k].view({-1}).narrow(0, inParameter, n));
            });
        m_communicator->allGather(mine, all);
        for (int r = 0; r < m_ranks; ++r) {
            if (r == m_rank)
                continue;
            forEachPiece(
                r * m_shardSize + at, count,
                [&](std::size_t k, std::int64_t inParameter, std::int64_t inPiece, std::int64_t n) {
                    m_parameters[k]
                        .view({-1})
                        .narrow(0, inParameter, n)
                        .copy_(all.narrow(0, r * piece + inPiece, n));
                });
        }
    }
}

void ShardedAdamW::zeroGrad() {
    for (auto& p : m_parameters)
        if (p.grad().defined()) {
            p.mutable_grad().detach_();
            p.mutable_grad().zero_();
        }
}

void ShardedAdamW::save(const std::string& path) {
    // Rank 0 gathers both moments whole, on the CPU, a piece at a time.
    at::Tensor expAvg, expAvgSq;
    if (m_rank == 0) {
        expAvg = at::zeros({m_total}, at::kFloat);
        expAvgSq = at::zeros({m_total}, at::kFloat);
    }
    const std::int64_t piece = std::min(kGatherPiece, std::max<std::int64_t>(1, m_shardSize));
    const auto options = m_expAvg.options();
    at::Tensor mine = at::zeros({piece}, options);
    at::Tensor all = at::zeros({piece * m_ranks}, options);
    for (int which = 0; which < 2; ++which) {
        const at::Tensor& moment = which == 0 ? m_expAvg : m_expAvgSq;
        at::Tensor& whole = which == 0 ? expAvg : expAvgSq;
        for (std::int64_t at = 0; at < m_shardSize; at += piece) {
            const std::int64_t count = std::min(piece, m_shardSize - at);
            mine.zero_();
            const std::int64_t have =
                std::max<std::int64_t>(0, std::min(count, shardElements() - at));
            if (have > 0)
                mine.narrow(0, 0, have).copy_(moment.narrow(0, at, have));
            if (m_ranks > 1)
                m_communicator->allGather(mine, all);
            else
                all.copy_(mine);
            if (m_rank != 0)
                continue;
            const at::Tensor gathered = all.to(at::kCPU, at::kFloat);
            for (int r = 0; r < m_ranks; ++r) {
                const std::int64_t start = r * m_shardSize + at;
                const std::int64_t n = std::max<std::int64_t>(0, std::min(count, m_total - start));
                if (n > 0)
                    whole.narrow(0, start, n).copy_(gathered.narrow(0, r * piece, n));
            }
        }
    }
    if (m_rank != 0)
        return;
    std::vector<std::pair<std::string, at::Tensor>> tensors;
    for (std::size_t k = 0; k < m_parameters.size(); ++k) {
        const auto shape = m_parameters[k].sizes();
        const std::int64_t n = m_parameters[k].numel();
        tensors.emplace_back("exp_avg." + std::to_string(k),
                             expAvg.narrow(0, m_offsets[k], n).view(shape));
        tensors.emplace_back("exp_avg_sq." + std::to_string(k),
                             expAvgSq.narrow(0, m_offsets[k], n).view(shape));
    }
    saveSafetensors(path, tensors,
                    {{"format", "dice-adamw/1"},
                     {"steps", std::to_string(m_steps)},
                     {"parameters", std::to_string(m_parameters.size())}});
}

void ShardedAdamW::load(const std::string& path) {
    const auto file = SafetensorsFile::open(path);
    const auto& metadata = file->header().metadata;
    const auto format = metadata.find("format");
    if (format == metadata.end() || format->second != "dice-adamw/1")
        throw FileError(path, "is not an optimiser state of this program (dice-adamw/1)");
    const auto steps = metadata.find("steps");
    std::int64_t stepCount = -1;
    try {
        if (steps != metadata.end())
            stepCount = std::stoll(steps->second);
    } catch (const std::exception&) {
        stepCount = -1;
    }
    if (stepCount < 0)
        throw FileError(path, "has no valid step count");
    at::NoGradGuard noGrad;
    for (int which = 0; which < 2; ++which) {
        at::Tensor& moment = which == 0 ? m_expAvg : m_expAvgSq;
        const std::string prefix = which == 0 ? "exp_avg." : "exp_avg_sq.";
        forEachPiece(
            m_shardStart, shardElements(),
            [&](std::size_t k, std::int64_t inParameter, std::int64_t inShard, std::int64_t count) {
                const std::string name = prefix + std::to_string(k);
                const SafetensorsEntry* entry = file->header().find(name);
                if (!entry)
                    throw FileError(path, "has no " + name + ": it was saved for another model");
                const at::Tensor saved = safetensorsTensor(file, *entry);
                if (saved.sizes() != m_parameters[k].sizes())
                    throw FileError(path, name + " has another shape than its parameter: it was "
                                                 "saved for another model");
                moment.narrow(0, inShard, count)
                    .copy_(saved.reshape({-1}).narrow(0, inParameter, count));
            });
    }
    m_steps = stepCount;
}

} // namespace dice
