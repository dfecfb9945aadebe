# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    eval/candidate.cpp
    eval/candidate_compile.cpp
    eval/eval_options.cpp
    eval/evaluation.cpp
    eval/hack_suite.cpp
    eval/host_operators.cpp
    eval/metrics.cpp
    eval/native_launchers.cpp
)
list(APPEND DICE_CORE_TORCH_SOURCES
    eval/host_program.cpp
    eval/native_dry_run.cpp
    eval/native_evaluator.cpp
    eval/native_gpu_run.cpp
    eval/native_inputs.cpp
    eval/native_output_checks.cpp
    eval/native_timing.cpp
    eval/reference_agreement.cpp
)
