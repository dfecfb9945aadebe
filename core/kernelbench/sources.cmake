# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    kernelbench/importer.cpp
    kernelbench/python_evaluator.cpp
    kernelbench/python_runtime.cpp
)
