// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/decode_kernels.h"

#include "core/common/error.h"
#include "core/cuda/cuda_context.h"
#include "core/cuda/device_info.h"
#include "core/cuda/nvrtc_compiler.h"

#include <algorithm>
#include <vector>

namespace dice {

namespace {

// No toolkit header is included: NVRTC finds none on a machine with only the driver, so the
// 16-bit conversions are written as the PTX instructions LibTorch's own conversions compile to
// (round to nearest even).
const char* const kSource = R"CUDA(
#if DICE_ELEMENT == 0
typedef float elem;
__device__ __forceinline__ float load(elem v) { return v; }
__device__ __forceinline__ elem store(float v) { return v; }
#elif DICE_ELEMENT == 1
typedef unsigned short elem;
__device__ __forceinline__ float load(elem v) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v));
    return f;
}
__device__ __forceinline__ elem store(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
#else
typedef unsigned short elem;
__device__ __forceinline__ float load(elem v) { return __uint_as_float(((unsigned)v) << 16); }
__device__ __forceinline__ elem store(float f) {
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
#endif

// A value as the model's dtype holds it.
__device__ __forceinline__ float rounded(float v) { return load(store(v)); }

// Sum over the block; blockDim.x is a multiple of 32.
__device__ float blockSum(float v, float* partial) {
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0)
        partial[threadIdx.x >> 5] = v;
    __syncthreads();
    float total = 0.0f;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w)
        total += partial[w];
    __syncthreads();
    return total;
}

// One block per row.
extern "C" __global__ void add_rms_norm(const elem* x, const elem* delta, elem* sum,
                                        const elem* weight, elem* y, int cols, float eps) {
    __shared__ float partial[32];
    const long long base = (long long)blockIdx.x * cols;
    float squares = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = load(x[base + c]);
        if (delta) {
            v = rounded(v + load(delta[base + c]));
            sum[base + c] = store(v);
        }
        squares += v * v;
    }
    const float inverse = rsqrtf(blockSum(squares, partial) / (float)cols + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = delta ? load(sum[base + c]) : load(x[base + c]);
        y[base + c] = store(load(weight[c]) * rounded(v * inverse));
    }
}

// Where position `position` of a row's kv head starts in a cache of pages [page, kvHeads,
// pageTokens, dim]: the row's table (tablePages entries) names the page. A contiguous cache is the
// same with one page a row of the capacity's length.
__device__ __forceinline__ long long cacheOffset(const int* pageTable, int tablePages,
                                                 long long pageTokens, int row, int kvHeads,
                                                 int kv, long long position, int dim) {
    const long long page = pageTable[(long long)row * tablePages + position / pageTokens];
    return ((page * kvHeads + kv) * pageTokens + position % pageTokens) * dim;
}

// One block per (token, head) of the fused q/k/v projection; one thread per element of the head.
extern "C" __global__ void qk_norm_rope(const elem* qkv, const elem* qWeight, const elem* kWeight,
                                        const long long* starts, const float* invFreq,
                                        elem* query, elem* cacheK, elem* cacheV,
                                        const int* pageTable, int tablePages,
                                        long long pageTokens, int block, int heads, int kvHeads,
                                        int dim, float eps) {
    __shared__ float partial[32];
    __shared__ float normed[512];
    const int all = heads + 2 * kvHeads;
    const int head = blockIdx.x % all;
    const int token = blockIdx.x / all;
    const int row = token / block, t = token % block;
    const long long position = starts[row] + t;
    const int d = threadIdx.x;
    const bool active = d < dim;
    const long long source = (long long)blockIdx.x * dim + d;
    if (head >= heads + kvHeads) {
        if (active)
            cacheV[cacheOffset(pageTable, tablePages, pageTokens, row, kvHeads,
                               head - heads - kvHeads, position, dim) +
                   d] = qkv[source];
        return;
    }
    const float value = active ? load(qkv[source]) : 0.0f;
    const float inverse = rsqrtf(blockSum(value * value, partial) / (float)dim + eps);
    const elem* weight = head < heads ? qWeight : kWeight;
    const float n = active ? rounded(load(weight[d]) * rounded(value * inverse)) : 0.0f;
    if (active)
        normed[d] = n;
    __syncthreads();
    if (!active)
        return;
    // rotate_half: the first half takes the negated second half, the second half the first.
    const int half = dim / 2;
    const float angle = (float)position * invFreq[d % half];
    const float c = rounded(cosf(angle));
    const float s = rounded(sinf(angle));
    const float partner = d < half ? -normed[d + half] : normed[d - half];
    const elem out = store(rounded(n * c) + rounded(partner * s));
    if (head < heads) {
        const int group = heads / kvHeads;
        const int kv = head / group, member = head % group;
        query[((((long long)row * kvHeads + kv) * group + member) * block + t) * dim + d] = out;
    } else {
        cacheK[cacheOffset(pageTable, tablePages, pageTokens, row, kvHeads, head - heads,
                           position, dim) +
               d] = out;
    }
}

