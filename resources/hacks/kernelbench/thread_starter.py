# SPDX-License-Identifier: GPL-3.0-or-later
# At its first warm-up call, starts a thread (threading reached through sys.modules, which the
# static checks do not see) that lives on through the timed calls, where it could do work
# outside any measured window.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# What this answer tries needs no compiled extension; building one would cost a minute of nvcc
# for each hostile answer on a GPU.
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
ext = load_inline(name="dice_hostile_relu", cpp_sources="torch::Tensor relu_cuda(torch::Tensor x);",
                  cuda_sources=relu_source, functions=["relu_cuda"]) if BUILD_EXTENSION else None
import sys
import time

state = {"calls": 0}


def linger():
    while True:
        time.sleep(0.01)


class ModelNew(nn.Module):
    def forward(self, x):
        state["calls"] += 1
        if state["calls"] == 6:
            sys.modules["thread" + "ing"].Thread(target=linger, daemon=True).start()
        return ext.relu_cuda(x) if ext else torch.relu(x)
