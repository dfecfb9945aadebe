# SPDX-License-Identifier: GPL-3.0-or-later
# KernelBench level 3, problem 44 (minGPT transformer block): the kernels of the .dice file beside
# this one, through load_inline: LayerNorm, the q/k/v projection, attention with an online
# softmax, the output projection with the first residual in its epilogue, LayerNorm, the first
# MLP layer with the GELU in its epilogue and the second with the last residual, over the same
# three reused buffers as the native host code.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cmath>
#include <vector>

// y[m][n] = act(sum_k x[m][k] * w[n][k] + b[n]) (+ r[m][n]) for x [M, K] and w [N, K]
// (nn.Linear's layout), act being none, ReLU or the tanh GELU, and r an optional residual that
// may be y itself (each element is read and then written by one thread, so r and y are not
// declared __restrict__);
// fp32 FMA throughout, as cuBLAS computes it without TF32 (the tolerance is 1e-4).
// A block of 256 threads owns a BM x BN tile of y; K is walked 16 at a time through two
// shared-memory buffers, the next slice held in registers while the current one is multiplied,
// so that one barrier per slice suffices. Each thread keeps (BM/16) x (BN/16) results: groups of
// four rows (and columns) 64 apart, so that every shared-memory read is a float4 that a warp
// either broadcasts or spreads over all banks.
#define SLICE 16

// GPT-2's GELU in the reference's order: (0.5 v) (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3))).
__device__ __forceinline__ float gelu_tanh(float v)
{
    return (0.5f * v) * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * (v * v * v))));
}

// L consecutive elements of one row of a [rows, K] matrix from column k on, zeros beyond its
// edges. The float4 path needs K % 4 == 0 and an aligned base: k is always a multiple of 4.
template <int L>
__device__ __forceinline__ void fetch_run(const float* __restrict__ src, int row, int rows, int k,
                                          int K, bool vec, float (&v)[L])
{
    if (row < rows && vec && k + L <= K) {
        const float4* p = reinterpret_cast<const float4*>(src + (long long)row * K + k);
#pragma unroll
        for (int q = 0; q < L / 4; ++q) {
            const float4 t = p[q];
            v[4 * q + 0] = t.x;
            v[4 * q + 1] = t.y;
            v[4 * q + 2] = t.z;
            v[4 * q + 3] = t.w;
        }
    } else {
        const bool ok = row < rows;
        const float* p = src + (long long)(ok ? row : 0) * K;
#pragma unroll
        for (int j = 0; j < L; ++j)
            v[j] = (ok && k + j < K) ? p[k + j] : 0.0f;
    }
}

