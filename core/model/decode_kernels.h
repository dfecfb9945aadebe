// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/compile_types.h"
#include "core/cuda/cuda_driver.h"

#include <cstdint>
#include <memory>
#include <string>

namespace dice {

class CudaContext;
class CudaModule;

// Fused CUDA kernels for the decoder's small per-token steps during block decoding. At batch 1 a
// denoising pass of a 4-token block is a few dozen matrix products and, done with one LibTorch
// operator per step, some fifty tiny element-wise kernels per layer whose launch latency adds up
// to as much as the weight streaming itself. These kernels do each step in one launch with the
// rounding of the operator sequence they replace (every intermediate rounded to the model's
// dtype where LibTorch rounds it), so that their results stay within the dtype's rounding of the
// unfused pass.
//
// Built with NVRTC for the GPU's architecture at run time (no toolkit at build time); every
// pointer is device memory of the element type the object was made for, rows contiguous.
class DecodeKernels {
public:
    enum class Element { Float32, Float16, BFloat16 };

    // The kernels' source for one element type (the macro DICE_ELEMENT picks it).
    static std::string source();
    static std::string elementOption(Element element);
    // Compiles the source for one head dimension (for tests and the self-test; no GPU needed).
    static CompileResult compile(Element element, const std::string& architecture,
                                 int headDim = 128);

    // Compiles for the device and loads the module into its primary context. Throws Error when
    // the driver, NVRTC or the architecture (sm_80 or newer) is missing.
    DecodeKernels(Element element, int deviceIndex, int headDim);
    ~DecodeKernels();
    DecodeKernels(const DecodeKernels&) = delete;
    DecodeKernels& operator=(const DecodeKernels&) = delete;

    Element element() const { return m_element; }
    int headDim() const { return m_headDim; }
    // Largest head dimension qkNormRope handles.
    static constexpr int kMaxHeadDim = 512;

    // sum = x + delta (rounded), y = weight * rmsnorm(sum) for each of `rows` rows of `cols`;
    // with delta null, y = weight * rmsnorm(x) and sum is not written.
    void addRmsNorm(cu::Stream stream, const void* x, const void* delta, void* sum,
                    const void* weight, void* y, std::int64_t rows, std::int64_t cols,
                    float eps) const;

    // The shape of a decoding pass both qkNormRope and attend read: `rows` sequences of a
    // `block` of tokens, the heads, and the cache's pages: `pageTokens` positions each, a row's
    // table naming `tablePages` of them (a contiguous cache: one page a row, of the capacity).
    struct BlockLayout {
        std::int64_t rows = 0;
        std::int64_t block = 0;
        std::int64_t heads = 0;
        std::int64_t kvHeads = 0;
        std::int64_t dim = 0;
        std::int64_t pageTokens = 0;
        std::int64_t tablePages = 0;
    };

    struct QkNormRope {
        const void* qkv = nullptr;            // [rows * block, heads + 2 kv_heads, dim]
        const void* qWeight = nullptr;        // [dim]
        const void* kWeight = nullptr;        // [dim]
        const std::int64_t* starts = nullptr; // [rows]: position of each row's first token
        const float* invFreq = nullptr;       // [dim / 2]
        void* query = nullptr; // out: [rows, kv_heads, group * block, dim], queries folded by group
        void* cacheK =
            nullptr; // [pages, kv_heads, page_tokens, dim]: written at the block's places
        void* cacheV = nullptr;
        const std::int32_t* pageTable = nullptr; // [rows, table_pages]: each row's pages in order
        BlockLayout layout;
        float eps = 1e-6f;
    };
    // Per-head RMSNorm of q and k, rotary embedding at each token's position, queries written
    // folded for grouped attention, keys and values written into the cache.
    void qkNormRope(cu::Stream stream, const QkNormRope& args) const;

    // out[r, i] = silu(gateUp[r, i]) * gateUp[r, inter + i].
    void siluMul(cu::Stream stream, const void* gateUp, void* out, std::int64_t rows,
                 std::int64_t inter) const;

    struct Attend {
        const void* query = nullptr;  // [rows, kv_heads, group * block, dim], as qkNormRope writes
        const void* cacheK = nullptr; // [pages, kv_heads, page_tokens, dim]
        const void* cacheV = nullptr;
        const std::int32_t* pageTable = nullptr; // [rows, table_pages]
        const std::int64_t* starts = nullptr;    // [rows]: position of each row's first token
        float* workspace = nullptr;              // attendWorkspace(...) floats
        void* out = nullptr;                     // [rows, block, heads * dim]
        BlockLayout layout;
        std::int64_t span = 0; // cache positions read; each row reads those before start + block
        float scale = 1.0f;
    };
    // Whether attend handles `queries` folded queries (group * block) of this head size.
    bool attendFits(std::int64_t queries) const;
    static std::int64_t attendChunks(std::int64_t span);
    // Floats of the workspace attend needs.
    static std::int64_t attendWorkspace(std::int64_t rows, std::int64_t kvHeads,
                                        std::int64_t queries, std::int64_t dim, std::int64_t span);
    // Grouped-query attention of the block over the cache, written in the layout the output
    // projection reads, in two launches whose work does not depend on the batch's other rows.
    void attend(cu::Stream stream, const Attend& args) const;

    // Whether smallRowsLinear handles `rows` rows of `k` elements.
    bool smallRowsFit(std::int64_t rows, std::int64_t k) const;
    // y [rows, n] = x [rows, k] times w [n, k] transposed, plus bias [n] when not null: the
    // products of a decoding pass of a few rows, as weight streams.
    void smallRowsLinear(cu::Stream stream, const void* x, const void* w, const void* bias, void* y,
                         std::int64_t rows, std::int64_t n, std::int64_t k) const;

private:
    Element m_element;
    int m_headDim;
    std::unique_ptr<CudaContext> m_context;
    std::unique_ptr<CudaModule> m_module;
    cu::Function m_addRmsNorm = nullptr;
    cu::Function m_qkNormRope = nullptr;
    cu::Function m_siluMul = nullptr;
    cu::Function m_attendChunk = nullptr;
    cu::Function m_attendCombine = nullptr;
    cu::Function m_smallRowsLinear = nullptr;
};

} // namespace dice
