// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <string>

namespace dice {

// The evaluator's one-line message in the interface's language. The evaluator writes English for
// result files and scripts; the messages a user reads most (a verdict's reason: wrong elements, a
// fault, a write out of bounds, what was not run and why) are recognised by their form and
// translated with their figures; quoted text from outside (a CUDA error, a compiler's or
// PyTorch's words) stays as it came. A message of another form is shown as it is.
QString evaluationMessageText(const std::string& message);

} // namespace dice
