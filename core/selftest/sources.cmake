# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    selftest/selftest.cpp
)
list(APPEND DICE_CORE_TORCH_SOURCES
    selftest/selftest_checks.cpp
)
list(APPEND DICE_CORE_PLAIN_SOURCES
    selftest/evaluator_checks.cpp
)
