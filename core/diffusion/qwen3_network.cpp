// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/diffusion/qwen3_network.h"

#include "core/model/qwen3_model.h"

namespace dice {

std::int64_t Qwen3Network::logitsWidth() const {
    return m_model.config().vocabSize;
}

void Qwen3Network::allocate(std::int64_t rows, std::int64_t capacity) {
    // Reuse a cache that is large enough and paged alike: allocating (and capturing graphs) costs
    // more than a pass.
    const bool paged = m_paging.pageTokens > 0;
    bool reuse = m_model.cacheRows() == rows && m_model.cacheCapacity() >= capacity &&
                 m_model.cachePaged() == paged;
    if (reuse && paged)
        reuse =
            m_model.cachePageTokens() == m_paging.pageTokens &&
            (m_paging.tokens > 0 ? m_model.cachePages() == m_model.cachePagesFor(m_paging.tokens)
                                 : m_model.cachePages() >= rows * m_model.cachePagesFor(capacity));
    if (reuse)
        m_model.clearCache();
    else
        m_model.allocateCache(rows, capacity, m_paging);
}

bool Qwen3Network::admits(std::int64_t tokens) const {
    return !m_model.cachePaged() || m_model.cachePagesFor(tokens) <= m_model.cacheFreePages();
}

void Qwen3Network::reserve(std::int64_t row, std::int64_t tokens) {
    m_model.reserveCacheRow(row, tokens);
}

void Qwen3Network::release(std::int64_t row) {
    m_model.releaseCacheRow(row);
}

void Qwen3Network::prefill(const at::Tensor& tokens, const std::vector<std::int64_t>& lengths,
                           std::int64_t blockLength, std::int64_t firstRow) {
    m_model.prefill(tokens, lengths, blockLength, firstRow);
}

at::Tensor Qwen3Network::blockPass(const at::Tensor& tokens,
                                   const std::vector<std::uint8_t>& commit, bool wantLogits) {
    return m_model.blockPass(tokens, commit, wantLogits);
}

void Qwen3Network::moveRow(std::int64_t from, std::int64_t to) {
    m_model.moveCacheRow(from, to);
}

} // namespace dice
