# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    eval/candidate.cpp
    eval/eval_options.cpp
    eval/evaluation.cpp
    eval/hack_suite.cpp
    eval/metrics.cpp
)
list(APPEND DICE_CORE_TORCH_SOURCES
    eval/host_program.cpp
    eval/native_evaluator.cpp
)
