// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/diffusion/fused_cell_sampler.h"

#include "core/common/error.h"
#include "core/cuda/cuda_context.h"
#include "core/cuda/device_info.h"
#include "core/cuda/nvrtc_compiler.h"

#include <limits>
#include <vector>

namespace dice {

namespace {

// Must match THREADS in the source.
constexpr unsigned kThreads = 256;

const char* const kSource = R"CUDA(
#define THREADS 256
#define WARPS (THREADS / 32)

// A float's bits as an unsigned integer of the same order: larger floats, larger keys.
__device__ __forceinline__ unsigned orderedKey(float f) {
    const unsigned b = __float_as_uint(f);
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

// A mass in [0, 1] in 2^-40 fixed point: integer sums do not depend on the order of additions.
__device__ __forceinline__ unsigned long long fixedMass(float e) {
    return (unsigned long long)((double)e * 1099511627776.0);
}

__device__ float blockMax(float v, float* partial) {
    for (int offset = 16; offset > 0; offset >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    if ((threadIdx.x & 31) == 0)
        partial[threadIdx.x >> 5] = v;
    __syncthreads();
    float r = partial[0];
    for (int w = 1; w < WARPS; ++w)
        r = fmaxf(r, partial[w]);
    __syncthreads();
    return r;
}

__device__ float blockSum(float v, float* partial) {
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0)
        partial[threadIdx.x >> 5] = v;
    __syncthreads();
    float r = 0.0f;
    for (int w = 0; w < WARPS; ++w)
        r += partial[w];
    __syncthreads();
    return r;
}

__device__ unsigned long long blockSumFixed(unsigned long long v, unsigned long long* partial) {
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0)
        partial[threadIdx.x >> 5] = v;
    __syncthreads();
    unsigned long long r = 0;
    for (int w = 0; w < WARPS; ++w)
        r += partial[w];
    __syncthreads();
    return r;
}

// One block per cell. `keep` is the smallest key of the kept set: the k-th largest scaled logit
// (top-k), raised to the key where the mass before it in descending order first passes top-p
// of the kept mass (top-p); both found digit by digit, eight bits a pass, from histograms of the
// candidates that share the digits found so far. Without a bound on blocks per multiprocessor
// ptxas fits the kernel in 32 registers for full occupancy and spills.
extern "C" __global__ void __launch_bounds__(THREADS, 1)
sample_cells(const float* logits, long long stride, int width, const float* uniforms,
             float inverseTemperature, int topK, float topP, int maskId, int rawConfidence,
             int wantEntropy, long long* tokens, float* confidence, float* entropies) {
    __shared__ float floatPartial[WARPS];
    __shared__ unsigned long long fixedPartial[WARPS];
    __shared__ unsigned long long histogram[256];
    __shared__ unsigned chosenPrefix;
    __shared__ unsigned long long chosenAbove;
    __shared__ int allKept;
    __shared__ int found;
    const float* row = logits + (long long)blockIdx.x * stride;
    const float negInf = __int_as_float(0xff800000);
    const int tid = threadIdx.x;
#define SCALED(i) ((i) == maskId ? negInf : row[i] * inverseTemperature)

    float m = negInf;
    for (int i = tid; i < width; i += THREADS)
        m = fmaxf(m, SCALED(i));
    m = blockMax(m, floatPartial);

    unsigned keep = 0;
    if (topK > 0 && topK < width) {
        unsigned prefix = 0, prefixMask = 0;
        unsigned long long remaining = (unsigned long long)topK;
        for (int shift = 24; shift >= 0; shift -= 8) {
            for (int b = tid; b < 256; b += THREADS)
                histogram[b] = 0;
            __syncthreads();
            for (int i = tid; i < width; i += THREADS) {
                const unsigned key = orderedKey(SCALED(i));
                if ((key & prefixMask) == prefix)
                    atomicAdd(&histogram[(key >> shift) & 255u], 1ull);
            }
            __syncthreads();
            if (tid == 0) {
                unsigned long long above = 0;
                int b = 255;
                for (; b > 0; --b) {
                    if (above + histogram[b] >= remaining)
                        break;
                    above += histogram[b];
                }
                chosenPrefix = prefix | ((unsigned)b << shift);
                chosenAbove = remaining - above;
            }
            __syncthreads();
            prefix = chosenPrefix;
            remaining = chosenAbove;
            prefixMask |= 255u << shift;
            __syncthreads();
        }
        keep = prefix;
    }

    if (topP < 1.0f) {
        unsigned long long kept = 0;
        for (int i = tid; i < width; i += THREADS) {
            const float x = SCALED(i);
            if (orderedKey(x) >= keep)
                kept += fixedMass(expf(x - m));
        }
        kept = blockSumFixed(kept, fixedPartial);
        const unsigned long long budget = (unsigned long long)((double)topP * (double)kept);
        unsigned prefix = 0, prefixMask = 0;
        unsigned long long above = 0;
        int all = 0;
        for (int shift = 24; shift >= 0 && !all; shift -= 8) {
            for (int b = tid; b < 256; b += THREADS)
                histogram[b] = 0;
            __syncthreads();
            for (int i = tid; i < width; i += THREADS) {
                const float x = SCALED(i);
                const unsigned key = orderedKey(x);
                if (key >= keep && (key & prefixMask) == prefix)
                    atomicAdd(&histogram[(key >> shift) & 255u], fixedMass(expf(x - m)));
            }
            __syncthreads();
            if (tid == 0) {
                unsigned long long mass = above;
                int b = 255;
                for (; b >= 0; --b) {
                    if (mass + histogram[b] > budget)
                        break;
                    mass += histogram[b];
                }
                chosenPrefix = prefix | ((unsigned)(b < 0 ? 0 : b) << shift);
                chosenAbove = mass;
                allKept = b < 0;
            }
            __syncthreads();
            prefix = chosenPrefix;
            above = chosenAbove;
            all = allKept;
            prefixMask |= 255u << shift;
            __syncthreads();
        }
        if (!all && prefix > keep)
            keep = prefix;
    }

    // The token by inverse CDF in vocabulary order: each thread sums a contiguous chunk, the
    // chunks are scanned, and the thread whose chunk holds the target finds it.
    const int chunk = (width + THREADS - 1) / THREADS;
    const int begin = min(width, tid * chunk);
    const int end = min(width, begin + chunk);
    unsigned long long mine = 0;
    for (int i = begin; i < end; ++i) {
        const float x = SCALED(i);
        if (orderedKey(x) >= keep)
            mine += fixedMass(expf(x - m));
    }
    unsigned long long inclusive = mine;
    for (int offset = 1; offset < 32; offset <<= 1) {
        const unsigned long long y = __shfl_up_sync(0xffffffffu, inclusive, offset);
        if ((tid & 31) >= offset)
            inclusive += y;
    }
    if ((tid & 31) == 31)
        fixedPartial[tid >> 5] = inclusive;
    if (tid == 0)
        found = -1;
    __syncthreads();
    unsigned long long total = 0, warpBase = 0;
    for (int w = 0; w < WARPS; ++w) {
        if (w < (tid >> 5))
            warpBase += fixedPartial[w];
        total += fixedPartial[w];
    }
    const unsigned long long before = warpBase + inclusive - mine;
    unsigned long long target = (unsigned long long)((double)uniforms[blockIdx.x] * (double)total);
    target = target < 1 ? 1 : (target > total ? total : target);
    if (mine > 0 && before < target && target <= before + mine) {
        unsigned long long mass = before;
        for (int i = begin; i < end; ++i) {
            const float x = SCALED(i);
            if (orderedKey(x) < keep)
                continue;
            mass += fixedMass(expf(x - m));
            if (mass >= target) {
                found = i;
                break;
            }
        }
    }
    __syncthreads();
    const int token = found >= 0 ? found : width - 1;

    float conf, entropy = 0.0f;
    if (!rawConfidence) {
        conf = __fdividef((float)fixedMass(expf(SCALED(token) - m)), (float)total);
        if (wantEntropy) {
            float s = 0.0f, sx = 0.0f;
            for (int i = tid; i < width; i += THREADS) {
                const float x = SCALED(i);
                if (orderedKey(x) < keep)
                    continue;
                const float e = expf(x - m);
                if (e > 0.0f) {
                    s += e;
                    sx += e * (x - m);
                }
            }
            s = blockSum(s, floatPartial);
            sx = blockSum(sx, floatPartial);
            entropy = logf(s) - __fdividef(sx, s);
        }
    } else {
        float mr = negInf;
        for (int i = tid; i < width; i += THREADS)
            mr = fmaxf(mr, i == maskId ? negInf : row[i]);
        mr = blockMax(mr, floatPartial);
        float s = 0.0f, sx = 0.0f;
        for (int i = tid; i < width; i += THREADS) {
            if (i == maskId)
                continue;
            const float e = expf(row[i] - mr);
            if (e > 0.0f) {
                s += e;
                sx += e * (row[i] - mr);
            }
        }
        s = blockSum(s, floatPartial);
        sx = blockSum(sx, floatPartial);
        conf = __fdividef(expf(row[token] - mr), s);
        entropy = logf(s) - __fdividef(sx, s);
    }
#undef SCALED
    if (tid == 0) {
        tokens[blockIdx.x] = token;
        confidence[blockIdx.x] = conf;
        if (wantEntropy)
            entropies[blockIdx.x] = entropy;
    }
}
)CUDA";

} // namespace