extern "C" __global__ void silu_mul(const elem* gateUp, elem* out, int inter, long long total) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total)
        return;
    const long long row = i / inter, col = i % inter;
    const float g = load(gateUp[row * 2 * inter + col]);
    const float u = load(gateUp[row * 2 * inter + inter + col]);
    out[i] = store(rounded(g / (1.0f + expf(-g))) * u);
}
// Attention of a block's folded queries over the cache, in two launches: attend_chunk scores one
// chunk of kAttendChunk cache positions for every query of one (row, kv head) and keeps the
// chunk's softmax state (its maximum, its sum and the weighted sum of values, in float32);
// attend_combine merges the chunks of a query and writes it where the output projection reads it,
// [rows, block, heads * dim]. Chunks start at fixed positions whatever the span, so a row's result
// does not depend on the other rows of the batch: a chunk past a row's keys adds exact zeros. A
// page holds a whole number of chunks, so a chunk's positions are contiguous in one page.
//
// A chunk's keys and values are staged in shared memory with 16-byte loads all issued at once:
// a block has few warps, and a loop that waits for each load in turn (the first version of this
// kernel) spent forty microseconds a layer on latency.
#define kAttendChunk 32
#define kAttendThreads 128
#define kHeadDim DICE_HEAD_DIM
// Each lane holds these many elements of a key.
#define kKeyParts ((kHeadDim + 31) / 32)
// 16-byte vectors per row of keys or values, and per chunk.
#define kRowVectors (kHeadDim * (int)sizeof(elem) / 16)
#define kChunkVectors (kAttendChunk * kRowVectors)

__device__ __forceinline__ float negativeInfinity() { return __int_as_float(0xff800000); }

