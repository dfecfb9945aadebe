// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/common/error.h"
#include "core/model/model_config.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace at {
class Tensor;
}

namespace dice {

enum class ModelDevice { Cpu, Cuda };
enum class ModelDType { BFloat16, Float16, Float32 };

// "bf16", "fp16", "fp32" (also "bfloat16", "float16", "float32").
std::optional<ModelDType> parseModelDType(const std::string& text);
std::string toString(ModelDType dtype);
int elementBytes(ModelDType dtype);

struct ModelPlacement {
    ModelDevice device = ModelDevice::Cpu;
    int deviceIndex = 0;
    ModelDType dtype = ModelDType::Float32;
};

struct LoadProgress {
    std::uint64_t bytesDone = 0;
    std::uint64_t bytesTotal = 0;
    std::string tensor; // the tensor being loaded
    int tensorIndex = 0;
    int tensorCount = 0;
};

struct LoadOptions {
    ModelPlacement placement;
    std::function<void(const LoadProgress&)> progress;
    // Checked between tensors; loading ends with LoadCancelled when it is set.
    const std::atomic<bool>* cancel = nullptr;
};

class LoadCancelled : public Error {
public:
    LoadCancelled()
        : Error("loading the model was cancelled") {}
};

// The Qwen3 decoder (which SDAR checkpoints use unchanged) in LibTorch: embedding; per layer
// RMSNorm, fused q/k/v projection, per-head RMSNorm of q and k, rotary embeddings (rotate-half,
// cos/sin in fp32 from absolute positions), grouped-query attention, o_proj, residual, RMSNorm,
// SwiGLU with fused gate/up projection, residual; final RMSNorm and lm_head.
//
// Two ways to run it:
// - forward(): tokens, positions and any boolean attention mask, no cache, differentiable (for
//   training with block-diffusion masks).
// - the cached passes SDAR decoding needs, over a preallocated per-layer key/value cache with one
//   length per row: prefill() of whole blocks with a block-causal mask; blockPass() of one block
//   per row that attends to the row's cache and to the whole block, and that either leaves the
//   cache's length as it was (denoising) or appends the block (commit). The cache is contiguous,
//   [rows, kv_heads, capacity, head_dim], each row holding room for the longest sequence; or
//   paged (CachePaging), [pages, kv_heads, page_tokens, head_dim] with a table of each row's
//   pages, so that a pool of sequences of uneven lengths takes the memory of what they hold
//   rather than rows times the longest.
// A paged key/value cache: `pageTokens` positions a page (a multiple of 32, so that the fused
// attention's chunks of 32 positions never straddle two pages) and `tokens` positions for all
// rows together, in whole pages (0: enough for every row to reach the capacity). pageTokens 0:
// contiguous.
struct CachePaging {
    std::int64_t pageTokens = 0;
    std::int64_t tokens = 0;
};

// Not thread-safe: one owner thread runs it.
class Qwen3Model {
public:
    // Reads config.json, generation_config.json (optional) and model.safetensors or its sharded
    // index from a Hugging Face folder. Every tensor's name and shape is checked against the
    // configuration. Throws FileError naming the file and the problem, LoadCancelled when
    // cancelled.
    static std::unique_ptr<Qwen3Model> load(const std::string& folder, const LoadOptions& options);
    // Random weights (normal with the given deviation, norms around 1) in the configuration's
    // shapes, built directly on the device: for benchmarks and tests.
    static std::unique_ptr<Qwen3Model> random(const ModelConfig& config,
                                              const ModelPlacement& placement, std::uint64_t seed,
                                              double stddev = 0.02);
    // The same model with its weights in `dtype`, in memory of its own on the same device: the
    // RL trainer samples with a bfloat16 copy of its float32 master weights.
    std::unique_ptr<Qwen3Model> copyAs(ModelDType dtype) const;
    // Copies `source`'s weights (the same configuration; any dtype) into this model's own.
    void copyWeightsFrom(const Qwen3Model& source);
    ~Qwen3Model();
    Qwen3Model(const Qwen3Model&) = delete;
    Qwen3Model& operator=(const Qwen3Model&) = delete;

    const ModelConfig& config() const;
    const GenerationConfig& generationConfig() const;
    const ModelPlacement& placement() const;
    // Bytes of all weights in the model's dtype.
    std::uint64_t weightBytes() const;

