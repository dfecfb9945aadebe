// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/common/error.h"
#include "core/cuda/compile_types.h"
#include "core/tasks/task.h"

#include <optional>
#include <string>
#include <vector>

// A candidate in the native dialect (docs/native-dialect.md): one .dice file with a device part
// (CUDA C++ for NVRTC) and a host part (TorchScript). This header has no LibTorch include.
namespace dice {

struct NativeCandidate {
    std::string origin;      // file name used in diagnostics
    std::string source;      // the whole file
    std::string device;      // the device part, without its pragma line
    std::string host;        // the host part, without its pragma line
    int deviceFirstLine = 0; // line of the file that holds the device part's first line
    int hostFirstLine = 0;   // line of the file that holds the host part's first line

    // The device part as NVRTC gets it: a #line directive first, so that NVRTC's diagnostics name
    // the lines of the whole file.
    std::string deviceForCompiler() const;
    // A line of the host part (1-based) as a line of the file.
    int fileLineOfHostLine(int hostLine) const { return hostLine + hostFirstLine - 1; }
};

// The text of a candidate file: a regular file of at most 1 MiB (limits::kCandidate). Throws
// FileError for anything else (a FIFO, a device, a directory, a larger file).
std::string readCandidateFile(const std::string& path);

// Splits a .dice file into its parts. Throws FileError naming the file, the line and what is wrong
// (a missing, repeated or misplaced pragma, an empty part, a file that is not text).
NativeCandidate parseNativeCandidate(const std::string& source, const std::string& origin);

// parseNativeCandidate's error as a diagnostic of `origin`, at the line it names.
Diagnostic candidateDiagnostic(const FileError& error, const std::string& origin);

// How one kernel parameter is bound to an argument of dice.launch.
enum class ParamKind {
    Pointer, // bound to a tensor
    Int32,
    UInt32,
    Int64,
    UInt64,
    Float32,
    Float64,
    Bool
};

struct KernelParam {
    std::string name;
    std::string type; // as written, qualifiers removed ("const float*" -> "float*")
    ParamKind kind = ParamKind::Pointer;
    DType dtype = DType::Float32; // for pointers: the tensor dtype the pointee type needs
    int vectorWidth = 1;          // float4* binds a float32 tensor, four elements at a time
};

struct KernelSignature {
    std::string name;     // the function's name
    bool externC = false; // extern "C": launched by its plain name
    bool isTemplate = false;
    std::vector<std::string> templateParams; // "T", "THREADS" (names only)
    std::vector<std::string> templateKinds;  // "typename" or the non-type parameter's type
    std::vector<KernelParam> params;         // resolved for non-template kernels only
    std::vector<std::string> rawParams;      // parameter declarations as written
    int line = 0;                            // line of the file where __global__ appears
};

// Finds every __global__ function of the device part and reads its parameters. Throws FileError
// (file and line) for a parameter type outside the dialect's table.
std::vector<KernelSignature> parseKernelSignatures(const NativeCandidate& candidate);

// The parameters of a kernel launched under `launchName`: the plain name for extern "C" kernels,
// a name expression such as "row_sum<256>" or "scale<float, 4>" for templates (template type
// parameters are replaced by the expression's arguments). Throws Error when the name matches no
// kernel or the expression does not fit the template.
struct ResolvedKernel {
    const KernelSignature* signature = nullptr;
    std::vector<KernelParam> params;
    bool nameExpression = false; // look it up through NVRTC's lowered name
};
ResolvedKernel resolveKernel(const std::vector<KernelSignature>& kernels,
                             const std::string& launchName);

// Where the device code computes in 16-bit floating point (half or bfloat16 types, conversion
// intrinsics, their headers). Comments and string literals are ignored.
struct PrecisionFinding {
    int line = 0; // line of the file
    std::string token;
};
std::vector<PrecisionFinding> scanReducedPrecision(const NativeCandidate& candidate);

// The device part with comments and string and character literals blanked out (replaced by
// spaces, newlines kept), so that scans see code only and lines stay where they were.
std::string blankCommentsAndStrings(const std::string& code);

} // namespace dice
