// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/train/bd3_batch.h"

#include "core/common/error.h"

#include <algorithm>

namespace dice {

at::Tensor bd3AttentionMask(std::int64_t n, std::int64_t L, std::int64_t blockLength) {
    if (n < 1 || n > L || blockLength < 1)
        throw Error("bd3AttentionMask: bad lengths");
    // Block index of every cell of one half; padding gets its own block past the end.
    const auto idx = torch::arange(L, torch::kInt64);
    const auto block = torch::div(idx, blockLength, "floor");
    const auto real = idx < n;
    const auto qb = block.unsqueeze(1);
    const auto kb = block.unsqueeze(0);
    const auto bothReal = real.unsqueeze(1) & real.unsqueeze(0);
    const auto noisyNoisy = (qb == kb) & bothReal;
    const auto noisyClean = (kb < qb) & bothReal;
    const auto cleanClean = (kb <= qb) & bothReal;
    const auto cleanNoisy = torch::zeros({L, L}, torch::kBool);
    auto top = torch::cat({noisyNoisy, noisyClean}, 1);
    auto bottom = torch::cat({cleanNoisy, cleanClean}, 1);
    auto mask = torch::cat({top, bottom}, 0);
    // Padding rows attend to themselves so that no softmax row is empty.
    const auto pad = torch::cat({~real, ~real});
    mask = mask | torch::diag(pad);
    return mask;
}

Bd3Batch makeBd3Batch(const std::vector<const SftSequence*>& sequences, std::int64_t blockLength,
                      std::int64_t maskId, std::int64_t padId, std::mt19937_64& rng) {
    if (sequences.empty())
        throw Error("an empty batch");
    Bd3Batch batch;
    std::int64_t L = 0;
    for (const auto* s : sequences)
        L = std::max<std::int64_t>(L, static_cast<std::int64_t>(s->ids.size()));
    batch.length = L;
    const auto B = static_cast<std::int64_t>(sequences.size());
    auto tokens = torch::full({B, 2 * L}, padId, torch::kInt64);
    auto targets = torch::full({B, 2 * L}, padId, torch::kInt64);
    auto weights = torch::zeros({B, 2 * L}, torch::kFloat32);
    auto positions = torch::zeros({B, 2 * L}, torch::kInt64);
    auto mask = torch::zeros({B, 1, 2 * L, 2 * L}, torch::kBool);
    auto tok = tokens.accessor<std::int64_t, 2>();
    auto tgt = targets.accessor<std::int64_t, 2>();
    auto wts = weights.accessor<float, 2>();
    auto pos = positions.accessor<std::int64_t, 2>();
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    for (std::int64_t b = 0; b < B; ++b) {
        const SftSequence& s = *sequences[static_cast<std::size_t>(b)];
        const auto n = static_cast<std::int64_t>(s.ids.size());
        const std::int64_t answer = n - s.promptLength;
        if (answer < 1)
            throw Error("sequence " + s.id + " has no answer to learn");
        const double p = (1.0 - kBd3MinMaskRate) * uniform(rng) + kBd3MinMaskRate;
        std::vector<bool> masked(static_cast<std::size_t>(n), false);
        std::int64_t count = 0;
        for (std::int64_t i = s.promptLength; i < n; ++i) {
            masked[static_cast<std::size_t>(i)] = uniform(rng) < p;
            count += masked[static_cast<std::size_t>(i)];
        }
        if (count == 0) {
            std::uniform_int_distribution<std::int64_t> which(s.promptLength, n - 1);
            masked[static_cast<std::size_t>(which(rng))] = true;
            count = 1;
        }
        const float weight = static_cast<float>(1.0 / (p * static_cast<double>(answer)));
        for (std::int64_t i = 0; i < L; ++i) {
            pos[b][i] = i;
            pos[b][L + i] = i;
        }
        for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t id = s.ids[static_cast<std::size_t>(i)];
            const bool m = masked[static_cast<std::size_t>(i)];
            tok[b][i] = m ? maskId : id;
            tok[b][L + i] = id;
            tgt[b][i] = id;
            tgt[b][L + i] = id;
            if (m)
                wts[b][i] = weight;
        }
        mask[b][0] = bd3AttentionMask(n, L, blockLength);
        batch.maskedTokens += count;
        batch.answerTokens += answer;
    }
    batch.tokens = tokens;
    batch.targets = targets;
    batch.weights = weights;
    batch.positions = positions;
    batch.mask = mask;
    return batch;
}

at::Tensor bd3Loss(const at::Tensor& logits, const Bd3Batch& batch) {
    const auto V = logits.size(-1);
    const auto device = logits.device();
    // Only masked noisy cells are scored: select them before the softmax over the vocabulary.
    const auto weights = batch.weights.to(device).reshape({-1});
    const auto scored = weights.nonzero().squeeze(1);
    const auto rows = logits.reshape({-1, V}).index_select(0, scored).to(torch::kFloat32);
    const auto targets = batch.targets.to(device).reshape({-1}).index_select(0, scored);
    const auto nll = -torch::log_softmax(rows, 1).gather(1, targets.unsqueeze(1)).squeeze(1);
    const auto B = static_cast<double>(batch.tokens.size(0));
    return (nll * weights.index_select(0, scored)).sum() / B;
}

} // namespace dice
