# SPDX-License-Identifier: GPL-3.0-or-later
list(APPEND DICE_CORE_PLAIN_SOURCES
    tokenizer/bpe_trainer.cpp
    tokenizer/byte_level.cpp
    tokenizer/chat_template.cpp
    tokenizer/pre_tokenizer.cpp
    tokenizer/reference_tokenizer.cpp
    tokenizer/tokenizer.cpp
    tokenizer/unicode_nfc.cpp
)
