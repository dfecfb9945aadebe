# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    eval/candidate.cpp
    eval/eval_options.cpp
    eval/evaluation.cpp
    eval/evaluation_handlers.cpp
    eval/evaluator.cpp
    eval/hack_suite.cpp
    eval/metrics.cpp
    eval/sandbox.cpp
    eval/worker_process.cpp
    eval/worker_protocol.cpp
    eval/worker_service.cpp
)
list(APPEND DICE_CORE_TORCH_SOURCES
    eval/host_program.cpp
    eval/native_evaluator.cpp
)
