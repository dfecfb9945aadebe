# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_TORCH_SOURCES
    engine/model_session.cpp
)