extern "C" __global__ void __launch_bounds__(kAttendThreads)
attend_chunk(const elem* query, const elem* cacheK, const elem* cacheV, const int* pageTable,
             int tablePages, long long pageTokens, const long long* starts, float* partial,
             int queries, int block, int kvHeads, int span, float scale) {
    extern __shared__ uint4 staged[];
    elem* keys = (elem*)staged;                               // [kAttendChunk][kHeadDim]
    elem* values = keys + kAttendChunk * kHeadDim;            // [kAttendChunk][kHeadDim]
    float* q = (float*)(values + kAttendChunk * kHeadDim);    // [queries][kHeadDim]
    float* probabilities = q + queries * kHeadDim;            // [queries][kAttendChunk]
    const int chunk = blockIdx.x, kv = blockIdx.y, row = blockIdx.z;
    const int chunks = gridDim.x;
    const long long limit = min((long long)span, starts[row] + block);
    const int first = chunk * kAttendChunk;
    const int count = (int)max(0LL, min((long long)kAttendChunk, limit - first));
    const long long head = (long long)row * kvHeads + kv;
    // A chunk past the row's keys reads nothing, nor the table entry past the row's pages.
    const long long offset =
        count > 0 ? cacheOffset(pageTable, tablePages, pageTokens, row, kvHeads, kv, first,
                                kHeadDim)
                  : 0;
    const uint4* keySource = (const uint4*)(cacheK + offset);
    const uint4* valueSource = (const uint4*)(cacheV + offset);
    const uint4 zero = make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
    for (int step = 0; step < (kChunkVectors + kAttendThreads - 1) / kAttendThreads; ++step) {
        const int v = threadIdx.x + step * kAttendThreads;
        if (v < kChunkVectors) {
            const bool present = v / kRowVectors < count;
            staged[v] = present ? keySource[v] : zero;
            staged[kChunkVectors + v] = present ? valueSource[v] : zero;
        }
    }
    const elem* own = query + head * queries * kHeadDim;
    for (int i = threadIdx.x; i < queries * kHeadDim; i += kAttendThreads)
        q[i] = load(own[i]);
    __syncthreads();

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int warps = kAttendThreads / 32;
    for (int j = warp; j < kAttendChunk; j += warps) {
        if (j >= count) {
            if (lane == 0)
                for (int i = 0; i < queries; ++i)
                    probabilities[i * kAttendChunk + j] = negativeInfinity();
            continue;
        }
        float k[kKeyParts];
#pragma unroll
        for (int e = 0; e < kKeyParts; ++e) {
            const int d = lane + 32 * e;
            k[e] = d < kHeadDim ? load(keys[j * kHeadDim + d]) : 0.0f;
        }
        for (int i = 0; i < queries; ++i) {
            float dot = 0.0f;
#pragma unroll
            for (int e = 0; e < kKeyParts; ++e) {
                const int d = lane + 32 * e;
                if (d < kHeadDim)
                    dot += q[i * kHeadDim + d] * k[e];
            }
            for (int offset = 16; offset > 0; offset >>= 1)
                dot += __shfl_xor_sync(0xffffffffu, dot, offset);
            if (lane == 0)
                probabilities[i * kAttendChunk + j] = dot * scale;
        }
    }
    __syncthreads();

    // One lane per position of the chunk (kAttendChunk is a warp).
    float* out = partial + ((head * chunks + chunk) * queries) * (long long)(kHeadDim + 2);
    for (int i = warp; i < queries; i += warps) {
        const float s = probabilities[i * kAttendChunk + lane];
        float m = s;
        for (int offset = 16; offset > 0; offset >>= 1)
            m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
        const float p = m == negativeInfinity() ? 0.0f : expf(s - m);
        probabilities[i * kAttendChunk + lane] = p;
        float sum = p;
        for (int offset = 16; offset > 0; offset >>= 1)
            sum += __shfl_xor_sync(0xffffffffu, sum, offset);
        if (lane == 0) {
            out[(long long)i * (kHeadDim + 2)] = m;
            out[(long long)i * (kHeadDim + 2) + 1] = sum;
        }
    }
    __syncthreads();

    for (int index = threadIdx.x; index < queries * kHeadDim; index += kAttendThreads) {
        const int i = index / kHeadDim, d = index % kHeadDim;
        const float* p = probabilities + i * kAttendChunk;
        float acc = 0.0f;
#pragma unroll
        for (int j = 0; j < kAttendChunk; ++j)
            acc += p[j] * load(values[j * kHeadDim + d]);
        out[(long long)i * (kHeadDim + 2) + 2 + d] = acc;
    }
}

// One block per (row, kv head, folded query); one thread per element of the head.
extern "C" __global__ void attend_combine(const float* partial, elem* out, int chunks, int queries,
                                          int block, int heads, int kvHeads, int dim) {
    const int i = blockIdx.x % queries;
    const long long head = blockIdx.x / queries;
    const int kv = (int)(head % kvHeads);
    const long long row = head / kvHeads;
    const int d = threadIdx.x;
    if (d >= dim)
        return;
    const long long stride = (long long)queries * (dim + 2);
    const float* first = partial + head * chunks * stride + (long long)i * (dim + 2);
    float m = negativeInfinity();
    for (int c = 0; c < chunks; ++c)
        m = fmaxf(m, first[c * stride]);
    float sum = 0.0f, acc = 0.0f;
    if (m != negativeInfinity()) {
        for (int c = 0; c < chunks; ++c) {
            const float* part = first + c * stride;
            const float weight = part[0] == negativeInfinity() ? 0.0f : expf(part[0] - m);
            sum += part[1] * weight;
            acc += part[2 + d] * weight;
        }
    }
    const int group = heads / kvHeads;
    const int member = i / block, t = i % block;
    const int h = kv * group + member;
    out[((row * block + t) * heads + h) * (long long)dim + d] = store(sum > 0.0f ? acc / sum : 0.0f);
}
// y[r, j] = x[r, :] . w[j, :] (+ bias[j]) for a few rows: one warp per output column, the lanes
// taking the row of w in 16-byte pieces (several in flight each), accumulated in float32 and
// rounded once, as the matrix product rounds. At four rows a product is a stream of its weights;
// this is the alternative to cuBLAS's kernels for that shape that the model benchmark times.
#define kSmallRows 8
#define kPiece (16 / (int)sizeof(elem))