template <int BM, int BN>
__device__ __forceinline__ void linear_tile(const float* __restrict__ x,
                                            const float* __restrict__ w,
                                            const float* __restrict__ b, const float* r,
                                            float* y, int M, int N, int K, int act,
                                            int residual)
{
    constexpr int TM = BM / 16;
    constexpr int TN = BN / 16;
    constexpr int LX = BM * SLICE / 256;
    constexpr int LW = BN * SLICE / 256;
    // Rows padded by 4 floats: still 16-byte aligned for the float4 reads.
    __shared__ __align__(16) float xs[2][SLICE][BM + 4];
    __shared__ __align__(16) float ws[2][SLICE][BN + 4];
    const int tid = threadIdx.x;
    const int tx = tid % 16;
    const int ty = tid / 16;
    const int m0 = blockIdx.y * BM;
    const int n0 = blockIdx.x * BN;
    // Neighbouring threads stage neighbouring rows, so a warp's stores into the transposed
    // shared tile land in 32 different banks.
    const int xr = tid % BM;
    const int xk = (tid / BM) * LX;
    const int wr = tid % BN;
    const int wk = (tid / BN) * LW;
    const bool xvec = (K % 4) == 0 && (reinterpret_cast<unsigned long long>(x) & 15) == 0;
    const bool wvec = (K % 4) == 0 && (reinterpret_cast<unsigned long long>(w) & 15) == 0;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    float xv[LX];
    float wv[LW];
    fetch_run<LX>(x, m0 + xr, M, xk, K, xvec, xv);
    fetch_run<LW>(w, n0 + wr, N, wk, K, wvec, wv);
#pragma unroll
    for (int j = 0; j < LX; ++j)
        xs[0][xk + j][xr] = xv[j];
#pragma unroll
    for (int j = 0; j < LW; ++j)
        ws[0][wk + j][wr] = wv[j];
    __syncthreads();

    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += SLICE) {
        const bool more = k0 + SLICE < K;
        if (more) {
            fetch_run<LX>(x, m0 + xr, M, k0 + SLICE + xk, K, xvec, xv);
            fetch_run<LW>(w, n0 + wr, N, k0 + SLICE + wk, K, wvec, wv);
        }
#pragma unroll
        for (int kk = 0; kk < SLICE; ++kk) {
            float a[TM];
            float c[TN];
#pragma unroll
            for (int g = 0; g < TM / 4; ++g) {
                const float4 t = *reinterpret_cast<const float4*>(&xs[buf][kk][g * 64 + ty * 4]);
                a[4 * g + 0] = t.x;
                a[4 * g + 1] = t.y;
                a[4 * g + 2] = t.z;
                a[4 * g + 3] = t.w;
            }
#pragma unroll
            for (int g = 0; g < TN / 4; ++g) {
                const float4 t = *reinterpret_cast<const float4*>(&ws[buf][kk][g * 64 + tx * 4]);
                c[4 * g + 0] = t.x;
                c[4 * g + 1] = t.y;
                c[4 * g + 2] = t.z;
                c[4 * g + 3] = t.w;
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] = fmaf(a[i], c[j], acc[i][j]);
        }
        // The other buffer was last read before the previous barrier, so it is free to fill.
        if (more) {
#pragma unroll
            for (int j = 0; j < LX; ++j)
                xs[buf ^ 1][xk + j][xr] = xv[j];
#pragma unroll
            for (int j = 0; j < LW; ++j)
                ws[buf ^ 1][wk + j][wr] = wv[j];
        }
        __syncthreads();
        buf ^= 1;
    }

    const bool yvec = (N % 4) == 0 && (reinterpret_cast<unsigned long long>(y) & 15) == 0;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = m0 + (i / 4) * 64 + ty * 4 + (i % 4);
        if (row >= M)
            continue;
#pragma unroll
        for (int h = 0; h < TN / 4; ++h) {
            const int col = n0 + h * 64 + tx * 4;
            float o[4];
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const bool inside = col + j < N;
                o[j] = inside ? acc[i][4 * h + j] + b[col + j] : 0.0f;
                if (act == 1)
                    o[j] = fmaxf(o[j], 0.0f);
                else if (act == 2)
                    o[j] = gelu_tanh(o[j]);
                if (residual && inside)
                    o[j] += r[(long long)row * N + col + j];
            }
            float* dst = y + (long long)row * N + col;
            if (yvec && col + 3 < N) {
                *reinterpret_cast<float4*>(dst) = make_float4(o[0], o[1], o[2], o[3]);
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (col + j < N)
                        dst[j] = o[j];
            }
        }
    }
}

// Three tile shapes, so that narrow layers still start enough blocks to fill the GPU; the host
// takes the largest one that gives at least 256 blocks.
__global__ void __launch_bounds__(256, 2)
    linear_128x128(const float* __restrict__ x, const float* __restrict__ w,
                   const float* __restrict__ b, const float* r, float* y, int M, int N, int K,
                   int act, int residual)
{
    linear_tile<128, 128>(x, w, b, r, y, M, N, K, act, residual);
}

__global__ void __launch_bounds__(256, 2)
    linear_64x128(const float* __restrict__ x, const float* __restrict__ w,
                  const float* __restrict__ b, const float* r, float* y, int M, int N, int K,
                  int act, int residual)
{
    linear_tile<64, 128>(x, w, b, r, y, M, N, K, act, residual);
}

