// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace dice::cli {

// On a fatal signal (a segmentation fault, an abort, a stack overflow) prints the signal and the
// call stack to stderr, as program offsets that addr2line turns into source lines, before the
// process ends as it would have: a crash on a machine without a debugger still says where.
void installCrashReport();

} // namespace dice::cli
