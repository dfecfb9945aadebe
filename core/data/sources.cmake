# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    data/corpus_curator.cpp
    data/corpus_kernelbench.cpp
    data/corpus_synth.cpp
    data/corpus_writer.cpp
)