    // tokens [B,T] int64, positions [B,T] int64, mask [B,1,T,T] bool (true: may attend), or an
    // undefined mask for full attention. Returns logits [B,T,vocab] in float32. Autograd flows to
    // parameters() when grad mode is on.
    at::Tensor forward(const at::Tensor& tokens, const at::Tensor& positions,
                       const at::Tensor& mask) const;
    // The same, with logits only for the cells `rows` (int64 flat indices into B * T): [rows,
    // vocab] float32. A trainer that scores a few cells of a long input skips the output layer
    // everywhere else.
    at::Tensor forward(const at::Tensor& tokens, const at::Tensor& positions,
                       const at::Tensor& mask, const at::Tensor& rows) const;
    // Gradient checkpointing: while on, a differentiable forward() keeps only each layer's input
    // and runs the layer again in the backward pass, trading about a third more arithmetic for
    // activation memory that no longer grows with the number of layers. Off by default.
    void setGradientCheckpointing(bool enabled);
    bool gradientCheckpointing() const;
    // Masked attention in chunks of `rows` queries, each over only the keys some query of the
    // chunk may see (the mask's columns that are not all false there): the same result, and far
    // less work for a sparse mask such as the doubled block-diffusion layout of training (about a
    // quarter of it true). 0, the default, attends over every key at once.
    void setMaskedAttentionChunk(std::int64_t rows);
    std::int64_t maskedAttentionChunk() const;

    // Allocates (zeroed) the key/value cache for `rows` sequences of up to `capacity` tokens and
    // sets every length to 0; paged as `paging` says.
    void allocateCache(std::int64_t rows, std::int64_t capacity, const CachePaging& paging = {});
    // Sets every row's length to 0 and returns every page, keeping the memory (and graphs).
    void clearCache();
    std::int64_t cacheRows() const;
    std::int64_t cacheCapacity() const;
    const std::vector<std::int64_t>& cacheLengths() const;
    bool cachePaged() const;
    // The cache's pages: positions a page (the capacity when contiguous), pages in all, pages no
    // row holds (contiguous: every row holds its own), and the most ever held at once.
    std::int64_t cachePageTokens() const;
    std::int64_t cachePages() const;
    std::int64_t cacheFreePages() const;
    std::int64_t cachePeakPages() const;
    // Pages a sequence of `tokens` positions takes.
    std::int64_t cachePagesFor(std::int64_t tokens) const;
    // Empties `row` (length 0, its pages returned) and gives it the pages of `tokens` positions,
    // so that its prefill and passes up to that length need no more. Throws Error when the cache
    // has too few free pages or `tokens` exceeds the capacity.
    void reserveCacheRow(std::int64_t row, std::int64_t tokens);
    // Empties `row`: length 0 and, paged, its pages returned.
    void releaseCacheRow(std::int64_t row);
    // Writes tokens.size(0) rows from firstRow on, each from position 0: row firstRow + i holds
    // lengths[i] tokens (positions past it are padding), attending block-causally in blocks of
    // blockLength. Whatever the rows held before is gone: a finished sequence's row takes a new
    // prompt while the other rows keep decoding. A paged row keeps the pages it has and takes
    // more where its length needs them (Error when none is free).
    void prefill(const at::Tensor& tokens, const std::vector<std::int64_t>& lengths,
                 std::int64_t blockLength, std::int64_t firstRow = 0);
    // One block per row for the first tokens.size(0) rows, at positions length .. length+T-1.
    // Rows with commit[i] set have the block appended to their cache (length += T); the others'
    // lengths stay. Returns logits [rows, T, vocab] float32 when wantLogits, else undefined. Paged
    // rows take the pages the block needs (Error when none is free).
    at::Tensor blockPass(const at::Tensor& tokens, const std::vector<std::uint8_t>& commit,
                         bool wantLogits);
    // Moves a row's cache and length to another row (to keep the active rows first); paged, the
    // pages change hands without a copy, `to`'s own are returned and `from` is left empty.
    void moveCacheRow(std::int64_t from, std::int64_t to);
    // Replay block passes on CUDA from captured graphs (on by default where LibTorch has CUDA).
    void setCudaGraphs(bool enabled);
    bool cudaGraphsActive() const;
    // Decoding passes on CUDA through fused kernels for the small per-token steps (on by default;
    // see decode_kernels.h). Where the kernels cannot be built, the passes use LibTorch operators
    // alone and fusedKernelsProblem() says why.
    void setFusedKernels(bool enabled);
    // With the fused kernels, a pass of at most eight rows (rows times block) computes its layers'
    // products with the fused kernel for few rows instead of cuBLAS (off by default; `dice bench
    // model` times both).
    void setSmallRowProducts(bool enabled);
    // Whether decoding passes use the fused kernels; builds them on first call on CUDA.
    bool fusedKernelsActive();
    std::string fusedKernelsProblem() const;

    // The weights under their Hugging Face names; the q/k/v and gate/up entries are views into
    // the fused tensors.
    std::vector<std::pair<std::string, at::Tensor>> namedWeights() const;
    // The tensors an optimizer updates (the fused ones).
    std::vector<at::Tensor> parameters() const;

private:
    struct Impl;
    friend struct LayerCheckpoint;
    explicit Qwen3Model(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> d;
};

} // namespace dice
