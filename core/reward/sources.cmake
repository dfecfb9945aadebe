# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    reward/reward.cpp
    reward/reward_batch.cpp
    reward/reward_service.cpp
)
