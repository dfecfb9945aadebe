# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    store/run_import.cpp
    store/run_store.cpp
)
