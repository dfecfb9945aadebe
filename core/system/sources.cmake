# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    system/result_file.cpp
    system/system_info.cpp
)
list(APPEND DICE_CORE_TORCH_SOURCES
    system/libtorch_info.cpp
)
