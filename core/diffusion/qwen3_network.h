// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/diffusion/network.h"
#include "core/model/qwen3_model.h"

namespace dice {

// The Qwen3/SDAR model as the sampler's network; its cache paged as `paging` says, where
// paging.tokens = 0 means enough pages for every row to reach the capacity.
class Qwen3Network : public DiffusionNetwork {
public:
    explicit Qwen3Network(Qwen3Model& model, const CachePaging& paging = {})
        : m_model(model)
        , m_paging(paging) {}

    std::int64_t logitsWidth() const override;
    void allocate(std::int64_t rows, std::int64_t capacity) override;
    void prefill(const at::Tensor& tokens, const std::vector<std::int64_t>& lengths,
                 std::int64_t blockLength, std::int64_t firstRow) override;
    at::Tensor blockPass(const at::Tensor& tokens, const std::vector<std::uint8_t>& commit,
                         bool wantLogits) override;
    void moveRow(std::int64_t from, std::int64_t to) override;
    bool admits(std::int64_t tokens) const override;
    void reserve(std::int64_t row, std::int64_t tokens) override;
    void release(std::int64_t row) override;

private:
    Qwen3Model& m_model;
    CachePaging m_paging;
};

} // namespace dice