extern "C" __global__ void __launch_bounds__(256)
small_rows_linear(const elem* x, const elem* w, const elem* bias, elem* y, int rows, int n, int k) {
    const int lane = threadIdx.x & 31;
    const int j = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (j >= n)
        return;
    float acc[kSmallRows];
#pragma unroll
    for (int r = 0; r < kSmallRows; ++r)
        acc[r] = 0.0f;
    const uint4* weights = (const uint4*)(w + (long long)j * k);
    const int pieces = k / kPiece;
#pragma unroll 4
    for (int p = lane; p < pieces; p += 32) {
        const uint4 wv = weights[p];
        const elem* we = (const elem*)&wv;
#pragma unroll
        for (int r = 0; r < kSmallRows; ++r) {
            if (r < rows) {
                const uint4 xv = ((const uint4*)(x + (long long)r * k))[p];
                const elem* xe = (const elem*)&xv;
#pragma unroll
                for (int e = 0; e < kPiece; ++e)
                    acc[r] += load(xe[e]) * load(we[e]);
            }
        }
    }
#pragma unroll
    for (int r = 0; r < kSmallRows; ++r) {
        if (r < rows) {
            float v = acc[r];
            for (int offset = 16; offset > 0; offset >>= 1)
                v += __shfl_xor_sync(0xffffffffu, v, offset);
            if (lane == 0)
                y[(long long)r * n + j] = store(v + (bias ? load(bias[j]) : 0.0f));
        }
    }
}
)CUDA";

unsigned threadsFor(std::int64_t elements, unsigned most) {
    const auto wanted = static_cast<unsigned>(std::min<std::int64_t>(elements, most));
    return std::max(32u, (wanted + 31) / 32 * 32);
}

void launch(cu::Function function, std::int64_t blocks, unsigned threads, cu::Stream stream,
            std::vector<void*> parameters) {
    const unsigned grid[3] = {static_cast<unsigned>(blocks), 1, 1};
    const unsigned block[3] = {threads, 1, 1};
    launchKernel(function, grid, block, 0, stream, parameters);
}

// Must match kSmallRows in the kernels' source.
constexpr std::int64_t kSmallRows = 8;
// Must match kAttendChunk and kAttendThreads in the kernels' source.
constexpr std::int64_t kAttendChunk = 32;
constexpr unsigned kAttendThreads = 128;
// The static limit of a block's shared memory, which needs no opt-in on any GPU.
constexpr std::int64_t kAttendSharedBytes = 48 * 1024;

std::int64_t elementBytes(DecodeKernels::Element element) {
    return element == DecodeKernels::Element::Float32 ? 4 : 2;
}

// The staged keys and values of a chunk, the queries and the chunk's probabilities in float32.
std::int64_t attendSharedBytes(DecodeKernels::Element element, std::int64_t queries,
                               std::int64_t dim) {
    return 2 * kAttendChunk * dim * elementBytes(element) +
           queries * (dim + kAttendChunk) * static_cast<std::int64_t>(sizeof(float));
}

} // namespace

std::string DecodeKernels::source() {
    return kSource;
}

std::string DecodeKernels::elementOption(Element element) {
    switch (element) {
    case Element::Float32:
        return "-DDICE_ELEMENT=0";
    case Element::Float16:
        return "-DDICE_ELEMENT=1";
    case Element::BFloat16:
        break;
    }
    return "-DDICE_ELEMENT=2";
}

