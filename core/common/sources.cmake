# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    common/child_process.cpp
    common/file_util.cpp
    common/json_depth.cpp
    common/large_stack.cpp
    common/number_format.cpp
    common/statistics.cpp
    common/utf8.cpp
)
