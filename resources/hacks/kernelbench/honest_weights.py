# SPDX-License-Identifier: GPL-3.0-or-later
# The control for a problem with weights: the reference's layer, made in the reference's order
# after the same seed, so that its weights are the reference's, computed with PyTorch. Its values
# are right only if the worker builds Model as KernelBench does and as the answer's process
# builds ModelNew.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# A kernel of its own, not built: as in honest_on_cpu.py, a minute of nvcc buys nothing here.
BUILD_EXTENSION = False

relu_source = """
#include <torch/extension.h>
__global__ void relu_kernel(const float* x, float* y, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}
torch::Tensor relu_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    relu_kernel<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
    return y;
}
"""
ext = load_inline(name="dice_hostile_weights", cpp_sources="torch::Tensor relu_cuda(torch::Tensor x);",
                  cuda_sources=relu_source, functions=["relu_cuda"]) if BUILD_EXTENSION else None

class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
    def forward(self, x):
        y = self.linear(x)
        return ext.relu_cuda(y) if ext else torch.relu(y)
