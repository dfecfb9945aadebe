# SPDX-License-Identifier: GPL-3.0-or-later
# The control for timing: the reference's eight layers, seeded the same, computed with PyTorch
# through the functional forms. Its calls must cost about what the harness's pings did around
# their model: pings that ran no model made every such call look slower than it was.
import torch
import torch.nn as nn
import torch.nn.functional as F
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
ext = load_inline(name="dice_hostile_layers", cpp_sources="torch::Tensor relu_cuda(torch::Tensor x);",
                  cuda_sources=relu_source, functions=["relu_cuda"]) if BUILD_EXTENSION else None

class ModelNew(nn.Module):
    def __init__(self, features, depth):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(features, features) for _ in range(depth)])
    def forward(self, x):
        weights = [layer.weight for layer in self.layers]
        biases = [layer.bias for layer in self.layers]
        for w, b in zip(weights, biases):
            y = F.linear(x, w, b)
            x = ext.relu_cuda(y) if ext else torch.relu(y)
        return x
