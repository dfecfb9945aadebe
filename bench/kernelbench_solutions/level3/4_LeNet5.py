# SPDX-License-Identifier: GPL-3.0-or-later
# KernelBench level 3, problem 4 (LeNet-5 at batch 4096): the kernel of the .dice file beside this
# one, through load_inline. One kernel runs the whole network, four images per block.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cmath>
#include <vector>

// The whole network for LENET_SAMPLES images per block of 256 threads: the image, both pooled
// feature maps and the hidden activations stay in shared memory, so only the input and the
// logits cross global memory (the reference writes and reads back ten intermediate tensors).
// ReLU and the bias commute with the 2x2 maximum, so each conv thread keeps four sums and
// applies them once. The fully connected layers give one output to a warp at a time, lanes
// over the inputs, so the weight rows are read coalesced and once for all the block's images.
#define LENET_SAMPLES 4

template <bool RELU>
__device__ __forceinline__ void lenet_dense(const float* in, int K, const float* __restrict__ w,
                                            const float* __restrict__ b, float* out, int N,
                                            int rows)
{
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    for (int o = warp; o < N; o += 8) {
        float acc[LENET_SAMPLES];
#pragma unroll
        for (int s = 0; s < LENET_SAMPLES; ++s)
            acc[s] = 0.0f;
        for (int k = lane; k < K; k += 32) {
            const float wv = w[(long long)o * K + k];
#pragma unroll
            for (int s = 0; s < LENET_SAMPLES; ++s)
                acc[s] = fmaf(in[s * K + k], wv, acc[s]);
        }
#pragma unroll
        for (int s = 0; s < LENET_SAMPLES; ++s)
#pragma unroll
            for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2)
                acc[s] += __shfl_xor_sync(0xffffffffu, acc[s], lane_mask);
        if (lane == 0) {
            for (int s = 0; s < rows; ++s) {
                const float v = acc[s] + b[o];
                out[(long long)s * N + o] = RELU ? fmaxf(v, 0.0f) : v;
            }
        }
    }
}