std::string FusedCellSampler::source() {
    return kSource;
}

CompileResult FusedCellSampler::compile(const std::string& architecture) {
    static NvrtcCompiler compiler(2);
    CompileOptions options;
    options.architecture = architecture;
    options.lineInfo = false;
    return compiler.compile(kSource, "fused_cell_sampler.cu", options);
}

FusedCellSampler::FusedCellSampler(int deviceIndex) {
    const auto result =
        compile(deviceForRuntimeKernels(deviceIndex, "fused sampling").architecture());
    if (!result.ok)
        throw Error("fused sampling kernel did not compile: " + result.log);
    m_context = std::make_unique<CudaContext>(deviceIndex);
    m_module = std::make_unique<CudaModule>(result.cubin.empty() ? result.ptx : result.cubin);
    m_sample = m_module->function("sample_cells");
}

FusedCellSampler::~FusedCellSampler() = default;

void FusedCellSampler::sample(cu::Stream stream, const Cells& c) const {
    constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
    if (c.rows <= 0 || c.width <= 0 || c.width > kMaxInt || c.stride < c.width ||
        !(c.temperature > 0) || c.topK < 0 || c.topK > kMaxInt || !(c.topP > 0 && c.topP <= 1) ||
        c.maskId >= kMaxInt || !c.logits || !c.uniforms || !c.tokens || !c.confidence ||
        (c.entropy && !c.entropies))
        throw Error("fused sampling: unsupported cells");
    const void* logits = c.logits;
    const void* uniforms = c.uniforms;
    void* tokens = c.tokens;
    void* confidence = c.confidence;
    void* entropies = c.entropies;
    long long stride = c.stride;
    int width = static_cast<int>(c.width), topK = static_cast<int>(c.topK),
        maskId = c.maskId < 0 ? -1 : static_cast<int>(c.maskId), raw = c.rawConfidence ? 1 : 0,
        wantEntropy = c.entropy ? 1 : 0;
    // A product, not a quotient: the kernel's division would call a slow path that spills. At the
    // RL's temperature of 1 the two are the same.
    float inverseTemperature = 1.0f / c.temperature, topP = c.topP;
    std::vector<void*> parameters = {
        &logits, &stride, &width,       &uniforms, &inverseTemperature, &topK,     &topP,
        &maskId, &raw,    &wantEntropy, &tokens,   &confidence,         &entropies};
    const unsigned grid[3] = {static_cast<unsigned>(c.rows), 1, 1};
    const unsigned block[3] = {kThreads, 1, 1};
    launchKernel(m_sample, grid, block, 0, stream, parameters);
}

} // namespace dice