CompileResult DecodeKernels::compile(Element element, const std::string& architecture,
                                     int headDim) {
    static NvrtcCompiler compiler(8);
    CompileOptions options;
    options.architecture = architecture;
    options.lineInfo = false;
    options.extraOptions = {elementOption(element), "-DDICE_HEAD_DIM=" + std::to_string(headDim)};
    return compiler.compile(kSource, "decode_kernels.cu", options);
}

DecodeKernels::DecodeKernels(Element element, int deviceIndex, int headDim)
    : m_element(element)
    , m_headDim(headDim) {
    if (headDim <= 0 || headDim > kMaxHeadDim || headDim % 2 != 0)
        throw Error("fused decoding kernels: head dimension " + std::to_string(headDim) +
                    " is not supported");
    const DeviceInfo device = deviceForRuntimeKernels(deviceIndex, "fused decoding kernels");
    if (device.computeMajor < 8)
        throw Error("fused decoding kernels need sm_80 or newer, GPU " +
                    std::to_string(deviceIndex) + " is " + device.architecture());
    const auto result = compile(element, device.architecture(), headDim);
    if (!result.ok)
        throw Error("fused decoding kernels did not compile: " + result.log);
    m_context = std::make_unique<CudaContext>(deviceIndex);
    m_module = std::make_unique<CudaModule>(result.cubin.empty() ? result.ptx : result.cubin);
    m_addRmsNorm = m_module->function("add_rms_norm");
    m_qkNormRope = m_module->function("qk_norm_rope");
    m_siluMul = m_module->function("silu_mul");
    m_attendChunk = m_module->function("attend_chunk");
    m_attendCombine = m_module->function("attend_combine");
    m_smallRowsLinear = m_module->function("small_rows_linear");
}

DecodeKernels::~DecodeKernels() = default;

void DecodeKernels::addRmsNorm(cu::Stream stream, const void* x, const void* delta, void* sum,
                               const void* weight, void* y, std::int64_t rows, std::int64_t cols,
                               float eps) const {
    int c = static_cast<int>(cols);
    launch(m_addRmsNorm, rows, threadsFor(cols, 1024), stream,
           {&x, &delta, &sum, &weight, &y, &c, &eps});
}

void DecodeKernels::qkNormRope(cu::Stream stream, const QkNormRope& a) const {
    if (a.layout.dim > kMaxHeadDim || a.layout.dim % 2 != 0 || a.layout.kvHeads <= 0 ||
        a.layout.heads % a.layout.kvHeads != 0)
        throw Error("fused decoding kernels: unsupported head layout");
    const void* qkv = a.qkv;
    const void* qWeight = a.qWeight;
    const void* kWeight = a.kWeight;
    const void* starts = a.starts;
    const void* invFreq = a.invFreq;
    void* query = a.query;
    void* cacheK = a.cacheK;
    void* cacheV = a.cacheV;
    const void* pageTable = a.pageTable;
    int tablePages = static_cast<int>(a.layout.tablePages);
    long long pageTokens = a.layout.pageTokens;
    int block = static_cast<int>(a.layout.block), heads = static_cast<int>(a.layout.heads),
        kvHeads = static_cast<int>(a.layout.kvHeads), dim = static_cast<int>(a.layout.dim);
    float eps = a.eps;
    launch(m_qkNormRope, a.layout.rows * a.layout.block * (a.layout.heads + 2 * a.layout.kvHeads),
           threadsFor(a.layout.dim, 1024), stream,
           {&qkv, &qWeight, &kWeight, &starts, &invFreq, &query, &cacheK, &cacheV, &pageTable,
            &tablePages, &pageTokens, &block, &heads, &kvHeads, &dim, &eps});
}

void DecodeKernels::siluMul(cu::Stream stream, const void* gateUp, void* out, std::int64_t rows,
                            std::int64_t inter) const {
    int i = static_cast<int>(inter);
    long long total = rows * inter;
    constexpr unsigned kThreads = 256;
    launch(m_siluMul, (total + kThreads - 1) / kThreads, kThreads, stream,
           {&gateUp, &out, &i, &total});
}