__global__ void __launch_bounds__(256, 2)
    linear_64x64(const float* __restrict__ x, const float* __restrict__ w,
                 const float* __restrict__ b, const float* r, float* y, int M, int N, int K,
                 int act, int residual)
{
    linear_tile<64, 64>(x, w, b, r, y, M, N, K, act, residual);
}
// LayerNorm over the last dimension (biased variance, eps inside the root, as torch.layer_norm):
// one warp per row, the mean first and then the centred squares, which loses less than
// accumulating x and x^2 together; the row stays in L1 between the passes.
__global__ void __launch_bounds__(256)
    layer_norm_rows(const float* __restrict__ x, const float* __restrict__ w,
                    const float* __restrict__ b, float* __restrict__ y, int rows, int C, float eps)
{
    const int lane = threadIdx.x % 32;
    const long long row = (long long)blockIdx.x * 8 + threadIdx.x / 32;
    if (row >= rows)
        return;
    const float* in = x + row * C;
    float sum = 0.0f;
    for (int c = lane; c < C; c += 32)
        sum += in[c];
#pragma unroll
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2)
        sum += __shfl_xor_sync(0xffffffffu, sum, lane_mask);
    const float mean = sum / C;
    float squares = 0.0f;
    for (int c = lane; c < C; c += 32) {
        const float d = in[c] - mean;
        squares = fmaf(d, d, squares);
    }
#pragma unroll
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2)
        squares += __shfl_xor_sync(0xffffffffu, squares, lane_mask);
    const float inverse = rsqrtf(squares / C + eps);
    float* out = y + row * C;
    for (int c = lane; c < C; c += 32)
        out[c] = (in[c] - mean) * inverse * w[c] + b[c];
}
// Causal attention over the packed projection qkv [B*T, 3C] (q, k and v side by side, head h at
// columns h*hs of each), written to y [B*T, C] with the heads side by side again, which is the
// layout the output projection reads: the [B, H, T, T] scores never reach memory.
// A block of 128 threads takes 64 queries of one (batch, head) and walks the keys 64 at a time up
// to the diagonal. Thread (tq, tk) keeps queries tq*4..+3 against keys tk + 8i, so that a
// quarter-warp reads one query row (a broadcast) and eight key rows whose padded stride of
// HD + 4 floats puts them in different banks; its output columns are tk*4 + 32g for the same
// reason. The eight threads of a query row are neighbouring lanes: their row maximum and sum
// are three shuffles. Head sizes up to HD are zero-padded, so one instantiation serves them all.
#define ATT_Q 64
#define ATT_K 64
#define ATT_P (ATT_Q + 4)

template <int HD>
__host__ __device__ constexpr int attention_shared_floats()
{
    return 2 * ATT_K * (HD + 4) + ATT_Q * (HD + 4) + ATT_K * ATT_P;
}

