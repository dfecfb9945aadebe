# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    diffusion/decode_trace.cpp
    diffusion/fused_cell_sampler.cpp
    diffusion/remask_strategy.cpp
)
list(APPEND DICE_CORE_TORCH_SOURCES
    diffusion/qwen3_network.cpp
    diffusion/sdar_sampler.cpp
)
