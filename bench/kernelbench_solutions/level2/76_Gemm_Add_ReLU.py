# SPDX-License-Identifier: GPL-3.0-or-later
# KernelBench level 2, problem 76 (Gemm, bias, ReLU): the kernel of the .dice file beside this one, through load_inline.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>

// out[m][n] = relu(sum_k x[m][k] * w[n][k] + bias[n]) with x [M, K] and w [N, K] (nn.Linear's
// layout): 64x64 tiles, 16-deep slices of K in shared memory, 4x4 results per thread.
__global__ void gemm_bias_relu(const float* __restrict__ x, const float* __restrict__ w,
                                      const float* __restrict__ bias, float* __restrict__ out,
                                      int M, int N, int K)
{
    __shared__ float xs[16][64 + 4];
    __shared__ float ws[16][64 + 4];
    const int tx = threadIdx.x % 16;
    const int ty = threadIdx.x / 16;
    const int m0 = blockIdx.y * 64;
    const int n0 = blockIdx.x * 64;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int t = threadIdx.x; t < 64 * 16; t += 256) {
            const int r = t / 16;
            const int c = t % 16;
            const int k = k0 + c;
            xs[c][r] = (m0 + r < M && k < K) ? x[(long long)(m0 + r) * K + k] : 0.0f;
            ws[c][r] = (n0 + r < N && k < K) ? w[(long long)(n0 + r) * K + k] : 0.0f;
        }
        __syncthreads();
        for (int c = 0; c < 16; ++c) {
            float a[4];
            float b[4];
            for (int i = 0; i < 4; ++i) {
                a[i] = xs[c][ty * 4 + i];
                b[i] = ws[c][tx * 4 + i];
            }
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i) {
        const int m = m0 + ty * 4 + i;
        if (m >= M)
            continue;
        for (int j = 0; j < 4; ++j) {
            const int n = n0 + tx * 4 + j;
            if (n < N)
                out[(long long)m * N + n] = fmaxf(acc[i][j] + bias[n], 0.0f);
        }
    }
}


torch::Tensor gemm_bias_relu_forward(torch::Tensor x, torch::Tensor w, torch::Tensor bias)
{
    TORCH_CHECK(x.is_cuda() && w.is_cuda() && bias.is_cuda(), "CUDA tensors expected");
    x = x.contiguous();
    w = w.contiguous();
    bias = bias.contiguous();
    const int M = x.size(0);
    const int K = x.size(1);
    const int N = w.size(0);
    auto out = torch::empty({M, N}, x.options());
    const dim3 grid((N + 63) / 64, (M + 63) / 64);
    gemm_bias_relu<<<grid, 256>>>(x.data_ptr<float>(), w.data_ptr<float>(), bias.data_ptr<float>(),
                                  out.data_ptr<float>(), M, N, K);
    return out;
}
"""

cpp_source = "torch::Tensor gemm_bias_relu_forward(torch::Tensor x, torch::Tensor w, torch::Tensor bias);"

extension = load_inline(
    name="dice_bench_gemm_bias_relu",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["gemm_bias_relu_forward"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bias_shape):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        return extension.gemm_bias_relu_forward(x, self.gemm.weight, self.bias)
