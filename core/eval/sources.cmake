# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    eval/evaluation.cpp
    eval/worker_process.cpp
    eval/worker_protocol.cpp
    eval/worker_service.cpp
)
