# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    prompts/answer.cpp
    prompts/decoding_presets.cpp
    prompts/kernelbench_prompts.cpp
    prompts/native_prompts.cpp
)
