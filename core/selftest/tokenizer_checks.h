// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/selftest/selftest.h"

#include <vector>

namespace dice {

// `dice selftest` check "cpu.tokenizer": ICU found at run time and normalising to NFC, the Qwen
// pre-tokenizer pattern compiled by PCRE2 (with JIT where available), and a BPE trained here
// that round-trips text exactly. It matters most where ICU is only a runtime library.
void addTokenizerChecks(std::vector<SelfTestCheck>& checks);

} // namespace dice