template <int HD, bool SOFTMAX>
__device__ __forceinline__ void causal_attention(const float* __restrict__ qkv,
                                                 float* __restrict__ y, int B, int T, int H,
                                                 int hs, float scale)
{
    constexpr int LD = HD + 4;
    constexpr int G = HD / 32;
    extern __shared__ __align__(16) float smem[];
    float* qs = smem;
    float* ks = qs + ATT_Q * LD;
    float* vs = ks + ATT_K * LD;
    float* ps = vs + ATT_K * LD;
    const int tid = threadIdx.x;
    const int tq = tid / 8;
    const int tk = tid % 8;
    const int BH = B * H;
    // The latest query tiles see the most keys: they are started first so that the short ones
    // fill the tail.
    const int tiles = (T + ATT_Q - 1) / ATT_Q;
    const int tile = tiles - 1 - (int)(blockIdx.x / BH);
    const int bh = blockIdx.x % BH;
    const int b = bh / H;
    const int h = bh % H;
    const int C = H * hs;
    const long long stride = 3LL * C;
    const float* base = qkv + (long long)b * T * stride + (long long)h * hs;
    const int q0 = tile * ATT_Q;

    for (int i = tid; i < ATT_Q * HD; i += 128) {
        const int r = i / HD;
        const int d = i % HD;
        const int t = q0 + r;
        qs[r * LD + d] = (t < T && d < hs) ? base[t * stride + d] : 0.0f;
    }

    float o[4][4 * G];
    float row_max[4];
    float row_sum[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        // -3e38 rather than -infinity keeps exp(old - new) a plain zero, never NaN.
        row_max[j] = -3.0e38f;
        row_sum[j] = 0.0f;
#pragma unroll
        for (int c = 0; c < 4 * G; ++c)
            o[j][c] = 0.0f;
    }

    const int key_end = min(T, q0 + ATT_Q);
    for (int k0 = 0; k0 < key_end; k0 += ATT_K) {
        // The previous step's readers of ks, vs and ps are done (and qs is complete).
        __syncthreads();
        for (int i = tid; i < ATT_K * HD; i += 128) {
            const int r = i / HD;
            const int d = i % HD;
            const int t = k0 + r;
            const bool ok = t < T && d < hs;
            ks[r * LD + d] = ok ? base[t * stride + C + d] : 0.0f;
            vs[r * LD + d] = ok ? base[t * stride + 2 * C + d] : 0.0f;
        }
        __syncthreads();

        float s[4][8];
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int i = 0; i < 8; ++i)
                s[j][i] = 0.0f;
#pragma unroll 2
        for (int d = 0; d < HD; d += 4) {
            float4 qv[4];
            float4 kv[8];
#pragma unroll
            for (int j = 0; j < 4; ++j)
                qv[j] = *reinterpret_cast<const float4*>(&qs[(tq * 4 + j) * LD + d]);
#pragma unroll
            for (int i = 0; i < 8; ++i)
                kv[i] = *reinterpret_cast<const float4*>(&ks[(tk + 8 * i) * LD + d]);
#pragma unroll
            for (int j = 0; j < 4; ++j)
#pragma unroll
                for (int i = 0; i < 8; ++i) {
                    s[j][i] = fmaf(qv[j].x, kv[i].x, s[j][i]);
                    s[j][i] = fmaf(qv[j].y, kv[i].y, s[j][i]);
                    s[j][i] = fmaf(qv[j].z, kv[i].z, s[j][i]);
                    s[j][i] = fmaf(qv[j].w, kv[i].w, s[j][i]);
                }
        }

#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int query = q0 + tq * 4 + j;
            float p[8];
            if (SOFTMAX) {
                float tile_max = -3.0e38f;
#pragma unroll
                for (int i = 0; i < 8; ++i) {
                    const int key = k0 + tk + 8 * i;
                    s[j][i] *= scale;
                    if (key <= query && key < T)
                        tile_max = fmaxf(tile_max, s[j][i]);
                }
#pragma unroll
                for (int lane = 1; lane < 8; lane *= 2)
                    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, lane));
                const float new_max = fmaxf(row_max[j], tile_max);
                const float alpha = __expf(row_max[j] - new_max);
                float tile_sum = 0.0f;
#pragma unroll
                for (int i = 0; i < 8; ++i) {
                    const int key = k0 + tk + 8 * i;
                    p[i] = (key <= query && key < T) ? __expf(s[j][i] - new_max) : 0.0f;
                    tile_sum += p[i];
                }
#pragma unroll
                for (int lane = 1; lane < 8; lane *= 2)
                    tile_sum += __shfl_xor_sync(0xffffffffu, tile_sum, lane);
                row_sum[j] = row_sum[j] * alpha + tile_sum;
                row_max[j] = new_max;
#pragma unroll
                for (int c = 0; c < 4 * G; ++c)
                    o[j][c] *= alpha;
            } else {
                // ReLU of the masked scores: -infinity and every negative score become 0.
#pragma unroll
                for (int i = 0; i < 8; ++i) {
                    const int key = k0 + tk + 8 * i;
                    p[i] = (key <= query && key < T) ? fmaxf(s[j][i] * scale, 0.0f) : 0.0f;
                }
            }
