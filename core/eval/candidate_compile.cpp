// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/eval/candidate_compile.h"

#include "core/common/error.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/eval/host_program.h"

#include <algorithm>

namespace dice {

CompileResult compileNativeCandidate(NvrtcCompiler& compiler, const NativeCandidate& candidate,
                                     const std::string& file, CompileOptions options) {
    std::vector<std::string> launched;
    const std::vector<Diagnostic> host = hostPartDiagnostics(candidate, file, &launched);
    std::vector<KernelSignature> kernels;
    try {
        kernels = parseKernelSignatures(candidate);
    } catch (const FileError&) {
        // The evaluator names the parameter; NVRTC still reports what it finds.
    }
    for (const std::string& name : launched) {
        try {
            if (resolveKernel(kernels, name).nameExpression &&
                std::find(options.nameExpressions.begin(), options.nameExpressions.end(), name) ==
                    options.nameExpressions.end())
                options.nameExpressions.push_back(name);
        } catch (const Error&) {
            // A launch of no kernel of the device part: the evaluator's verdict says so.
        }
    }
    CompileResult result = compiler.compile(candidate.deviceForCompiler(), file, options);
    if (!host.empty()) {
        result.diagnostics.insert(result.diagnostics.end(), host.begin(), host.end());
        result.ok = false;
    }
    return result;
}

} // namespace dice
