# SPDX-License-Identifier: GPL-3.0-or-later
# A problem with a deeper model in KernelBench's format: eight linear layers, each with a ReLU.
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, features, depth):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(features, features) for _ in range(depth)])
    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x

def get_inputs():
    return [torch.rand(64, 256)]

def get_init_inputs():
    return [256, 8]
