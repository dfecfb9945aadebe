# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    train/sft_data.cpp
)
list(APPEND DICE_CORE_TORCH_SOURCES
    train/bd3_batch.cpp
    train/sft_trainer.cpp
)
