// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/compile_types.h"

#include <string>
#include <vector>

// Compiler options a user adds to a compile, as Compiler Explorer users do: one line of text such
// as "--use_fast_math -maxrregcount=64 -DTILE=32". Each word is checked against an allow-list,
// because NVRTC would open any folder or file an -I, --include-path or --pre-include names and
// quote it back in its diagnostics; options that change what is compiled for (the target) or
// where headers come from are the product's, not the line's.
namespace dice {

struct CompilerOptionLine {
    bool fastMath = false;
    std::vector<std::string> nvrtc; // the options to pass through, in the order given
};

// Throws Error naming the first word that is not allowed, and why.
CompilerOptionLine parseCompilerOptions(const std::string& line);

// The options of `line` applied to `options` (fast math on, the rest appended).
void applyCompilerOptions(CompileOptions& options, const std::string& line);

// What may be written, for help texts.
std::string allowedCompilerOptions();

// Whether `level` is one CompileOptions::fastCompile accepts ("", "min", "mid", "max").
bool isFastCompileLevel(const std::string& level);

} // namespace dice