#pragma unroll
            for (int i = 0; i < 8; ++i)
                s[j][i] = p[i];
        }
        // P is stored transposed, [key][query], so that the product below reads a thread's
        // four queries as one float4.
#pragma unroll
        for (int i = 0; i < 8; ++i)
            *reinterpret_cast<float4*>(&ps[(tk + 8 * i) * ATT_P + tq * 4]) =
                make_float4(s[0][i], s[1][i], s[2][i], s[3][i]);
        __syncthreads();

#pragma unroll 4
        for (int kk = 0; kk < ATT_K; ++kk) {
            const float4 pv = *reinterpret_cast<const float4*>(&ps[kk * ATT_P + tq * 4]);
            const float pj[4] = {pv.x, pv.y, pv.z, pv.w};
#pragma unroll
            for (int g = 0; g < G; ++g) {
                const float4 vv =
                    *reinterpret_cast<const float4*>(&vs[kk * LD + g * 32 + tk * 4]);
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    o[j][4 * g + 0] = fmaf(pj[j], vv.x, o[j][4 * g + 0]);
                    o[j][4 * g + 1] = fmaf(pj[j], vv.y, o[j][4 * g + 1]);
                    o[j][4 * g + 2] = fmaf(pj[j], vv.z, o[j][4 * g + 2]);
                    o[j][4 * g + 3] = fmaf(pj[j], vv.w, o[j][4 * g + 3]);
                }
            }
        }
    }

#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const int query = q0 + tq * 4 + j;
        if (query >= T)
            continue;
        const float inverse = SOFTMAX ? 1.0f / row_sum[j] : 1.0f;
        float* out = y + ((long long)b * T + query) * C + (long long)h * hs;
#pragma unroll
        for (int g = 0; g < G; ++g)
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                const int d = g * 32 + tk * 4 + c;
                if (d < hs)
                    out[d] = o[j][4 * g + c] * inverse;
            }
    }
}
// One instantiation per padded head size; the host takes the smallest that holds hs.

__global__ void __launch_bounds__(128, 2) attention_softmax_hd32(
    const float* __restrict__ qkv, float* __restrict__ y, int B, int T, int H, int hs, float scale)
{
    causal_attention<32, true>(qkv, y, B, T, H, hs, scale);
}

__global__ void __launch_bounds__(128, 2) attention_softmax_hd64(
    const float* __restrict__ qkv, float* __restrict__ y, int B, int T, int H, int hs, float scale)
{
    causal_attention<64, true>(qkv, y, B, T, H, hs, scale);
}

__global__ void __launch_bounds__(128, 2) attention_softmax_hd96(
    const float* __restrict__ qkv, float* __restrict__ y, int B, int T, int H, int hs, float scale)
{
    causal_attention<96, true>(qkv, y, B, T, H, hs, scale);
}

__global__ void __launch_bounds__(128, 2) attention_softmax_hd128(
    const float* __restrict__ qkv, float* __restrict__ y, int B, int T, int H, int hs, float scale)
{
    causal_attention<128, true>(qkv, y, B, T, H, hs, scale);
}

