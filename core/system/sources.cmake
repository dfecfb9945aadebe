# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    system/result_file.cpp
    system/sandbox_program.cpp
    system/system_info.cpp
)
list(APPEND DICE_CORE_TORCH_SOURCES
    system/libtorch_info.cpp
)
# The sandbox itself, a library of its own: dice-sandbox links it alone, without LibTorch.
list(APPEND DICE_CORE_SANDBOX_SOURCES
    system/sandbox.cpp
    system/seccomp_filter.cpp
)
