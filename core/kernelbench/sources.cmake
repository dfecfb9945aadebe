# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    kernelbench/answer.cpp
    kernelbench/generation_preset.cpp
    kernelbench/importer.cpp
    kernelbench/paper_bench.cpp
    kernelbench/prompts.cpp
    kernelbench/python_evaluator.cpp
    kernelbench/python_runtime.cpp
    kernelbench/selftest_kernelbench.cpp
)
