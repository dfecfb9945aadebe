// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/evaluation.h"

#include <QString>

namespace dice {

// A verdict in the interface's language ("compile error" rather than the result file's
// compile_error), for tables and summaries.
QString verdictText(Verdict verdict);
// The same for a result file's code; a code this version does not know is shown as it is.
QString verdictText(const QString& code);

} // namespace dice