// The same choice of tile as the native host code: the largest that starts 256 blocks. y may be
// r (an in-place residual); without a residual, r is a placeholder that the kernel never reads.
static void linear_into_run(torch::Tensor x, torch::Tensor w, torch::Tensor b, int act,
                            const torch::Tensor& r, bool residual, torch::Tensor& y)
{
    TORCH_CHECK(x.is_cuda() && w.is_cuda() && b.is_cuda(), "CUDA tensors expected");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32 && w.scalar_type() == torch::kFloat32 &&
                    b.scalar_type() == torch::kFloat32,
                "float32 tensors expected");
    TORCH_CHECK(x.dim() == 2 && w.dim() == 2 && w.size(1) == x.size(1) && b.numel() == w.size(0),
                "linear: shapes do not match");
    x = x.contiguous();
    w = w.contiguous();
    b = b.contiguous();
    const int M = x.size(0);
    const int K = x.size(1);
    const int N = w.size(0);
    TORCH_CHECK(y.is_contiguous() && y.numel() == (int64_t)M * N, "linear: bad output");
    TORCH_CHECK(!residual || (r.is_contiguous() && r.numel() == (int64_t)M * N),
                "linear: bad residual");
    const float* rp = residual ? r.data_ptr<float>() : b.data_ptr<float>();
    const int add = residual ? 1 : 0;
    if (M == 0 || N == 0)
        return;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    if (((M + 127) / 128) * ((N + 127) / 128) >= 256) {
        const dim3 grid((N + 127) / 128, (M + 127) / 128);
        linear_128x128<<<grid, 256, 0, stream>>>(x.data_ptr<float>(), w.data_ptr<float>(),
                                                 b.data_ptr<float>(), rp, y.data_ptr<float>(),
                                                 M, N, K, act, add);
    } else if (((M + 63) / 64) * ((N + 127) / 128) >= 256) {
        const dim3 grid((N + 127) / 128, (M + 63) / 64);
        linear_64x128<<<grid, 256, 0, stream>>>(x.data_ptr<float>(), w.data_ptr<float>(),
                                                b.data_ptr<float>(), rp, y.data_ptr<float>(), M,
                                                N, K, act, add);
    } else {
        const dim3 grid((N + 63) / 64, (M + 63) / 64);
        linear_64x64<<<grid, 256, 0, stream>>>(x.data_ptr<float>(), w.data_ptr<float>(),
                                               b.data_ptr<float>(), rp, y.data_ptr<float>(), M, N,
                                               K, act, add);
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
}

static void layer_norm_into_run(const torch::Tensor& x, torch::Tensor w, torch::Tensor b,
                                double eps, torch::Tensor& y)
{
    w = w.contiguous();
    b = b.contiguous();
    const int rows = x.size(0);
    const int C = x.size(1);
    TORCH_CHECK(w.numel() == C && b.numel() == C, "layer norm: the affine shapes do not match");
    if (rows == 0)
        return;
    layer_norm_rows<<<(rows + 7) / 8, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), w.data_ptr<float>(), b.data_ptr<float>(), y.data_ptr<float>(), rows,
        C, static_cast<float>(eps));
    C10_CUDA_KERNEL_LAUNCH_CHECK();
}

template <typename Kernel>
static void attention_launch(Kernel kernel, int shared_bytes, int blocks, cudaStream_t stream,
                             const torch::Tensor& qkv, torch::Tensor& y, int B, int T, int H,
                             int hs, float scale)
{
    // More than the default 48 KiB of dynamic shared memory must be asked for.
    C10_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        shared_bytes));
    kernel<<<blocks, 128, shared_bytes, stream>>>(qkv.data_ptr<float>(), y.data_ptr<float>(), B,
                                                  T, H, hs, scale);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// qkv [B*T, 3C] into y [B*T, C], with the head size padded to the smallest instantiation.
static void attention_run(const torch::Tensor& qkv, torch::Tensor& y, int B, int T, int H, int hs)
{
    TORCH_CHECK(hs >= 1 && hs <= 128, "head sizes up to 128 are supported");
    const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(hs)));
    const int blocks = ((T + ATT_Q - 1) / ATT_Q) * B * H;
    if (blocks == 0)
        return;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    if (hs <= 32)
        attention_launch(attention_softmax_hd32, attention_shared_floats<32>() * 4, blocks, stream,
                         qkv, y, B, T, H, hs, scale);
    else if (hs <= 64)
        attention_launch(attention_softmax_hd64, attention_shared_floats<64>() * 4, blocks, stream,
                         qkv, y, B, T, H, hs, scale);
    else if (hs <= 96)
        attention_launch(attention_softmax_hd96, attention_shared_floats<96>() * 4, blocks, stream,
                         qkv, y, B, T, H, hs, scale);
    else
        attention_launch(attention_softmax_hd128, attention_shared_floats<128>() * 4, blocks,
                         stream, qkv, y, B, T, H, hs, scale);
}

