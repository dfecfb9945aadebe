# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    tasks/holes.cpp
    tasks/task.cpp
)
