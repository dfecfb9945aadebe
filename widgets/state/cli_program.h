// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace dice {

// The `dice` program the GUI starts for work of its own process (a trainer, a profile):
// $DICE_CLI_PROGRAM, or the one beside this program.
QString cliProgram();

} // namespace dice
