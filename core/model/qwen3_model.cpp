// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>
#include <torch/version.h>

#if DICE_TORCH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include "core/model/qwen3_model.h"

#include "core/model/autocast_scope.h"
#include "core/model/decode_kernels.h"
#include "core/model/safetensors.h"
#include "core/model/safetensors_torch.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#define DICE_TORCH_AT_LEAST(major, minor)                                                          \
    (TORCH_VERSION_MAJOR > (major) ||                                                              \
     (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace dice {

namespace {

// Query tokens per prefill chunk.
constexpr std::int64_t kPrefillChunk = 1024;

at::ScalarType scalarType(ModelDType dtype) {
    switch (dtype) {
    case ModelDType::BFloat16:
        return at::kBFloat16;
    case ModelDType::Float16:
        return at::kHalf;
    case ModelDType::Float32:
        break;
    }
    return at::kFloat;
}

at::Device torchDevice(const ModelPlacement& placement) {
    if (placement.device == ModelDevice::Cuda)
        return at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(placement.deviceIndex));
    return at::Device(at::kCPU);
}

struct Layer {
    at::Tensor inputNorm;
    at::Tensor qkv;     // [(heads + 2 kv_heads) * head_dim, hidden]: q, k, v stacked
    at::Tensor qkvBias; // undefined without attention_bias
    at::Tensor qNorm;
    at::Tensor kNorm;
    at::Tensor o;
    at::Tensor oBias;
    at::Tensor postNorm;
    at::Tensor gateUp; // [2 * intermediate, hidden]: gate, up stacked
    at::Tensor down;
};

struct Projected {
    at::Tensor q; // [n, T, heads, D]
    at::Tensor k; // [n, T, kv_heads, D]
    at::Tensor v; // [n, T, kv_heads, D]
};

// A masked attention split into chunks of queries (setMaskedAttentionChunk): chunk c is the
// queries [bounds[c], bounds[c + 1]), over the keys `keys[c]` (int64 indices on the device;
// undefined: every key) under `masks[c]` ([n, 1, rows, keys] bool). Empty: one attention over
// everything.
struct AttentionPlan {
    std::vector<std::int64_t> bounds;
    std::vector<at::Tensor> keys;
    std::vector<at::Tensor> masks;
};

// Key counts are rounded up to a multiple of this with keys the chunk may not see: PyTorch's fused
// attention kernels take aligned key lengths and mask rows without padding them first.
constexpr std::int64_t kKeyAlignment = 16;

AttentionPlan planMaskedAttention(const at::Tensor& mask, std::int64_t chunk) {
    AttentionPlan plan;
    const std::int64_t T = mask.size(2), S = mask.size(3);
    if (chunk <= 0 || T <= chunk)
        return plan;
    for (std::int64_t q0 = 0; q0 < T; q0 += chunk)
        plan.bounds.push_back(q0);
    plan.bounds.push_back(T);
    // Which keys each chunk sees, for all chunks in one copy to the host.
    std::vector<at::Tensor> seen;
    for (std::size_t c = 0; c + 1 < plan.bounds.size(); ++c)
        seen.push_back(mask.narrow(2, plan.bounds[c], plan.bounds[c + 1] - plan.bounds[c])
                           .any(0)
                           .any(0)
                           .any(0));
    const auto table = at::stack(seen).to(at::kCPU).contiguous();
    const auto* bits = table.data_ptr<bool>();
    for (std::size_t c = 0; c + 1 < plan.bounds.size(); ++c) {
        const std::int64_t q0 = plan.bounds[c], rows = plan.bounds[c + 1] - q0;
        const bool* row = bits + static_cast<std::int64_t>(c) * S;
        std::vector<std::int64_t> keys, unseen;
        for (std::int64_t j = 0; j < S; ++j)
            (row[j] ? keys : unseen).push_back(j);
        for (std::size_t u = 0;
             u < unseen.size() && static_cast<std::int64_t>(keys.size()) % kKeyAlignment != 0; ++u)
            keys.push_back(unseen[u]);
        const auto chunkMask = mask.narrow(2, q0, rows);
        // Most keys seen: the gather would cost more than it saves.
        if (static_cast<std::int64_t>(keys.size()) * 4 >= S * 3) {
            plan.keys.emplace_back();
            plan.masks.push_back(chunkMask);
            continue;
        }
        std::sort(keys.begin(), keys.end());
        const auto index = at::tensor(keys, at::TensorOptions().dtype(at::kLong)).to(mask.device());
        plan.keys.push_back(index);
        plan.masks.push_back(chunkMask.index_select(3, index));
    }
    return plan;
}

// One expected weight of the checkpoint.
struct Expected {
    std::string name;
    std::vector<std::int64_t> shape;
    bool optional = false;
};

std::vector<Expected> expectedWeights(const ModelConfig& c) {
    const std::int64_t h = c.hiddenSize, q = c.numHeads * c.headDim, kv = c.numKvHeads * c.headDim;
    std::vector<Expected> list;
    list.push_back({"model.embed_tokens.weight", {c.vocabSize, h}});
    for (std::int64_t i = 0; i < c.numLayers; ++i) {
        const std::string p = "model.layers." + std::to_string(i) + ".";
        list.push_back({p + "input_layernorm.weight", {h}});
        list.push_back({p + "self_attn.q_proj.weight", {q, h}});
        list.push_back({p + "self_attn.k_proj.weight", {kv, h}});
        list.push_back({p + "self_attn.v_proj.weight", {kv, h}});
        list.push_back({p + "self_attn.o_proj.weight", {h, q}});
        if (c.attentionBias) {
            list.push_back({p + "self_attn.q_proj.bias", {q}});
            list.push_back({p + "self_attn.k_proj.bias", {kv}});
            list.push_back({p + "self_attn.v_proj.bias", {kv}});
            list.push_back({p + "self_attn.o_proj.bias", {h}});
        }
        list.push_back({p + "self_attn.q_norm.weight", {c.headDim}});
        list.push_back({p + "self_attn.k_norm.weight", {c.headDim}});
        list.push_back({p + "post_attention_layernorm.weight", {h}});
        list.push_back({p + "mlp.gate_proj.weight", {c.intermediateSize, h}});
        list.push_back({p + "mlp.up_proj.weight", {c.intermediateSize, h}});
        list.push_back({p + "mlp.down_proj.weight", {h, c.intermediateSize}});
    }
    list.push_back({"model.norm.weight", {h}});
    list.push_back({"lm_head.weight", {c.vocabSize, h}, c.tieWordEmbeddings});
    return list;
}

std::string shapeText(const std::vector<std::int64_t>& shape) {
    std::string out = "[";
    for (size_t i = 0; i < shape.size(); ++i)
        out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + "]";
}

#if DICE_TORCH_AT_LEAST(2, 0)
// No mask reaches scaled_dot_product_attention as no mask at all: LibTorch 2 takes an optional
// and rejects one that holds an undefined tensor ("attn_mask dtype ... nullptr
// (uninitialized)"), which is what generation without a mask passed on a CUDA LibTorch's CPU
// path.
c10::optional<at::Tensor> presentMask(const at::Tensor& mask) {
    return mask.defined() ? c10::optional<at::Tensor>(mask) : c10::nullopt;
}
#endif

} // namespace

std::optional<ModelDType> parseModelDType(const std::string& text) {
    if (text == "bf16" || text == "bfloat16")
        return ModelDType::BFloat16;
    if (text == "fp16" || text == "float16" || text == "f16")
        return ModelDType::Float16;
    if (text == "fp32" || text == "float32" || text == "f32")
        return ModelDType::Float32;
    return std::nullopt;
}

std::string toString(ModelDType dtype) {
    switch (dtype) {
    case ModelDType::BFloat16:
        return "bf16";
    case ModelDType::Float16:
        return "fp16";
    case ModelDType::Float32:
        break;
    }
    return "fp32";
}

int elementBytes(ModelDType dtype) {
    return dtype == ModelDType::Float32 ? 4 : 2;
}

struct Qwen3Model::Impl {
    ModelConfig config;
    GenerationConfig generation;
    ModelPlacement placement;
    at::TensorOptions options;
    at::Tensor embed;
    at::Tensor finalNorm;
    at::Tensor lmHead; // the embedding itself when tied
    std::vector<Layer> layers;
    at::Tensor invFreq; // float32 [head_dim / 2]

    // Per layer [pages, kv_heads, pageTokens, head_dim]: contiguous, a page per row of the
    // capacity's length; paged, pageCount pages and one more, the scratch page, where the table
    // points a row's positions that have no page (padding is written there and never read).
    std::vector<at::Tensor> cacheK;
    std::vector<at::Tensor> cacheV;
    std::int64_t rows = 0;
    std::int64_t capacity = 0;
    std::vector<std::int64_t> lengths;
    bool paged = false;
    std::int64_t pageTokens = 0;
    std::int64_t tablePages = 0; // pages a row can hold: the table's columns
    std::int64_t pageCount = 0;
    std::int64_t peakPages = 0;
    std::vector<std::vector<std::int32_t>> pagesOf; // by row, in position order
    std::vector<std::int32_t> freePages;            // taken from the back
    std::vector<std::int32_t> tableHost;            // [rows, tablePages]
    at::Tensor pageTable;                           // int32 [rows, tablePages] on the device
    bool tableDirty = false;

    bool graphsEnabled = true;
    bool fusedEnabled = true;
    bool smallRowProducts = false;
    bool checkpointLayers = false;
    std::int64_t attentionChunk = 0;
    std::string fusedProblem;
#if DICE_TORCH_CUDA
    std::unique_ptr<DecodeKernels> fused;
    bool fusedTried = false;
    struct Graph {
        std::unique_ptr<at::cuda::CUDAGraph> graph;
        at::Tensor tokens;
        at::Tensor starts;
        at::Tensor logits;
        std::uint64_t lastUse = 0;
    };
    // By rows, block length, attention span and whether logits are read. A continuous-batching
    // pool passes every row count as it drains and every span bucket as it grows, and each graph
    // keeps its own memory (the logits of a pass of 128 rows of 4B alone are 310 MB): the least
    // recently replayed go beyond kMaxGraphs.
    static constexpr std::size_t kMaxGraphs = 16;
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool>, Graph> graphs;
    std::uint64_t graphUses = 0;
    // One memory pool for every graph's intermediates, so that they cost the largest graph's
    // rather than the sum (each graph in a pool of its own held 21 GB for 16 graphs at 4B, 128
    // rows, and ran an 80 GB card out of memory). Sharing is safe because the graphs replay one
    // at a time on one stream and a replay's logits are copied out before the next: a graph's
    // intermediates are only live during its own replay, and its output tensor stays allocated.
    c10::cuda::MempoolId_t graphPool{0, 0};
#endif

    std::int64_t H() const {
        return config.numHeads;
    }
    std::int64_t KV() const {
        return config.numKvHeads;
    }
    std::int64_t D() const {
        return config.headDim;
    }
    double scale() const {
        return 1.0 / std::sqrt(static_cast<double>(config.headDim));
    }

    void finishSetup() {
        options =
            at::TensorOptions().dtype(scalarType(placement.dtype)).device(torchDevice(placement));
        // The same float32 arithmetic as transformers' default rotary embedding.
        const auto exponent =
            at::arange(0, D(), 2, at::TensorOptions().dtype(at::kLong)).to(at::kFloat) /
            static_cast<double>(D());
        invFreq = at::pow(config.ropeTheta, exponent).reciprocal();
        if (config.ropeLinearFactor != 1.0)
            invFreq = invFreq / config.ropeLinearFactor;
        invFreq = invFreq.to(options.device());
        if (config.tieWordEmbeddings)
            lmHead = embed;
    }

    // transformers' Qwen3RMSNorm: normalise in float32, round to the input dtype, then scale.
    at::Tensor rmsNorm(const at::Tensor& x, const at::Tensor& weight) const {
        const auto xf = x.to(at::kFloat);
        const auto variance = xf.pow(2).mean(-1, true);
        return weight * (xf * at::rsqrt(variance + config.rmsNormEps)).to(x.scalar_type());
    }

    // cos and sin for positions [n, T], as [n, T, 1, D] in the model's dtype; sin carries the
    // sign of rotate_half so that rotate_half(x) * sin == roll(x) * signedSin exactly.
    std::pair<at::Tensor, at::Tensor> rope(const at::Tensor& positions) const {
        const auto angles = positions.to(at::kFloat).unsqueeze(-1) * invFreq;
        const auto c = angles.cos();
        const auto s = angles.sin();
        const auto cosFull = at::cat({c, c}, -1).to(options.dtype().toScalarType());
        const auto sinSigned = at::cat({-s, s}, -1).to(options.dtype().toScalarType());
        return {cosFull.unsqueeze(2), sinSigned.unsqueeze(2)};
    }

    Projected project(const Layer& layer, const at::Tensor& x, const at::Tensor& cos,
                      const at::Tensor& sin) const {
        const std::int64_t n = x.size(0), T = x.size(1);
        const auto hidden = rmsNorm(x, layer.inputNorm);
        const auto qkv =
            at::linear(hidden, layer.qkv, layer.qkvBias).view({n, T, H() + 2 * KV(), D()});
        // q_norm and k_norm in one pass over the q and k heads.
        const auto normWeight =
            at::cat({layer.qNorm.expand({H(), D()}), layer.kNorm.expand({KV(), D()})}, 0);
        auto qk = rmsNorm(qkv.narrow(2, 0, H() + KV()), normWeight);
        qk = qk * cos + qk.roll(D() / 2, -1) * sin;
        return {qk.narrow(2, 0, H()), qk.narrow(2, H(), KV()), qkv.narrow(2, H() + KV(), KV())};
    }

    at::Tensor finishLayer(const Layer& layer, const at::Tensor& x,
                           const at::Tensor& attention) const {
        const auto y = x + at::linear(attention, layer.o, layer.oBias);
        const auto hidden = rmsNorm(y, layer.postNorm);
        const auto gateUp = at::linear(hidden, layer.gateUp);
        const std::int64_t I = config.intermediateSize;
        const auto act = at::silu(gateUp.narrow(-1, 0, I)) * gateUp.narrow(-1, I, I);
        return y + at::linear(act, layer.down);
    }

    // q [n, T, H, D]; k, v [n, kv, S, D]; mask bool [n, 1, T, S] or undefined. Returns
    // [n, T, H * D].
    at::Tensor attendAll(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                         const at::Tensor& mask) const {
#if DICE_TORCH_AT_LEAST(2, 5)
        const std::int64_t n = q.size(0), T = q.size(1);
        const auto out = at::scaled_dot_product_attention(
            q.transpose(1, 2), k, v, presentMask(mask), 0.0, false, scale(), true);
        return out.transpose(1, 2).reshape({n, T, H() * D()});
#else
        return attendFolded(q, k, v, mask);
#endif
    }

    // One whole layer of the uncached, differentiable forward pass; `plan`, when it has chunks,
    // splits the masked attention as setMaskedAttentionChunk() says.
    at::Tensor layerForward(const Layer& layer, const at::Tensor& x, const at::Tensor& cos,
                            const at::Tensor& sin, const at::Tensor& mask,
                            const AttentionPlan& plan = {}) const {
        const auto p = project(layer, x, cos, sin);
        const auto k = p.k.transpose(1, 2);
        const auto v = p.v.transpose(1, 2);
        if (plan.bounds.empty())
            return finishLayer(layer, x, attendAll(p.q, k, v, mask));
        std::vector<at::Tensor> parts;
        for (std::size_t c = 0; c + 1 < plan.bounds.size(); ++c) {
            const std::int64_t q0 = plan.bounds[c], rows = plan.bounds[c + 1] - q0;
            const auto& keys = plan.keys[c];
            parts.push_back(attendAll(p.q.narrow(1, q0, rows),
                                      keys.defined() ? k.index_select(2, keys) : k,
                                      keys.defined() ? v.index_select(2, keys) : v, plan.masks[c]));
        }
        return finishLayer(layer, x, at::cat(parts, 1));
    }

    // Grouped-query attention without copying keys and values per query head: the g query heads
    // that share a key/value head are folded into the query length, [n, kv, g * T, D], which is
    // exact because every head of a group sees the same keys under the same mask.
    // q [n, T, H, D]; k, v [n, kv, S, D]; mask bool [n, 1, T or 1, S] or undefined.
    at::Tensor attendFolded(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                            const at::Tensor& mask) const {
        const std::int64_t n = q.size(0), T = q.size(1), g = H() / KV();
        const auto folded =
            q.reshape({n, T, KV(), g, D()}).permute({0, 2, 3, 1, 4}).reshape({n, KV(), g * T, D()});
        return attendFoldedQueries(folded, T, k, v, mask);
    }

    // folded [n, kv, g * T, D] as above; returns [n, T, H * D].
    at::Tensor attendFoldedQueries(const at::Tensor& folded, std::int64_t T, const at::Tensor& k,
                                   const at::Tensor& v, const at::Tensor& mask) const {
        const std::int64_t n = folded.size(0), g = H() / KV();
#if DICE_TORCH_AT_LEAST(2, 0)
        at::Tensor foldedMask;
        if (mask.defined())
            foldedMask = mask.size(2) == 1 ? mask : mask.repeat({1, 1, g, 1});
#if DICE_TORCH_AT_LEAST(2, 1)
        const auto out = at::scaled_dot_product_attention(folded, k, v, presentMask(foldedMask),
                                                          0.0, false, scale());
#else
        const auto out =
            at::scaled_dot_product_attention(folded, k, v, presentMask(foldedMask), 0.0, false);
#endif
#else
        const std::int64_t S = k.size(2);
        auto scores = at::matmul(folded, k.transpose(-1, -2)) * scale();
        if (mask.defined())
            scores = scores.view({n, KV(), g, T, S})
                         .masked_fill(mask.logical_not().unsqueeze(2),
                                      -std::numeric_limits<float>::infinity())
                         .view({n, KV(), g * T, S});
        const auto probabilities = at::softmax(scores, -1, at::kFloat).to(folded.scalar_type());
        const auto out = at::matmul(probabilities, v);
#endif
        return out.view({n, KV(), g, T, D()}).permute({0, 3, 1, 2, 4}).reshape({n, T, H() * D()});
    }

    at::Tensor logits(const at::Tensor& x) const {
        return at::linear(rmsNorm(x, finalNorm), lmHead).to(at::kFloat);
    }

    std::int64_t pagesFor(std::int64_t tokens) const {
        return (tokens + pageTokens - 1) / pageTokens;
    }

    void writeTableRow(std::int64_t row) {
        const auto& own = pagesOf[static_cast<size_t>(row)];
        for (std::int64_t c = 0; c < tablePages; ++c)
            tableHost[static_cast<size_t>(row * tablePages + c)] =
                c < static_cast<std::int64_t>(own.size()) ? own[static_cast<size_t>(c)]
                                                          : static_cast<std::int32_t>(pageCount);
        tableDirty = true;
    }

    // Gives a paged row pages up to `tokens` positions.
    void ensurePages(std::int64_t row, std::int64_t tokens) {
        if (!paged)
            return;
        auto& own = pagesOf[static_cast<size_t>(row)];
        const std::int64_t need = pagesFor(tokens);
        if (static_cast<std::int64_t>(own.size()) >= need)
            return;
        if (need - static_cast<std::int64_t>(own.size()) >
            static_cast<std::int64_t>(freePages.size()))
            throw Error("the key/value cache has " + std::to_string(freePages.size()) +
                        " free pages of " + std::to_string(pageTokens) + " positions; row " +
                        std::to_string(row) + " needs " +
                        std::to_string(need - static_cast<std::int64_t>(own.size())) +
                        " more for " + std::to_string(tokens) + " positions");
        while (static_cast<std::int64_t>(own.size()) < need) {
            own.push_back(freePages.back());
            freePages.pop_back();
        }
        peakPages = std::max(peakPages, pageCount - static_cast<std::int64_t>(freePages.size()));
        writeTableRow(row);
    }

    void releasePages(std::int64_t row) {
        lengths[static_cast<size_t>(row)] = 0;
        if (!paged)
            return;
        auto& own = pagesOf[static_cast<size_t>(row)];
        freePages.insert(freePages.end(), own.rbegin(), own.rend());
        own.clear();
        writeTableRow(row);
    }

    // The table on the device as the host has it; outside any graph capture.
    void syncTable() {
        if (!tableDirty)
            return;
        pageTable.copy_(at::from_blob(tableHost.data(), {rows, tablePages},
                                      at::TensorOptions().dtype(at::kInt)));
        tableDirty = false;
    }

    // Where the keys or values of rows firstRow.. at `positions` ([n, T] int64 on the device) go
    // in a layer's cache viewed as [-1, head_dim]: [n * kv_heads * T] in the order of the
    // [n, kv_heads, T, head_dim] keys.
    at::Tensor cacheIndex(std::int64_t firstRow, const at::Tensor& positions) const {
        const std::int64_t n = positions.size(0);
        const auto longOptions = at::TensorOptions().dtype(at::kLong).device(options.device());
        const auto page = pageTable.narrow(0, firstRow, n)
                              .to(at::kLong)
                              .gather(1, at::div(positions, pageTokens, "floor"));
        const auto heads = at::arange(KV(), longOptions).view({1, KV(), 1});
        return ((page.unsqueeze(1) * KV() + heads) * pageTokens +
                at::remainder(positions, pageTokens).unsqueeze(1))
            .view({-1});
    }

    // Rows firstRow.. of a layer's cache over positions [0, span), as [n, kv_heads, span,
    // head_dim]: a view when contiguous, the rows' pages gathered when paged.
    at::Tensor cacheRows(const at::Tensor& cache, std::int64_t firstRow, std::int64_t n,
                         std::int64_t span) const {
        if (!paged)
            return cache.narrow(0, firstRow, n).narrow(2, 0, span);
        const std::int64_t count = pagesFor(span);
        const auto ids =
            pageTable.narrow(0, firstRow, n).narrow(1, 0, count).to(at::kLong).reshape({-1});
        return cache.index_select(0, ids)
            .view({n, count, KV(), pageTokens, D()})
            .permute({0, 2, 1, 3, 4})
            .reshape({n, KV(), count * pageTokens, D()})
            .narrow(2, 0, span);
    }

    // What a block of T tokens per row may attend to among the first `span` cache positions: each
    // row's positions before its start + T, as bool [n, 1, 1, span]; undefined when every row
    // starts at the same place (`uniform`) and the span ends where the blocks do.
    at::Tensor blockMask(const at::Tensor& starts, std::int64_t T, std::int64_t span,
                         bool uniform) const {
        if (uniform)
            return at::Tensor();
        const auto longOptions = at::TensorOptions().dtype(at::kLong).device(options.device());
        return (at::arange(span, longOptions).unsqueeze(0) < (starts + T).unsqueeze(1))
            .view({starts.size(0), 1, 1, span});
    }

    // One block of T tokens per row for rows [0, n): positions start at `starts` (int64 [n] on the
    // device); the block's keys and values go to the cache at those positions, and attention
    // reads the first `span` cache positions, masked to each row's start + T unless `uniform`.
    at::Tensor blockBody(const at::Tensor& tokens, const at::Tensor& starts, std::int64_t span,
                         bool uniform, bool wantLogits) {
#if DICE_TORCH_CUDA
        if (const auto* kernels = decodeKernels())
            return fusedBlockBody(*kernels, tokens, starts, span, uniform, wantLogits);
#endif
        const std::int64_t n = tokens.size(0), T = tokens.size(1);
        const auto longOptions = at::TensorOptions().dtype(at::kLong).device(options.device());
        const auto offsets = at::arange(T, longOptions);
        const auto positions = starts.unsqueeze(1) + offsets;
        const auto mask = blockMask(starts, T, span, uniform);
        const auto index = cacheIndex(0, positions);
        const auto [cos, sin] = rope(positions);
        auto x = at::embedding(embed, tokens);
        for (size_t l = 0; l < layers.size(); ++l) {
            const auto p = project(layers[l], x, cos, sin);
            cacheK[l].view({-1, D()}).index_copy_(0, index, p.k.transpose(1, 2).reshape({-1, D()}));
            cacheV[l].view({-1, D()}).index_copy_(0, index, p.v.transpose(1, 2).reshape({-1, D()}));
            const auto keys = cacheRows(cacheK[l], 0, n, span);
            const auto values = cacheRows(cacheV[l], 0, n, span);
            x = finishLayer(layers[l], x, attendFolded(p.q, keys, values, mask));
        }
        return wantLogits ? logits(x) : at::Tensor();
    }

#if DICE_TORCH_CUDA
    // The fused kernels for this model, built on first use; null where they are off or cannot be
    // built (the reason is kept).
    const DecodeKernels* decodeKernels() {
        if (!fusedEnabled || !options.device().is_cuda())
            return nullptr;
        if (!fusedTried) {
            fusedTried = true;
            try {
                const auto element =
                    placement.dtype == ModelDType::BFloat16  ? DecodeKernels::Element::BFloat16
                    : placement.dtype == ModelDType::Float16 ? DecodeKernels::Element::Float16
                                                             : DecodeKernels::Element::Float32;
                fused = std::make_unique<DecodeKernels>(element, options.device().index(),
                                                        static_cast<int>(D()));
                fusedProblem.clear();
            } catch (const std::exception& e) {
                fusedProblem = e.what();
            }
        }
        return fused.get();
    }

    DecodeKernels::BlockLayout blockLayout(std::int64_t n, std::int64_t T) const {
        DecodeKernels::BlockLayout layout;
        layout.rows = n;
        layout.block = T;
        layout.heads = H();
        layout.kvHeads = KV();
        layout.dim = D();
        layout.pageTokens = pageTokens;
        layout.tablePages = tablePages;
        return layout;
    }

    // Layer l's attention of the folded queries over the first `span` cache positions, as
    // [n, T, H * D]: the fused kernels where the block's queries fit them (each row masked to its
    // start + T), else LibTorch's attention with `mask`.
    at::Tensor fusedAttention(const DecodeKernels& kernels, cu::Stream stream,
                              const at::Tensor& query, size_t l, const at::Tensor& rowStarts,
                              std::int64_t span, const at::Tensor& mask) const {
        const std::int64_t n = query.size(0), g = H() / KV(), T = query.size(2) / g;
        if (!kernels.attendFits(g * T))
            return attendFoldedQueries(query, T, cacheRows(cacheK[l], 0, n, span),
                                       cacheRows(cacheV[l], 0, n, span), mask);
        auto workspace = at::empty({DecodeKernels::attendWorkspace(n, KV(), g * T, D(), span)},
                                   options.dtype(at::kFloat));
        auto out = at::empty({n, T, H() * D()}, options);
        DecodeKernels::Attend a;
        a.query = query.data_ptr();
        a.cacheK = cacheK[l].data_ptr();
        a.cacheV = cacheV[l].data_ptr();
        a.pageTable = pageTable.data_ptr<std::int32_t>();
        a.starts = rowStarts.data_ptr<std::int64_t>();
        a.workspace = workspace.data_ptr<float>();
        a.out = out.data_ptr();
        a.layout = blockLayout(n, T);
        a.span = span;
        a.scale = static_cast<float>(scale());
        kernels.attend(stream, a);
        return out;
    }

    // x [..., k] times w [n, k] transposed (+ bias): the fused kernel for a pass of a few rows
    // where it is asked for and fits, else LibTorch's product.
    at::Tensor product(const DecodeKernels& kernels, cu::Stream stream, const at::Tensor& x,
                       const at::Tensor& w, const at::Tensor& bias) const {
        const std::int64_t k = x.size(-1), rows = x.numel() / k, n = w.size(0);
        if (!smallRowProducts || !kernels.smallRowsFit(rows, k))
            return at::linear(x, w, bias).contiguous();
        const auto input = x.contiguous();
        auto shape = x.sizes().vec();
        shape.back() = n;
        auto y = at::empty(shape, options);
        kernels.smallRowsLinear(stream, input.data_ptr(), w.data_ptr(),
                                bias.defined() ? bias.data_ptr() : nullptr, y.data_ptr(), rows, n,
                                k);
        return y;
    }

    // blockBody through the fused kernels: per layer four matrix products and six fused launches
    // (attention among them), with each residual sum carried into the next RMSNorm.
    at::Tensor fusedBlockBody(const DecodeKernels& kernels, const at::Tensor& tokens,
                              const at::Tensor& starts, std::int64_t span, bool uniform,
                              bool wantLogits) {
        const std::int64_t n = tokens.size(0), T = tokens.size(1), rows = n * T,
                           hiddenSize = config.hiddenSize, I = config.intermediateSize,
                           g = H() / KV();
        const bool fusedAttend = kernels.attendFits(g * T);
        const auto mask = fusedAttend ? at::Tensor() : blockMask(starts, T, span, uniform);
        const auto rowStarts = starts.contiguous();
        const auto stream = reinterpret_cast<cu::Stream>(
            c10::cuda::getCurrentCUDAStream(options.device().index()).stream());
        const float eps = static_cast<float>(config.rmsNormEps);
        auto x = at::embedding(embed, tokens);
        auto hidden = at::empty_like(x);
        kernels.addRmsNorm(stream, x.data_ptr(), nullptr, nullptr, layers[0].inputNorm.data_ptr(),
                           hidden.data_ptr(), rows, hiddenSize, eps);
        for (size_t l = 0; l < layers.size(); ++l) {
            const auto& layer = layers[l];
            const auto qkv = product(kernels, stream, hidden, layer.qkv, layer.qkvBias);
            auto query = at::empty({n, KV(), g * T, D()}, options);
            DecodeKernels::QkNormRope a;
            a.qkv = qkv.data_ptr();
            a.qWeight = layer.qNorm.data_ptr();
            a.kWeight = layer.kNorm.data_ptr();
            a.starts = rowStarts.data_ptr<std::int64_t>();
            a.invFreq = invFreq.data_ptr<float>();
            a.query = query.data_ptr();
            a.cacheK = cacheK[l].data_ptr();
            a.cacheV = cacheV[l].data_ptr();
            a.pageTable = pageTable.data_ptr<std::int32_t>();
            a.layout = blockLayout(n, T);
            a.eps = eps;
            kernels.qkNormRope(stream, a);
            const auto attention = product(
                kernels, stream, fusedAttention(kernels, stream, query, l, rowStarts, span, mask),
                layer.o, layer.oBias);
            auto y = at::empty_like(x);
            auto normed = at::empty_like(x);
            kernels.addRmsNorm(stream, x.data_ptr(), attention.data_ptr(), y.data_ptr(),
                               layer.postNorm.data_ptr(), normed.data_ptr(), rows, hiddenSize, eps);
            const auto gateUp = product(kernels, stream, normed, layer.gateUp, at::Tensor());
            auto act = at::empty({n, T, I}, options);
            kernels.siluMul(stream, gateUp.data_ptr(), act.data_ptr(), rows, I);
            const auto down = product(kernels, stream, act, layer.down, at::Tensor());
            const auto& nextNorm = l + 1 < layers.size() ? layers[l + 1].inputNorm : finalNorm;
            x = at::empty_like(y);
            hidden = at::empty_like(y);
            kernels.addRmsNorm(stream, y.data_ptr(), down.data_ptr(), x.data_ptr(),
                               nextNorm.data_ptr(), hidden.data_ptr(), rows, hiddenSize, eps);
        }
        return wantLogits ? at::linear(hidden, lmHead).to(at::kFloat) : at::Tensor();
    }

    at::Tensor graphBlockPass(const at::Tensor& tokens, const at::Tensor& starts, std::int64_t span,
                              bool wantLogits) {
        const std::int64_t n = tokens.size(0), T = tokens.size(1);
        const auto key = std::make_tuple(n, T, span, wantLogits);
        auto found = graphs.find(key);
        if (found == graphs.end()) {
            if (graphs.size() >= kMaxGraphs) {
                // Replays are ordered on one stream; the synchronisation keeps the memory of the
                // graph let go from being handed out while its last replay may still run.
                c10::cuda::device_synchronize();
                graphs.erase(std::min_element(graphs.begin(), graphs.end(),
                                              [](const auto& a, const auto& b) {
                                                  return a.second.lastUse < b.second.lastUse;
                                              }));
            }
            Graph entry;
            entry.tokens = tokens.to(options.device()).clone();
            entry.starts = starts.to(options.device()).clone();
            c10::cuda::CUDAGuard deviceGuard(options.device());
            c10::cuda::device_synchronize();
            auto side = c10::cuda::getStreamFromPool(false, options.device().index());
            {
                c10::cuda::CUDAStreamGuard streamGuard(side);
                // The first run creates the library handles and workspaces outside the capture.
                blockBody(entry.tokens, entry.starts, span, false, wantLogits);
                side.synchronize();
                if (graphPool.first == 0 && graphPool.second == 0)
                    graphPool = at::cuda::graph_pool_handle();
                entry.graph = std::make_unique<at::cuda::CUDAGraph>();
                entry.graph->capture_begin(graphPool);
                entry.logits = blockBody(entry.tokens, entry.starts, span, false, wantLogits);
                entry.graph->capture_end();
                side.synchronize();
            }
            found = graphs.emplace(key, std::move(entry)).first;
        }
        auto& entry = found->second;
        entry.lastUse = ++graphUses;
        entry.tokens.copy_(tokens, true);
        entry.starts.copy_(starts, true);
        entry.graph->replay();
        return wantLogits ? entry.logits.clone() : at::Tensor();
    }
#endif

    void checkRows(std::int64_t n, const char* what) const {
        if (rows == 0)
            throw Error(std::string(what) + ": the key/value cache is not allocated");
        if (n <= 0 || n > rows)
            throw Error(std::string(what) + ": " + std::to_string(n) + " rows, the cache has " +
                        std::to_string(rows));
    }

    std::uint64_t weightBytes() const {
        std::uint64_t total = 0;
        auto add = [&](const at::Tensor& t) {
            if (t.defined())
                total += static_cast<std::uint64_t>(t.numel()) * t.element_size();
        };
        add(embed);
        add(finalNorm);
        if (!config.tieWordEmbeddings)
            add(lmHead);
        for (const auto& l : layers)
            for (const auto* t : {&l.inputNorm, &l.qkv, &l.qkvBias, &l.qNorm, &l.kNorm, &l.o,
                                  &l.oBias, &l.postNorm, &l.gateUp, &l.down})
                add(*t);
        return total;
    }
};

Qwen3Model::Qwen3Model(std::unique_ptr<Impl> impl)
    : d(std::move(impl)) {}
Qwen3Model::~Qwen3Model() = default;

std::unique_ptr<Qwen3Model> Qwen3Model::load(const std::string& folder,
                                             const LoadOptions& options) {
    namespace fs = std::filesystem;
    if (!fs::is_directory(folder))
        throw FileError(folder, "is not a folder");
    auto impl = std::make_unique<Impl>();
    const std::string configPath = (fs::path(folder) / "config.json").string();
    if (!fs::exists(configPath))
        throw FileError(configPath, "is missing: a checkpoint folder needs config.json");
    impl->config = loadModelConfig(configPath);
    const std::string generationPath = (fs::path(folder) / "generation_config.json").string();
    if (fs::exists(generationPath))
        impl->generation = loadGenerationConfig(generationPath);
    impl->placement = options.placement;
    if (options.placement.device == ModelDevice::Cuda && !torch::cuda::is_available())
        throw Error("cannot load the model onto CUDA: LibTorch sees no GPU");
    const auto& config = impl->config;

    const auto checkpoint = SafetensorsCheckpoint::openFolder(folder);
    const auto expected = expectedWeights(config);
    std::set<std::string> known;
    std::uint64_t total = 0;
    int count = 0;
    for (const auto& e : expected) {
        known.insert(e.name);
        const auto* t = checkpoint.find(e.name);
        if (!t) {
            if (e.optional)
                continue;
            throw FileError(checkpoint.origin(), "has no tensor '" + e.name + "', which a " +
                                                     config.modelType + " network with " +
                                                     std::to_string(config.numLayers) +
                                                     " layers needs (config.json)");
        }
        if (t->entry->shape != e.shape)
            throw FileError(t->file->path(), "tensor '" + e.name + "' has the shape " +
                                                 shapeText(t->entry->shape) +
                                                 ", config.json implies " + shapeText(e.shape));
        const auto dtype = t->entry->dtype;
        if (dtype != SafetensorsDType::BF16 && dtype != SafetensorsDType::F16 &&
            dtype != SafetensorsDType::F32 && dtype != SafetensorsDType::F64)
            throw FileError(t->file->path(), "tensor '" + e.name + "' has the dtype " +
                                                 std::string(toString(dtype)) +
                                                 ", not a floating-point type");
        if (!e.optional) {
            total += t->entry->bytes();
            ++count;
        }
    }
    for (const auto& [name, t] : checkpoint.tensors()) {
        // Older exports carry the rotary frequencies, which are recomputed from rope_theta.
        const bool rotaryBuffer =
            name.size() > 19 && name.compare(name.size() - 19, 19, "rotary_emb.inv_freq") == 0;
        if (!known.count(name) && !rotaryBuffer)
            throw FileError(t.file->path(),
                            "has the tensor '" + name + "', which is not part of a " +
                                config.modelType + " network with " +
                                std::to_string(config.numLayers) + " layers (config.json)");
    }

    at::NoGradGuard noGrad;
    const auto target = at::TensorOptions()
                            .dtype(scalarType(options.placement.dtype))
                            .device(torchDevice(options.placement));
    std::uint64_t done = 0;
    int index = 0;
    auto fetch = [&](const std::string& name) -> at::Tensor {
        const auto* t = checkpoint.find(name);
        if (!t)
            return {};
        if (options.cancel && options.cancel->load())
            throw LoadCancelled();
        if (options.progress)
            options.progress({done, total, name, index, count});
        auto tensor = safetensorsTensor(t->file, *t->entry)
                          .to(target.device(), target.dtype().toScalarType(), false, true);
        done += t->entry->bytes();
        ++index;
        return tensor;
    };

    impl->embed = fetch("model.embed_tokens.weight");
    for (std::int64_t i = 0; i < config.numLayers; ++i) {
        const std::string p = "model.layers." + std::to_string(i) + ".";
        Layer layer;
        layer.inputNorm = fetch(p + "input_layernorm.weight");
        {
            const auto q = fetch(p + "self_attn.q_proj.weight");
            const auto k = fetch(p + "self_attn.k_proj.weight");
            const auto v = fetch(p + "self_attn.v_proj.weight");
            layer.qkv = at::cat({q, k, v}, 0);
        }
        layer.o = fetch(p + "self_attn.o_proj.weight");
        if (config.attentionBias) {
            const auto qb = fetch(p + "self_attn.q_proj.bias");
            const auto kb = fetch(p + "self_attn.k_proj.bias");
            const auto vb = fetch(p + "self_attn.v_proj.bias");
            layer.qkvBias = at::cat({qb, kb, vb}, 0);
            layer.oBias = fetch(p + "self_attn.o_proj.bias");
        }
        layer.qNorm = fetch(p + "self_attn.q_norm.weight");
        layer.kNorm = fetch(p + "self_attn.k_norm.weight");
        layer.postNorm = fetch(p + "post_attention_layernorm.weight");
        {
            const auto gate = fetch(p + "mlp.gate_proj.weight");
            const auto up = fetch(p + "mlp.up_proj.weight");
            layer.gateUp = at::cat({gate, up}, 0);
        }
        layer.down = fetch(p + "mlp.down_proj.weight");
        impl->layers.push_back(std::move(layer));
    }
    impl->finalNorm = fetch("model.norm.weight");
    if (!config.tieWordEmbeddings)
        impl->lmHead = fetch("lm_head.weight");
    if (options.progress)
        options.progress({done, total, std::string(), index, count});
    impl->finishSetup();
    return std::unique_ptr<Qwen3Model>(new Qwen3Model(std::move(impl)));
}

std::unique_ptr<Qwen3Model> Qwen3Model::random(const ModelConfig& config,
                                               const ModelPlacement& placement, std::uint64_t seed,
                                               double stddev) {
    config.validate("random model configuration");
    if (placement.device == ModelDevice::Cuda && !torch::cuda::is_available())
        throw Error("cannot build the model on CUDA: LibTorch sees no GPU");
    auto impl = std::make_unique<Impl>();
    impl->config = config;
    impl->placement = placement;
    at::NoGradGuard noGrad;
    torch::manual_seed(seed);
    const auto target =
        at::TensorOptions().dtype(scalarType(placement.dtype)).device(torchDevice(placement));
    auto weight = [&](std::vector<std::int64_t> shape) {
        return (at::randn(shape, target) * stddev).contiguous();
    };
    auto norm = [&](std::int64_t size) { return 1.0 + 0.1 * at::randn({size}, target); };
    const std::int64_t h = config.hiddenSize, q = config.numHeads * config.headDim,
                       kv = config.numKvHeads * config.headDim, I = config.intermediateSize;
    impl->embed = weight({config.vocabSize, h});
    for (std::int64_t i = 0; i < config.numLayers; ++i) {
        Layer layer;
        layer.inputNorm = norm(h);
        layer.qkv = weight({q + 2 * kv, h});
        layer.o = weight({h, q});
        if (config.attentionBias) {
            layer.qkvBias = weight({q + 2 * kv});
            layer.oBias = weight({h});
        }
        layer.qNorm = norm(config.headDim);
        layer.kNorm = norm(config.headDim);
        layer.postNorm = norm(h);
        layer.gateUp = weight({2 * I, h});
        layer.down = weight({h, I});
        impl->layers.push_back(std::move(layer));
    }
    impl->finalNorm = norm(h);
    if (!config.tieWordEmbeddings)
        impl->lmHead = weight({config.vocabSize, h});
    impl->finishSetup();
    return std::unique_ptr<Qwen3Model>(new Qwen3Model(std::move(impl)));
}

std::unique_ptr<Qwen3Model> Qwen3Model::copyAs(ModelDType dtype) const {
    auto impl = std::make_unique<Impl>();
    impl->config = d->config;
    impl->generation = d->generation;
    impl->placement = d->placement;
    impl->placement.dtype = dtype;
    at::NoGradGuard noGrad;
    const auto type = scalarType(dtype);
    // clone(): a copy in the same dtype must not share the source's memory.
    const auto cast = [&](const at::Tensor& t) {
        return t.defined() ? t.detach().to(type).clone().contiguous() : at::Tensor();
    };
    impl->embed = cast(d->embed);
    impl->finalNorm = cast(d->finalNorm);
    if (!d->config.tieWordEmbeddings)
        impl->lmHead = cast(d->lmHead);
    for (const auto& l : d->layers) {
        Layer c;
        c.inputNorm = cast(l.inputNorm);
        c.qkv = cast(l.qkv);
        c.qkvBias = cast(l.qkvBias);
        c.qNorm = cast(l.qNorm);
        c.kNorm = cast(l.kNorm);
        c.o = cast(l.o);
        c.oBias = cast(l.oBias);
        c.postNorm = cast(l.postNorm);
        c.gateUp = cast(l.gateUp);
        c.down = cast(l.down);
        impl->layers.push_back(std::move(c));
    }
    impl->finishSetup();
    return std::unique_ptr<Qwen3Model>(new Qwen3Model(std::move(impl)));
}

void Qwen3Model::copyWeightsFrom(const Qwen3Model& source) {
    const auto to = parameters();
    const auto from = source.parameters();
    if (to.size() != from.size())
        throw Error("copyWeightsFrom: the models' configurations differ");
    at::NoGradGuard noGrad;
    for (std::size_t i = 0; i < to.size(); ++i) {
        if (to[i].sizes() != from[i].sizes())
            throw Error("copyWeightsFrom: the models' configurations differ");
        to[i].copy_(from[i]);
    }
}

const ModelConfig& Qwen3Model::config() const {
    return d->config;
}

const GenerationConfig& Qwen3Model::generationConfig() const {
    return d->generation;
}

const ModelPlacement& Qwen3Model::placement() const {
    return d->placement;
}

std::uint64_t Qwen3Model::weightBytes() const {
    return d->weightBytes();
}

// Gradient checkpointing of one layer. Forward runs the layer without recording it and keeps its
// input; backward runs it again with recording on (and autocast as it was) and differentiates that
// run. The layer's weights are inputs of the node so that their gradients flow.
struct LayerCheckpoint : public torch::autograd::Function<LayerCheckpoint> {
    struct Context {
        const Qwen3Model::Impl* model;
        std::size_t layer;
        at::Tensor cos;
        at::Tensor sin;
        at::Tensor mask;
        const AttentionPlan* plan = nullptr;
    };

    static std::vector<at::Tensor> weights(const Layer& l) {
        std::vector<at::Tensor> out;
        for (const auto* t : {&l.inputNorm, &l.qkv, &l.qkvBias, &l.qNorm, &l.kNorm, &l.o, &l.oBias,
                              &l.postNorm, &l.gateUp, &l.down})
            if (t->defined())
                out.push_back(*t);
        return out;
    }

    static at::Tensor forward(torch::autograd::AutogradContext* ctx, const Context& c,
                              const at::Tensor& x, at::TensorList layerWeights) {
        ctx->saved_data["model"] = reinterpret_cast<std::int64_t>(c.model);
        ctx->saved_data["layer"] = static_cast<std::int64_t>(c.layer);
        ctx->saved_data["cos"] = c.cos;
        ctx->saved_data["sin"] = c.sin;
        ctx->saved_data["has_mask"] = c.mask.defined();
        if (c.mask.defined())
            ctx->saved_data["mask"] = c.mask;
        // The plan as IValues, for the backward pass's second forward.
        std::vector<at::Tensor> planKeys, planMasks;
        c10::List<bool> planGathers;
        for (std::size_t i = 0; i < c.plan->keys.size(); ++i) {
            planGathers.push_back(c.plan->keys[i].defined());
            planKeys.push_back(c.plan->keys[i].defined() ? c.plan->keys[i] : at::empty({0}));
            planMasks.push_back(c.plan->masks[i]);
        }
        ctx->saved_data["plan_bounds"] = c.plan->bounds;
        ctx->saved_data["plan_keys"] = planKeys;
        ctx->saved_data["plan_gathers"] = planGathers;
        ctx->saved_data["plan_masks"] = planMasks;
        ctx->saved_data["autocast"] = AutocastScope::active();
        ctx->saved_data["weights"] = static_cast<std::int64_t>(layerWeights.size());
        ctx->save_for_backward({x});
        return c.model->layerForward(c.model->layers[c.layer], x, c.cos, c.sin, c.mask, *c.plan);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list outputGrads) {
        const auto* model =
            reinterpret_cast<const Qwen3Model::Impl*>(ctx->saved_data["model"].toInt());
        const Layer& layer =
            model->layers[static_cast<std::size_t>(ctx->saved_data["layer"].toInt())];
        const auto x = ctx->get_saved_variables()[0].detach().requires_grad_(true);
        const at::Tensor mask = ctx->saved_data["has_mask"].toBool()
                                    ? ctx->saved_data["mask"].toTensor()
                                    : at::Tensor();
        AttentionPlan plan;
        plan.bounds = ctx->saved_data["plan_bounds"].toIntVector();
        const auto planKeys = ctx->saved_data["plan_keys"].toTensorVector();
        const auto planGathers = ctx->saved_data["plan_gathers"].toBoolList();
        plan.masks = ctx->saved_data["plan_masks"].toTensorVector();
        for (std::size_t i = 0; i < planKeys.size(); ++i)
            plan.keys.push_back(planGathers.get(i) ? planKeys[i] : at::Tensor());
        std::vector<at::Tensor> inputs = {x};
        for (const auto& w : weights(layer))
            inputs.push_back(w);
        if (static_cast<std::int64_t>(inputs.size()) - 1 != ctx->saved_data["weights"].toInt())
            throw Error("gradient checkpointing: a layer's weights changed between the passes");
        at::Tensor y;
        {
            at::AutoGradMode recording(true);
            AutocastScope autocast(ctx->saved_data["autocast"].toBool());
            y = model->layerForward(layer, x, ctx->saved_data["cos"].toTensor(),
                                    ctx->saved_data["sin"].toTensor(), mask, plan);
        }
        auto grads = torch::autograd::grad({y}, inputs, {outputGrads[0]}, false, false, true);
        torch::autograd::variable_list out = {at::Tensor()};
        out.insert(out.end(), grads.begin(), grads.end());
        return out;
    }
};

at::Tensor Qwen3Model::forward(const at::Tensor& tokens, const at::Tensor& positions,
                               const at::Tensor& mask) const {
    return forward(tokens, positions, mask, at::Tensor());
}

at::Tensor Qwen3Model::forward(const at::Tensor& tokens, const at::Tensor& positions,
                               const at::Tensor& mask, const at::Tensor& rows) const {
    if (tokens.dim() != 2 || positions.sizes() != tokens.sizes())
        throw Error("forward: tokens and positions must both be [batch, length]");
    const std::int64_t n = tokens.size(0), T = tokens.size(1);
    if (mask.defined() && (mask.dim() != 4 || mask.size(0) != n || mask.size(1) != 1 ||
                           mask.size(2) != T || mask.size(3) != T))
        throw Error("forward: the mask must be [batch, 1, length, length]");
    if (rows.defined() && rows.dim() != 1)
        throw Error("forward: the rows to score must be a list of cell indices");
    const auto device = d->options.device();
    const auto tok = tokens.to(device, at::kLong);
    const auto [cos, sin] = d->rope(positions.to(device, at::kLong));
    const auto m = mask.defined() ? mask.to(device, at::kBool) : at::Tensor();
    auto x = at::embedding(d->embed, tok);
    // Planned once: every layer sees the same mask.
    const AttentionPlan plan =
        m.defined() ? planMaskedAttention(m, d->attentionChunk) : AttentionPlan{};
    const bool checkpoint = d->checkpointLayers && at::GradMode::is_enabled();
    for (std::size_t l = 0; l < d->layers.size(); ++l) {
        if (checkpoint) {
            // As a TensorList each weight is an input of the node; as a vector it would be one
            // opaque argument, and no gradient would reach the weights.
            const auto weights = LayerCheckpoint::weights(d->layers[l]);
            x = LayerCheckpoint::apply(LayerCheckpoint::Context{d.get(), l, cos, sin, m, &plan}, x,
                                       at::TensorList(weights));
        } else
            x = d->layerForward(d->layers[l], x, cos, sin, m, plan);
    }
    if (rows.defined())
        return d->logits(
            x.reshape({n * T, x.size(-1)}).index_select(0, rows.to(device, at::kLong)));
    return d->logits(x);
}

void Qwen3Model::setGradientCheckpointing(bool enabled) {
    d->checkpointLayers = enabled;
}

bool Qwen3Model::gradientCheckpointing() const {
    return d->checkpointLayers;
}

void Qwen3Model::setMaskedAttentionChunk(std::int64_t rows) {
    if (rows < 0)
        throw Error("setMaskedAttentionChunk: a chunk of " + std::to_string(rows) + " queries");
    d->attentionChunk = rows;
}

std::int64_t Qwen3Model::maskedAttentionChunk() const {
    return d->attentionChunk;
}

void Qwen3Model::allocateCache(std::int64_t rows, std::int64_t capacity,
                               const CachePaging& paging) {
    if (rows <= 0 || capacity <= 0)
        throw Error("the key/value cache needs at least one row and one position");
    if (paging.pageTokens < 0 || paging.tokens < 0)
        throw Error("the key/value cache's pages and positions cannot be negative");
    if (paging.pageTokens > 0 && paging.pageTokens % 32 != 0)
        throw Error("the key/value cache's pages must hold a multiple of 32 positions, not " +
                    std::to_string(paging.pageTokens));
    const bool paged = paging.pageTokens > 0;
    const std::int64_t pageTokens = paged ? paging.pageTokens : capacity;
    const std::int64_t tablePages = (capacity + pageTokens - 1) / pageTokens;
    const std::int64_t pageCount = !paged ? rows
                                   : paging.tokens > 0
                                       ? (paging.tokens + pageTokens - 1) / pageTokens
                                       : rows * tablePages;
    if (pageCount >= std::numeric_limits<std::int32_t>::max())
        throw Error("the key/value cache would have more pages than a table entry can name");
    c10::InferenceMode inference;
#if DICE_TORCH_CUDA
    d->graphs.clear();
#endif
    d->cacheK.clear();
    d->cacheV.clear();
    // Paged, one page more: the scratch page.
    const std::int64_t allocated = paged ? pageCount + 1 : pageCount;
    for (size_t l = 0; l < d->layers.size(); ++l) {
        d->cacheK.push_back(at::zeros({allocated, d->KV(), pageTokens, d->D()}, d->options));
        d->cacheV.push_back(at::zeros({allocated, d->KV(), pageTokens, d->D()}, d->options));
    }
    d->rows = rows;
    d->capacity = capacity;
    d->lengths.assign(static_cast<size_t>(rows), 0);
    d->paged = paged;
    d->pageTokens = pageTokens;
    d->tablePages = tablePages;
    d->pageCount = pageCount;
    d->tableHost.assign(static_cast<size_t>(rows * tablePages), 0);
    d->pageTable = at::zeros({rows, tablePages}, d->options.dtype(at::kInt));
    d->pagesOf.assign(static_cast<size_t>(rows), {});
    clearCache();
}

void Qwen3Model::clearCache() {
    std::fill(d->lengths.begin(), d->lengths.end(), 0);
    d->freePages.clear();
    if (d->paged) {
        // Taken from the back: the lowest pages first.
        for (std::int64_t p = d->pageCount; p-- > 0;)
            d->freePages.push_back(static_cast<std::int32_t>(p));
        for (auto& own : d->pagesOf)
            own.clear();
    } else {
        for (std::int64_t r = 0; r < d->rows; ++r)
            d->pagesOf[static_cast<size_t>(r)] = {static_cast<std::int32_t>(r)};
    }
    for (std::int64_t r = 0; r < d->rows; ++r)
        d->writeTableRow(r);
    d->peakPages = d->paged ? 0 : d->pageCount;
    c10::InferenceMode inference;
    d->syncTable();
}

bool Qwen3Model::cachePaged() const {
    return d->paged;
}

std::int64_t Qwen3Model::cachePageTokens() const {
    return d->pageTokens;
}

std::int64_t Qwen3Model::cachePages() const {
    return d->pageCount;
}

std::int64_t Qwen3Model::cacheFreePages() const {
    return static_cast<std::int64_t>(d->freePages.size());
}

std::int64_t Qwen3Model::cachePeakPages() const {
    return d->peakPages;
}

std::int64_t Qwen3Model::cachePagesFor(std::int64_t tokens) const {
    if (d->rows == 0)
        throw Error("the key/value cache is not allocated");
    return d->paged ? d->pagesFor(std::max<std::int64_t>(tokens, 0)) : 1;
}

void Qwen3Model::reserveCacheRow(std::int64_t row, std::int64_t tokens) {
    if (row < 0)
        throw Error("reserveCacheRow: row outside the cache");
    d->checkRows(row + 1, "reserveCacheRow");
    if (tokens < 0 || tokens > d->capacity)
        throw Error("reserveCacheRow: " + std::to_string(tokens) +
                    " positions do not fit a row of " + std::to_string(d->capacity));
    if (d->paged && d->pagesFor(tokens) >
                        static_cast<std::int64_t>(d->freePages.size() +
                                                  d->pagesOf[static_cast<size_t>(row)].size()))
        throw Error("reserveCacheRow: " + std::to_string(tokens) + " positions need " +
                    std::to_string(d->pagesFor(tokens)) + " pages; the cache has " +
                    std::to_string(d->freePages.size()) + " free besides the row's own " +
                    std::to_string(d->pagesOf[static_cast<size_t>(row)].size()));
    d->releasePages(row);
    d->ensurePages(row, tokens);
}

void Qwen3Model::releaseCacheRow(std::int64_t row) {
    if (row < 0)
        throw Error("releaseCacheRow: row outside the cache");
    d->checkRows(row + 1, "releaseCacheRow");
    d->releasePages(row);
}

std::int64_t Qwen3Model::cacheRows() const {
    return d->rows;
}

std::int64_t Qwen3Model::cacheCapacity() const {
    return d->capacity;
}

const std::vector<std::int64_t>& Qwen3Model::cacheLengths() const {
    return d->lengths;
}

void Qwen3Model::prefill(const at::Tensor& tokens, const std::vector<std::int64_t>& lengths,
                         std::int64_t blockLength, std::int64_t firstRow) {
    if (tokens.dim() != 2)
        throw Error("prefill: tokens must be [rows, length]");
    const std::int64_t n = tokens.size(0), T = tokens.size(1);
    if (firstRow < 0)
        throw Error("prefill: the first row must not be negative");
    d->checkRows(firstRow + n, "prefill");
    if (static_cast<std::int64_t>(lengths.size()) != n)
        throw Error("prefill: one length per row is needed");
    if (T > d->capacity)
        throw Error("prefill: " + std::to_string(T) + " tokens exceed the cache capacity of " +
                    std::to_string(d->capacity));
    if (blockLength <= 0)
        throw Error("prefill: the block length must be positive");
    for (auto len : lengths)
        if (len < 0 || len > T)
            throw Error("prefill: a row length is outside 0.." + std::to_string(T));
    c10::InferenceMode inference;
    for (std::int64_t i = 0; i < n; ++i) {
        d->lengths[static_cast<size_t>(firstRow + i)] = 0;
        d->ensurePages(firstRow + i, lengths[static_cast<size_t>(i)]);
    }
    d->syncTable();
    const auto device = d->options.device();
    const auto longOptions = at::TensorOptions().dtype(at::kLong);
    const auto rowLengths = at::tensor(lengths, longOptions).view({n, 1, 1});
    const auto tokensOnDevice = tokens.to(device, at::kLong);
    // Long prompts go in chunks of whole blocks, each attending to the cache written so far, so
    // that the attention scores stay small.
    const std::int64_t chunk = std::max<std::int64_t>(1, kPrefillChunk / blockLength) * blockLength;
    for (std::int64_t begin = 0; begin < T; begin += chunk) {
        const std::int64_t end = std::min(T, begin + chunk), C = end - begin;
        const auto queries = at::arange(begin, end, longOptions);
        const auto keys = at::arange(end, longOptions);
        const auto blockCausal = at::div(keys, blockLength, "floor").unsqueeze(0) <=
                                 at::div(queries, blockLength, "floor").unsqueeze(1);
        const auto valid = keys.view({1, 1, end}) < rowLengths;
        // Padding queries attend to themselves so that no row of the softmax is empty.
        const auto self = keys.unsqueeze(0) == queries.unsqueeze(1);
        const auto mask =
            ((blockCausal.unsqueeze(0) & valid) | self.unsqueeze(0)).unsqueeze(1).to(device);
        const auto positions = queries.unsqueeze(0).expand({n, C}).to(device);
        const auto [cos, sin] = d->rope(positions);
        // Padding past a paged row's pages goes to the scratch page.
        const auto index = d->cacheIndex(firstRow, positions);
        auto x = at::embedding(d->embed, tokensOnDevice.narrow(1, begin, C));
        for (size_t l = 0; l < d->layers.size(); ++l) {
            const auto p = d->project(d->layers[l], x, cos, sin);
            d->cacheK[l]
                .view({-1, d->D()})
                .index_copy_(0, index, p.k.transpose(1, 2).reshape({-1, d->D()}));
            d->cacheV[l]
                .view({-1, d->D()})
                .index_copy_(0, index, p.v.transpose(1, 2).reshape({-1, d->D()}));
            const auto k = d->cacheRows(d->cacheK[l], firstRow, n, end);
            const auto v = d->cacheRows(d->cacheV[l], firstRow, n, end);
            x = d->finishLayer(d->layers[l], x, d->attendFolded(p.q, k, v, mask));
        }
    }
    for (std::int64_t i = 0; i < n; ++i)
        d->lengths[static_cast<size_t>(firstRow + i)] = lengths[static_cast<size_t>(i)];
}

at::Tensor Qwen3Model::blockPass(const at::Tensor& tokens, const std::vector<std::uint8_t>& commit,
                                 bool wantLogits) {
    if (tokens.dim() != 2)
        throw Error("blockPass: tokens must be [rows, block]");
    const std::int64_t n = tokens.size(0), T = tokens.size(1);
    d->checkRows(n, "blockPass");
    if (static_cast<std::int64_t>(commit.size()) != n)
        throw Error("blockPass: one commit flag per row is needed");
    std::int64_t lowest = d->lengths[0], highest = d->lengths[0];
    for (std::int64_t i = 0; i < n; ++i) {
        lowest = std::min(lowest, d->lengths[static_cast<size_t>(i)]);
        highest = std::max(highest, d->lengths[static_cast<size_t>(i)]);
    }
    if (highest + T > d->capacity)
        throw Error("blockPass: the block would end at " + std::to_string(highest + T) +
                    ", past the cache capacity of " + std::to_string(d->capacity));
    c10::InferenceMode inference;
    for (std::int64_t i = 0; i < n; ++i)
        d->ensurePages(i, d->lengths[static_cast<size_t>(i)] + T);
    d->syncTable();
    const auto starts =
        at::tensor(std::vector<std::int64_t>(d->lengths.begin(), d->lengths.begin() + n),
                   at::TensorOptions().dtype(at::kLong));
    at::Tensor out;
    const std::int64_t span = highest + T;
#if DICE_TORCH_CUDA
    if (d->graphsEnabled && d->options.device().is_cuda()) {
        // Spans are rounded up so that one captured graph serves many blocks.
        constexpr std::int64_t kSpanStep = 256;
        const std::int64_t bucket =
            std::min(d->capacity, (span + kSpanStep - 1) / kSpanStep * kSpanStep);
        out = d->graphBlockPass(tokens.to(at::kLong), starts, bucket, wantLogits);
    } else
#endif
    {
        out = d->blockBody(tokens.to(d->options.device(), at::kLong),
                           starts.to(d->options.device()), span, lowest == highest, wantLogits);
    }
    for (std::int64_t i = 0; i < n; ++i)
        if (commit[static_cast<size_t>(i)])
            d->lengths[static_cast<size_t>(i)] += T;
    return out;
}

void Qwen3Model::moveCacheRow(std::int64_t from, std::int64_t to) {
    if (from < 0 || to < 0 || from >= d->rows || to >= d->rows)
        throw Error("moveCacheRow: row outside the cache");
    if (from == to)
        return;
    c10::InferenceMode inference;
    const std::int64_t length = d->lengths[static_cast<size_t>(from)];
    if (d->paged) {
        d->releasePages(to);
        d->pagesOf[static_cast<size_t>(to)] = std::move(d->pagesOf[static_cast<size_t>(from)]);
        d->pagesOf[static_cast<size_t>(from)].clear();
        d->writeTableRow(to);
        d->writeTableRow(from);
        d->lengths[static_cast<size_t>(to)] = length;
        d->lengths[static_cast<size_t>(from)] = 0;
        return;
    }
    if (length > 0) {
        for (size_t l = 0; l < d->layers.size(); ++l) {
            d->cacheK[l][to].narrow(1, 0, length).copy_(d->cacheK[l][from].narrow(1, 0, length));
            d->cacheV[l][to].narrow(1, 0, length).copy_(d->cacheV[l][from].narrow(1, 0, length));
        }
    }
    d->lengths[static_cast<size_t>(to)] = length;
}

void Qwen3Model::setCudaGraphs(bool enabled) {
    d->graphsEnabled = enabled;
#if DICE_TORCH_CUDA
    if (!enabled)
        d->graphs.clear();
#endif
}

void Qwen3Model::setFusedKernels(bool enabled) {
    d->fusedEnabled = enabled;
#if DICE_TORCH_CUDA
    // Captured graphs hold the kernels of the mode they were captured in.
    d->graphs.clear();
#endif
}

void Qwen3Model::setSmallRowProducts(bool enabled) {
    d->smallRowProducts = enabled;
#if DICE_TORCH_CUDA
    d->graphs.clear();
#endif
}

bool Qwen3Model::fusedKernelsActive() {
#if DICE_TORCH_CUDA
    return d->decodeKernels() != nullptr;
#else
    return false;
#endif
}

std::string Qwen3Model::fusedKernelsProblem() const {
    return d->fusedProblem;
}

bool Qwen3Model::cudaGraphsActive() const {
#if DICE_TORCH_CUDA
    return d->graphsEnabled && d->options.device().is_cuda();
#else
    return false;
#endif
}

std::vector<std::pair<std::string, at::Tensor>> Qwen3Model::namedWeights() const {
    const auto& c = d->config;
    const std::int64_t q = c.numHeads * c.headDim, kv = c.numKvHeads * c.headDim,
                       I = c.intermediateSize;
    std::vector<std::pair<std::string, at::Tensor>> out;
    out.emplace_back("model.embed_tokens.weight", d->embed);
    for (size_t i = 0; i < d->layers.size(); ++i) {
        const auto& l = d->layers[i];
        const std::string p = "model.layers." + std::to_string(i) + ".";
        out.emplace_back(p + "input_layernorm.weight", l.inputNorm);
        out.emplace_back(p + "self_attn.q_proj.weight", l.qkv.narrow(0, 0, q));
        out.emplace_back(p + "self_attn.k_proj.weight", l.qkv.narrow(0, q, kv));
        out.emplace_back(p + "self_attn.v_proj.weight", l.qkv.narrow(0, q + kv, kv));
        out.emplace_back(p + "self_attn.o_proj.weight", l.o);
        if (l.qkvBias.defined()) {
            out.emplace_back(p + "self_attn.q_proj.bias", l.qkvBias.narrow(0, 0, q));
            out.emplace_back(p + "self_attn.k_proj.bias", l.qkvBias.narrow(0, q, kv));
            out.emplace_back(p + "self_attn.v_proj.bias", l.qkvBias.narrow(0, q + kv, kv));
            out.emplace_back(p + "self_attn.o_proj.bias", l.oBias);
        }
        out.emplace_back(p + "self_attn.q_norm.weight", l.qNorm);
        out.emplace_back(p + "self_attn.k_norm.weight", l.kNorm);
        out.emplace_back(p + "post_attention_layernorm.weight", l.postNorm);
        out.emplace_back(p + "mlp.gate_proj.weight", l.gateUp.narrow(0, 0, I));
        out.emplace_back(p + "mlp.up_proj.weight", l.gateUp.narrow(0, I, I));
        out.emplace_back(p + "mlp.down_proj.weight", l.down);
    }
    out.emplace_back("model.norm.weight", d->finalNorm);
    if (!c.tieWordEmbeddings)
        out.emplace_back("lm_head.weight", d->lmHead);
    return out;
}

std::vector<at::Tensor> Qwen3Model::parameters() const {
    std::vector<at::Tensor> out = {d->embed, d->finalNorm};
    if (!d->config.tieWordEmbeddings)
        out.push_back(d->lmHead);
    for (const auto& l : d->layers)
        for (const auto* t : {&l.inputNorm, &l.qkv, &l.qkvBias, &l.qNorm, &l.kNorm, &l.o, &l.oBias,
                              &l.postNorm, &l.gateUp, &l.down})
            if (t->defined())
                out.push_back(*t);
    return out;
}

} // namespace dice