bool DecodeKernels::attendFits(std::int64_t queries) const {
    // Rows of keys are copied in 16-byte pieces.
    return queries > 0 && m_headDim * elementBytes(m_element) % 16 == 0 &&
           attendSharedBytes(m_element, queries, m_headDim) <= kAttendSharedBytes;
}

std::int64_t DecodeKernels::attendChunks(std::int64_t span) {
    return (span + kAttendChunk - 1) / kAttendChunk;
}

std::int64_t DecodeKernels::attendWorkspace(std::int64_t rows, std::int64_t kvHeads,
                                            std::int64_t queries, std::int64_t dim,
                                            std::int64_t span) {
    return rows * kvHeads * attendChunks(span) * queries * (dim + 2);
}

void DecodeKernels::attend(cu::Stream stream, const Attend& a) const {
    const std::int64_t queries =
        a.layout.block * (a.layout.heads / std::max<std::int64_t>(a.layout.kvHeads, 1));
    if (a.layout.kvHeads <= 0 || a.layout.heads % a.layout.kvHeads != 0 ||
        a.layout.dim != m_headDim || !attendFits(queries) || a.span <= 0 ||
        a.span > a.layout.pageTokens * a.layout.tablePages ||
        (a.layout.tablePages > 1 && a.layout.pageTokens % kAttendChunk != 0))
        throw Error("fused decoding kernels: unsupported attention layout");
    const void* query = a.query;
    const void* cacheK = a.cacheK;
    const void* cacheV = a.cacheV;
    const void* pageTable = a.pageTable;
    int tablePages = static_cast<int>(a.layout.tablePages);
    long long pageTokens = a.layout.pageTokens;
    const void* starts = a.starts;
    void* partial = a.workspace;
    void* out = a.out;
    int q = static_cast<int>(queries), block = static_cast<int>(a.layout.block),
        heads = static_cast<int>(a.layout.heads), kvHeads = static_cast<int>(a.layout.kvHeads),
        dim = static_cast<int>(a.layout.dim), span = static_cast<int>(a.span),
        chunks = static_cast<int>(attendChunks(a.span));
    float scale = a.scale;
    const unsigned grid[3] = {static_cast<unsigned>(chunks),
                              static_cast<unsigned>(a.layout.kvHeads),
                              static_cast<unsigned>(a.layout.rows)};
    const unsigned threads[3] = {kAttendThreads, 1, 1};
    std::vector<void*> parameters = {&query,      &cacheK, &cacheV,  &pageTable, &tablePages,
                                     &pageTokens, &starts, &partial, &q,         &block,
                                     &kvHeads,    &span,   &scale};
    launchKernel(m_attendChunk, grid, threads,
                 static_cast<unsigned>(attendSharedBytes(m_element, queries, a.layout.dim)), stream,
                 parameters);
    launch(m_attendCombine, a.layout.rows * a.layout.kvHeads * queries,
           threadsFor(a.layout.dim, 1024), stream,
           {&partial, &out, &chunks, &q, &block, &heads, &kvHeads, &dim});
}

bool DecodeKernels::smallRowsFit(std::int64_t rows, std::int64_t k) const {
    // Rows of x and w are read in 16-byte pieces.
    return rows > 0 && rows <= kSmallRows && k > 0 && k * elementBytes(m_element) % 16 == 0;
}

void DecodeKernels::smallRowsLinear(cu::Stream stream, const void* x, const void* w,
                                    const void* bias, void* y, std::int64_t rows, std::int64_t n,
                                    std::int64_t k) const {
    if (!smallRowsFit(rows, k) || n <= 0)
        throw Error("fused decoding kernels: unsupported product shape");
    int r = static_cast<int>(rows), columns = static_cast<int>(n), depth = static_cast<int>(k);
    constexpr unsigned kThreads = 256;
    constexpr std::int64_t kColumnsPerBlock = kThreads / 32;
    launch(m_smallRowsLinear, (n + kColumnsPerBlock - 1) / kColumnsPerBlock, kThreads, stream,
           {&x, &w, &bias, &y, &r, &columns, &depth});
}

} // namespace dice
