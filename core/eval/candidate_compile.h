// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/compile_types.h"
#include "core/eval/candidate.h"

#include <string>

// Compiling a native candidate as the evaluator does, for the editor and `dice compile`: NVRTC
// instantiates a template kernel only when it is asked for by a name expression, and the host
// part's launches are what asks. Compiled without them, a file whose kernels are all templates
// (the built-in transformer block) gives no code, no registers and no errors of those kernels.
namespace dice {

class NvrtcCompiler;

// The device part compiled with the name expressions of the template kernels the host part
// launches, and the host part's own diagnostics after the device part's (its compile errors and
// the operators the evaluator refuses); `ok` only when both parts are clean. A launch that names
// no kernel, or a kernel whose parameters are outside the dialect, is left to the evaluator,
// which reports it.
CompileResult compileNativeCandidate(NvrtcCompiler& compiler, const NativeCandidate& candidate,
                                     const std::string& file, CompileOptions options);

} // namespace dice
