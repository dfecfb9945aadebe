# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    bench/paper_bench.cpp
    bench/pass_breakdown.cpp
    bench/reward_bench.cpp
)
list(APPEND DICE_CORE_TORCH_SOURCES
    bench/model_bench.cpp
    bench/rl_bench.cpp
    bench/rollout_bench.cpp
)
