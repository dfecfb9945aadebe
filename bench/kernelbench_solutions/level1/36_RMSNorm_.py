# SPDX-License-Identifier: GPL-3.0-or-later
# KernelBench level 1, problem 36 (RMS normalisation over dim 1): the kernel of the .dice file beside this one, through load_inline.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>

// x is [batch, features, rest]: one thread per (batch, position), the features read with the
// position as the fastest index so that neighbouring threads read neighbouring addresses.
__global__ void rms_norm(const float* __restrict__ x, float* __restrict__ y,
                                long long features, long long rest, long long positions,
                                float eps)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < positions;
         p += stride) {
        const long long b = p / rest;
        const long long r = p - b * rest;
        const float* in = x + b * features * rest + r;
        float* out = y + b * features * rest + r;
        float sum = 0.0f;
        for (long long f = 0; f < features; ++f) {
            const float v = in[f * rest];
            sum += v * v;
        }
        const float scale = rsqrtf(sum / (float)features + eps);
        for (long long f = 0; f < features; ++f)
            out[f * rest] = in[f * rest] * scale;
    }
}


torch::Tensor rms_norm_forward(torch::Tensor x, double eps)
{
    TORCH_CHECK(x.is_cuda() && x.dim() >= 2 && x.scalar_type() == torch::kFloat32,
                "rms_norm_forward needs a float32 CUDA tensor of rank 2 or more");
    x = x.contiguous();
    auto y = torch::empty_like(x);
    const long long batch = x.size(0);
    const long long features = x.size(1);
    const long long rest = x.numel() / (batch * features);
    const long long positions = batch * rest;
    const long long blocks = (positions + 255) / 256;
    rms_norm<<<blocks < 65535 ? blocks : 65535, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(),
                                                        features, rest, positions, (float)eps);
    return y;
}
"""

cpp_source = "torch::Tensor rms_norm_forward(torch::Tensor x, double eps);"

extension = load_inline(
    name="dice_bench_rms_norm",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["rms_norm_forward"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super(ModelNew, self).__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return extension.rms_norm_forward(x, self.eps)
