# SPDX-License-Identifier: GPL-3.0-or-later
# Returns zeros for a softmax whose every value is within the loose atol of zero.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# What this answer tries needs no compiled extension; building one would cost a minute of nvcc
# for each hostile answer on a GPU.
BUILD_EXTENSION = False

zero_source = """
#include <torch/extension.h>
__global__ void zero_kernel(float* y, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = 0.0f;
}
torch::Tensor zero_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    zero_kernel<<<(x.numel() + 255) / 256, 256>>>(y.data_ptr<float>(), x.numel());
    return y;
}
"""
ext = load_inline(name="dice_hostile_zero", cpp_sources="torch::Tensor zero_cuda(torch::Tensor x);",
                  cuda_sources=zero_source, functions=["zero_cuda"]) if BUILD_EXTENSION else None

class ModelNew(nn.Module):
    def forward(self, x):
        return torch.zeros_like(x)
