# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    infill/infill_plan.cpp
    infill/text_diff.cpp
)
