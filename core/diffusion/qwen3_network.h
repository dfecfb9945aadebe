// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/diffusion/network.h"

namespace dice {

class Qwen3Model;

// The Qwen3/SDAR model as the sampler's network.
class Qwen3Network : public DiffusionNetwork {
public:
    explicit Qwen3Network(Qwen3Model& model)
        : m_model(model) {}

    std::int64_t logitsWidth() const override;
    void allocate(std::int64_t rows, std::int64_t capacity) override;
    void prefill(const at::Tensor& tokens, const std::vector<std::int64_t>& lengths,
                 std::int64_t blockLength, std::int64_t firstRow) override;
    at::Tensor blockPass(const at::Tensor& tokens, const std::vector<std::uint8_t>& commit,
                         bool wantLogits) override;
    void moveRow(std::int64_t from, std::int64_t to) override;

private:
    Qwen3Model& m_model;
};

} // namespace dice
