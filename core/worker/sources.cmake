# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    worker/evaluation_handlers.cpp
    worker/evaluation_request.cpp
    worker/evaluator.cpp
    worker/line_reader.cpp
    worker/memory_cap.cpp
    worker/sandbox.cpp
    worker/worker_process.cpp
    worker/worker_protocol.cpp
    worker/worker_service.cpp
)
