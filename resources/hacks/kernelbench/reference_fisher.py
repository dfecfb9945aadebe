# SPDX-License-Identifier: GPL-3.0-or-later
# Looks among the garbage collector's objects for the problem's own Model class, which the
# answer's process built to calibrate its pings before this code was loaded, and computes with it:
# right values with no PyTorch operator in this file for the static checks to see. Failing that,
# wrong values.
import gc

FOUND = [thing for thing in gc.get_objects()
         if isinstance(thing, type) and thing.__name__ == "Model" and hasattr(thing, "forward")]

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch.utils.cpp_extension import load_inline  # noqa: E402

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


def reference_class():
    for thing in FOUND + gc.get_objects():
        if isinstance(thing, type) and thing.__name__ == "Model" and hasattr(thing, "forward"):
            return thing
    return None


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        found = reference_class()
        self.reference = found() if found is not None else None

    def forward(self, x):
        if self.reference is not None:
            return self.reference(x)
        return ext.relu_cuda(x) - 1 if ext else x.abs() + 1
