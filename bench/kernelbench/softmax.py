# SPDX-License-Identifier: GPL-3.0-or-later
# The softmax solution of resources/solutions/softmax.dice in KernelBench's format. Used by
# bench/eval_bench.py.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>

struct MaxSum {
    float m;
    float s;
};

__device__ MaxSum combine(MaxSum a, MaxSum b)
{
    if (a.s == 0.0f)
        return b;
    if (b.s == 0.0f)
        return a;
    const float m = fmaxf(a.m, b.m);
    return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

template <int THREADS>
__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, long long cols)
{
    const float* row = x + blockIdx.x * cols;
    float* out = y + blockIdx.x * cols;
    MaxSum acc = {0.0f, 0.0f};
    for (long long c = threadIdx.x; c < cols; c += THREADS)
        acc = combine(acc, MaxSum{row[c], 1.0f});
    for (int offset = 16; offset > 0; offset /= 2) {
        MaxSum other;
        other.m = __shfl_xor_sync(0xffffffffu, acc.m, offset);
        other.s = __shfl_xor_sync(0xffffffffu, acc.s, offset);
        acc = combine(acc, other);
    }
    __shared__ MaxSum warps[THREADS / 32];
    if (threadIdx.x % 32 == 0)
        warps[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        MaxSum total = warps[0];
        for (int w = 1; w < THREADS / 32; ++w)
            total = combine(total, warps[w]);
        warps[0] = total;
    }
    __syncthreads();
    const float m = warps[0].m;
    const float inv = 1.0f / warps[0].s;
    for (long long c = threadIdx.x; c < cols; c += THREADS)
        out[c] = expf(row[c] - m) * inv;
}

torch::Tensor softmax_cuda(torch::Tensor x)
{
    auto y = torch::empty_like(x);
    softmax_rows<1024><<<x.size(0), 1024>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.size(1));
    return y;
}
"""

cpp_source = "torch::Tensor softmax_cuda(torch::Tensor x);"

softmax_ext = load_inline(name="dice_bench_softmax", cpp_sources=cpp_source,
                          cuda_sources=cuda_source, functions=["softmax_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return softmax_ext.softmax_cuda(x)