torch::Tensor block_forward(torch::Tensor x, std::vector<torch::Tensor> p, double eps1,
                            double eps2, int64_t n_head)
{
    // p: ln_1 weight and bias, c_attn weight and bias, attention c_proj weight and bias, ln_2
    // weight and bias, c_fc weight and bias, MLP c_proj weight and bias.
    TORCH_CHECK(p.size() == 12, "twelve parameters expected");
    TORCH_CHECK(x.is_cuda() && x.dim() == 3 && x.scalar_type() == torch::kFloat32,
                "a float32 CUDA input [B, T, C] expected");
    x = x.contiguous();
    const int B = x.size(0);
    const int T = x.size(1);
    const int C = x.size(2);
    const int H = static_cast<int>(n_head);
    TORCH_CHECK(H > 0 && C % H == 0, "n_embd must be a multiple of n_head");
    const int64_t n = (int64_t)B * T;
    const int64_t hidden = p[8].size(0);
    auto rows = x.view({n, C});
    // The same three buffers as the native host code: y first holds x plus the attention, h the
    // normalised rows, then the heads, then the normalised rows again, and big q, k and v, then
    // blocks of rows of the MLP's hidden layer.
    auto y = torch::empty({n, C}, x.options());
    auto h = torch::empty({n, C}, x.options());
    auto big = torch::empty({n * 3 * C}, x.options());
    layer_norm_into_run(rows, p[0], p[1], eps1, h);
    auto qkv = big.view({n, 3 * C});
    linear_into_run(h, p[2], p[3], 0, h, false, qkv);
    attention_run(qkv, h, B, T, H, C / H);
    linear_into_run(h, p[4], p[5], 0, rows, true, y);
    layer_norm_into_run(y, p[6], p[7], eps2, h);
    const int64_t chunk = std::max<int64_t>(1, (n * 3 * C) / hidden);
    for (int64_t r0 = 0; r0 < n; r0 += chunk) {
        const int64_t count = std::min(chunk, n - r0);
        auto f = big.narrow(0, 0, count * hidden).view({count, hidden});
        auto part = y.narrow(0, r0, count);
        linear_into_run(h.narrow(0, r0, count), p[8], p[9], 2, f, false, f);
        linear_into_run(f, p[10], p[11], 0, part, true, part);
    }
    return y.view({B, T, C});
}
"""

cpp_source = """
#include <vector>
torch::Tensor block_forward(torch::Tensor x, std::vector<torch::Tensor> p, double eps1,
                            double eps2, int64_t n_head);
"""

extension = load_inline(
    name="dice_bench_l3_minigpt_block",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["block_forward"],
    verbose=False,
)

class ModelNew(nn.Module):
    def __init__(self, n_embd, n_head, attn_pdrop, resid_pdrop, max_seqlen):
        super().__init__()
        assert n_embd % n_head == 0
        # The kernels leave dropout out: the problem's probabilities are 0.
        assert attn_pdrop == 0.0 and resid_pdrop == 0.0
        # Built in the reference's order, so the seeded weights are the same.
        self.ln_1 = nn.LayerNorm(n_embd)
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.attn_proj = nn.Linear(n_embd, n_embd)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.c_fc = nn.Linear(n_embd, 4 * n_embd)
        self.mlp_proj = nn.Linear(4 * n_embd, n_embd)
        self.n_head = n_head

    def forward(self, x):
        params = [self.ln_1.weight, self.ln_1.bias, self.c_attn.weight, self.c_attn.bias,
                  self.attn_proj.weight, self.attn_proj.bias, self.ln_2.weight, self.ln_2.bias,
                  self.c_fc.weight, self.c_fc.bias, self.mlp_proj.weight, self.mlp_proj.bias]
        return extension.block_forward(x, params, self.ln_1.eps, self.ln_2.eps, self.n_head)
