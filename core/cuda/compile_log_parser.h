// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/compile_types.h"

#include <string>
#include <vector>

namespace dice {

// Parses NVRTC's program log ("file(line): error: message", then the source line and a caret)
// into diagnostics. Lines the parser does not recognise are ignored, never fatal.
std::vector<Diagnostic> parseNvrtcLog(const std::string& log);

// Parses the "ptxas info" lines that --ptxas-options=-v adds to the log.
std::vector<ResourceUsage> parsePtxasInfo(const std::string& log);

} // namespace dice