__global__ void __launch_bounds__(256)
    lenet5_forward(const float* __restrict__ x, const float* __restrict__ c1w,
                   const float* __restrict__ c1b, const float* __restrict__ c2w,
                   const float* __restrict__ c2b, const float* __restrict__ f1w,
                   const float* __restrict__ f1b, const float* __restrict__ f2w,
                   const float* __restrict__ f2b, const float* __restrict__ f3w,
                   const float* __restrict__ f3b, float* __restrict__ out, int batch, int classes)
{
    // img holds the 32x32 inputs, then (once conv1 has read them) the 16x5x5 maps and the two
    // hidden layers.
    __shared__ __align__(16) float img[LENET_SAMPLES * 1024];
    __shared__ float p1[LENET_SAMPLES * 6 * 196];
    __shared__ float w1[150];
    __shared__ float b1[6];
    __shared__ float w2[2400];
    __shared__ float b2[16];
    const int tid = threadIdx.x;
    const long long s0 = (long long)blockIdx.x * LENET_SAMPLES;
    const int count = (int)min((long long)LENET_SAMPLES, batch - s0);

    // Missing images of the last block are zeros: they are computed and never written out.
    for (int i = tid; i < LENET_SAMPLES * 1024; i += 256)
        img[i] = i / 1024 < count ? x[s0 * 1024 + i] : 0.0f;
    for (int i = tid; i < 150; i += 256)
        w1[i] = c1w[i];
    for (int i = tid; i < 2400; i += 256)
        w2[i] = c2w[i];
    if (tid < 6)
        b1[tid] = c1b[tid];
    if (tid < 16)
        b2[tid] = c2b[tid];
    __syncthreads();

    // conv1 (1 -> 6, 5x5) + ReLU + pool: one pooled position of one image per thread, all six
    // channels from one 6x6 window of the input.
    for (int item = tid; item < LENET_SAMPLES * 196; item += 256) {
        const int s = item / 196;
        const int pos = item % 196;
        const float* src = img + s * 1024 + (pos / 14) * 64 + (pos % 14) * 2;
        float win[6][6];
#pragma unroll
        for (int r = 0; r < 6; ++r)
#pragma unroll
            for (int c = 0; c < 6; ++c)
                win[r][c] = src[r * 32 + c];
#pragma unroll 1
        for (int ch = 0; ch < 6; ++ch) {
            float a[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
            for (int ky = 0; ky < 5; ++ky)
#pragma unroll
                for (int kx = 0; kx < 5; ++kx) {
                    const float wv = w1[ch * 25 + ky * 5 + kx];
                    a[0] = fmaf(win[ky][kx], wv, a[0]);
                    a[1] = fmaf(win[ky][kx + 1], wv, a[1]);
                    a[2] = fmaf(win[ky + 1][kx], wv, a[2]);
                    a[3] = fmaf(win[ky + 1][kx + 1], wv, a[3]);
                }
            const float m = fmaxf(fmaxf(a[0], a[1]), fmaxf(a[2], a[3])) + b1[ch];
            p1[(s * 6 + ch) * 196 + pos] = fmaxf(m, 0.0f);
        }
    }
    __syncthreads();

    // conv2 (6 -> 16, 5x5) + ReLU + pool: one pooled position, two output channels per thread;
    // the result goes in view(-1, 400)'s order, channel-major.
    float* p2 = img;
    for (int item = tid; item < LENET_SAMPLES * 25 * 8; item += 256) {
        const int pair = item % 8;
        const int pos = (item / 8) % 25;
        const int s = item / 200;
        float a[2][4] = {{0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};
#pragma unroll 1
        for (int ic = 0; ic < 6; ++ic) {
            const float* src = p1 + (s * 6 + ic) * 196 + (pos / 5) * 28 + (pos % 5) * 2;
            float win[6][6];
#pragma unroll
            for (int r = 0; r < 6; ++r)
#pragma unroll
                for (int c = 0; c < 6; ++c)
                    win[r][c] = src[r * 14 + c];
#pragma unroll
            for (int k = 0; k < 2; ++k) {
                const float* wk = w2 + ((pair * 2 + k) * 6 + ic) * 25;
#pragma unroll
                for (int ky = 0; ky < 5; ++ky)
#pragma unroll
                    for (int kx = 0; kx < 5; ++kx) {
                        const float wv = wk[ky * 5 + kx];
                        a[k][0] = fmaf(win[ky][kx], wv, a[k][0]);
                        a[k][1] = fmaf(win[ky][kx + 1], wv, a[k][1]);
                        a[k][2] = fmaf(win[ky + 1][kx], wv, a[k][2]);
                        a[k][3] = fmaf(win[ky + 1][kx + 1], wv, a[k][3]);
                    }
            }
        }
#pragma unroll
        for (int k = 0; k < 2; ++k) {
            const int oc = pair * 2 + k;
            const float m = fmaxf(fmaxf(a[k][0], a[k][1]), fmaxf(a[k][2], a[k][3])) + b2[oc];
            p2[s * 400 + oc * 25 + pos] = fmaxf(m, 0.0f);
        }
    }
    __syncthreads();

    float* h1 = img + LENET_SAMPLES * 400;
    float* h2 = h1 + LENET_SAMPLES * 120;
    lenet_dense<true>(p2, 400, f1w, f1b, h1, 120, LENET_SAMPLES);
    __syncthreads();
    lenet_dense<true>(h1, 120, f2w, f2b, h2, 84, LENET_SAMPLES);
    __syncthreads();
    lenet_dense<false>(h2, 84, f3w, f3b, out + s0 * classes, classes, count);
}

torch::Tensor lenet5_run(torch::Tensor x, torch::Tensor c1w, torch::Tensor c1b, torch::Tensor c2w,
                         torch::Tensor c2b, torch::Tensor f1w, torch::Tensor f1b,
                         torch::Tensor f2w, torch::Tensor f2b, torch::Tensor f3w,
                         torch::Tensor f3b)
{
    // The kernel's layer sizes are LeNet-5's: 1x32x32 images, 6 and 16 maps, 400-120-84-classes.
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "a float32 CUDA input expected");
    TORCH_CHECK(x.dim() == 4 && x.size(1) == 1 && x.size(2) == 32 && x.size(3) == 32,
                "input of shape [batch, 1, 32, 32] expected");
    TORCH_CHECK(c1w.numel() == 150 && c2w.numel() == 2400, "LeNet-5's convolutions expected");
    TORCH_CHECK(f1w.size(0) == 120 && f1w.size(1) == 400 && f2w.size(0) == 84 &&
                    f2w.size(1) == 120 && f3w.size(1) == 84,
                "LeNet-5's fully connected layers expected");
    x = x.contiguous();
    c1w = c1w.contiguous();
    c2w = c2w.contiguous();
    f1w = f1w.contiguous();
    f2w = f2w.contiguous();
    f3w = f3w.contiguous();
    const int batch = x.size(0);
    const int classes = f3w.size(0);
    auto out = torch::empty({batch, classes}, x.options());
    if (batch == 0)
        return out;
    lenet5_forward<<<(batch + LENET_SAMPLES - 1) / LENET_SAMPLES, 256, 0,
                     at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), c1w.data_ptr<float>(), c1b.contiguous().data_ptr<float>(),
        c2w.data_ptr<float>(), c2b.contiguous().data_ptr<float>(), f1w.data_ptr<float>(),
        f1b.contiguous().data_ptr<float>(), f2w.data_ptr<float>(),
        f2b.contiguous().data_ptr<float>(), f3w.data_ptr<float>(),
        f3b.contiguous().data_ptr<float>(), out.data_ptr<float>(), batch, classes);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
"""

cpp_source = """
torch::Tensor lenet5_run(torch::Tensor x, torch::Tensor c1w, torch::Tensor c1b, torch::Tensor c2w,
                         torch::Tensor c2b, torch::Tensor f1w, torch::Tensor f1b,
                         torch::Tensor f2w, torch::Tensor f2b, torch::Tensor f3w,
                         torch::Tensor f3b);
"""

extension = load_inline(
    name="dice_bench_l3_lenet5",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["lenet5_run"],
    verbose=False,
)

class ModelNew(nn.Module):
    def __init__(self, num_classes):
        super(ModelNew, self).__init__()
        # The layers are built in the reference's order, so the seeded weights are the same.
        self.conv1 = nn.Conv2d(in_channels=1, out_channels=6, kernel_size=5, stride=1)
        self.conv2 = nn.Conv2d(in_channels=6, out_channels=16, kernel_size=5, stride=1)
        self.fc1 = nn.Linear(in_features=16 * 5 * 5, out_features=120)
        self.fc2 = nn.Linear(in_features=120, out_features=84)
        self.fc3 = nn.Linear(in_features=84, out_features=num_classes)

    def forward(self, x):
        return extension.lenet5_run(x, self.conv1.weight, self.conv1.bias, self.conv2.weight,
                                    self.conv2.bias, self.fc1.weight, self.fc1.bias,
                                    self.fc2.weight, self.fc2.bias, self.fc3.weight,
                                    self.fc3.bias)
