# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    common/file_util.cpp
    common/number_format.cpp
    common/statistics.cpp
)
