// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace dice {

// Reads a whole file; throws FileError when it cannot be read.
std::string readTextFile(const std::string& path);

// Writes a file through a temporary beside it and a rename, so readers never see half a file.
void writeFileAtomically(const std::string& path, const std::string& content);

// The folder that holds the workbench's shared data (built-in tasks, prompts, the embedded
// model): $DICE_DATA_DIR when set, else <folder of the executable>/../share/dice-workbench.
std::string dataDirectory();

// The folder of the running executable.
std::string executableDirectory();

} // namespace dice
