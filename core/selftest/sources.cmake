# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    selftest/evaluator_checks.cpp
    selftest/kernelbench_checks.cpp
    selftest/selftest.cpp
    selftest/tokenizer_checks.cpp
)
list(APPEND DICE_CORE_TORCH_SOURCES
    selftest/distributed_checks.cpp
    selftest/machine_checks.cpp
    selftest/model_checks.cpp
)
