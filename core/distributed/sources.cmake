# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    distributed/rank_environment.cpp
    distributed/rank_launcher.cpp
)
list(APPEND DICE_CORE_TORCH_SOURCES
    distributed/communicator.cpp
    distributed/gradient_buckets.cpp
    distributed/sharded_adamw.cpp
)
