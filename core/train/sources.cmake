# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    train/rl_config.cpp
    train/rl_tasks.cpp
    train/run_folder.cpp
    train/sft_data.cpp
)
list(APPEND DICE_CORE_TORCH_SOURCES
    train/bd3_batch.cpp
    train/rl_trainer.cpp
    train/sft_trainer.cpp
    train/trace_rl.cpp
    train/trace_update.cpp
    train/train_common.cpp
)
