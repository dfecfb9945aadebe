// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace dice::native {

// Thrown inside the native evaluator when the candidate (not the evaluator) failed: a launch was
// refused, a kernel faulted, forward returned something other than tensors. It ends the
// evaluation with the verdict RuntimeError and this message.
struct CandidateFault {
    std::string message;
};

} // namespace dice::native
