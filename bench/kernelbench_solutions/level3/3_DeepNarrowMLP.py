# SPDX-License-Identifier: GPL-3.0-or-later
# KernelBench level 3, problem 3 (deep narrow MLP): the kernels of the .dice file beside this one,
# through load_inline. One C++ call runs every layer, each a tiled GEMM with its bias and ReLU
# applied before the only store, so Python is crossed once per forward.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cmath>
#include <vector>

// y[m][n] = act(sum_k x[m][k] * w[n][k] + b[n]) for x [M, K] and w [N, K] (nn.Linear's layout),
// fp32 FMA throughout, as cuBLAS computes it without TF32 (the tolerance is 1e-4).
// A block of 256 threads owns a BM x BN tile of y; K is walked 16 at a time through two
// shared-memory buffers, the next slice held in registers while the current one is multiplied,
// so that one barrier per slice suffices. Each thread keeps (BM/16) x (BN/16) results: groups of
// four rows (and columns) 64 apart, so that every shared-memory read is a float4 that a warp
// either broadcasts or spreads over all banks.
#define SLICE 16

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
                                            const float* __restrict__ b, float* __restrict__ y,
                                            int M, int N, int K, int relu)
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
                o[j] = col + j < N ? acc[i][4 * h + j] + b[col + j] : 0.0f;
                if (relu)
                    o[j] = fmaxf(o[j], 0.0f);
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
                   const float* __restrict__ b, float* __restrict__ y, int M, int N, int K,
                   int relu)
{
    linear_tile<128, 128>(x, w, b, y, M, N, K, relu);
}

__global__ void __launch_bounds__(256, 2)
    linear_64x128(const float* __restrict__ x, const float* __restrict__ w,
                  const float* __restrict__ b, float* __restrict__ y, int M, int N, int K, int relu)
{
    linear_tile<64, 128>(x, w, b, y, M, N, K, relu);
}

__global__ void __launch_bounds__(256, 2)
    linear_64x64(const float* __restrict__ x, const float* __restrict__ w,
                 const float* __restrict__ b, float* __restrict__ y, int M, int N, int K, int relu)
{
    linear_tile<64, 64>(x, w, b, y, M, N, K, relu);
}
// The same choice of tile as the native host code: the largest that starts 256 blocks.
torch::Tensor linear_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b, bool relu)
{
    TORCH_CHECK(x.is_cuda() && w.is_cuda() && b.is_cuda(), "CUDA tensors expected");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32 && w.scalar_type() == torch::kFloat32 &&
                    b.scalar_type() == torch::kFloat32,
                "float32 tensors expected");
    TORCH_CHECK(x.dim() == 2 && w.dim() == 2 && w.size(1) == x.size(1) && b.numel() == w.size(0),
                "linear_forward: shapes do not match");
    x = x.contiguous();
    w = w.contiguous();
    b = b.contiguous();
    const int M = x.size(0);
    const int K = x.size(1);
    const int N = w.size(0);
    auto y = torch::empty({M, N}, x.options());
    const int act = relu ? 1 : 0;
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    if (((M + 127) / 128) * ((N + 127) / 128) >= 256) {
        const dim3 grid((N + 127) / 128, (M + 127) / 128);
        linear_128x128<<<grid, 256, 0, stream>>>(x.data_ptr<float>(), w.data_ptr<float>(),
                                                 b.data_ptr<float>(), y.data_ptr<float>(), M, N,
                                                 K, act);
    } else if (((M + 63) / 64) * ((N + 127) / 128) >= 256) {
        const dim3 grid((N + 127) / 128, (M + 63) / 64);
        linear_64x128<<<grid, 256, 0, stream>>>(x.data_ptr<float>(), w.data_ptr<float>(),
                                                b.data_ptr<float>(), y.data_ptr<float>(), M, N,
                                                K, act);
    } else {
        const dim3 grid((N + 63) / 64, (M + 63) / 64);
        linear_64x64<<<grid, 256, 0, stream>>>(x.data_ptr<float>(), w.data_ptr<float>(),
                                               b.data_ptr<float>(), y.data_ptr<float>(), M, N, K,
                                               act);
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}

torch::Tensor mlp_forward(torch::Tensor x, std::vector<torch::Tensor> weights,
                          std::vector<torch::Tensor> biases)
{
    TORCH_CHECK(!weights.empty() && weights.size() == biases.size(), "one bias per weight");
    torch::Tensor h = x;
    for (size_t i = 0; i < weights.size(); ++i)
        h = linear_forward(h, weights[i], biases[i], i + 1 < weights.size());
    return h;
}
"""

cpp_source = """
#include <vector>
torch::Tensor mlp_forward(torch::Tensor x, std::vector<torch::Tensor> weights,
                          std::vector<torch::Tensor> biases);
"""

extension = load_inline(
    name="dice_bench_l3_deep_narrow_mlp",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["mlp_forward"],
    verbose=False,
)

class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_layer_sizes, output_size):
        super(ModelNew, self).__init__()
        # The layers are built in the reference's order, so the seeded weights are the same.
        layers = []
        current_input_size = input_size
        for hidden_size in hidden_layer_sizes:
            layers.append(nn.Linear(current_input_size, hidden_size))
            current_input_size = hidden_size
        layers.append(nn.Linear(current_input_size, output_size))
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        weights = [layer.weight for layer in self.layers]
        biases = [layer.bias for layer in self.layers]
        return extension.mlp_forward(x, weights, biases)
