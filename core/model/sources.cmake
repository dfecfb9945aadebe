# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    model/decode_kernels.cpp
    model/model_config.cpp
    model/safetensors.cpp
)
list(APPEND DICE_CORE_TORCH_SOURCES
    model/autocast_scope.cpp
    model/cpu_threads.cpp
    model/device_memory.cpp
    model/qwen3_model.cpp
    model/safetensors_torch.cpp
)
