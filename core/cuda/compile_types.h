// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <map>
#include <string>
#include <vector>

namespace dice {

enum class Severity { Error, Warning, Remark };

std::string toString(Severity severity);

// One compiler message, located in the user's file (line and column are 1-based; column 0 when
// the compiler gave none).
struct Diagnostic {
    std::string file;
    int line = 0;
    int column = 0;
    Severity severity = Severity::Error;
    std::string code; // "177-D" where the compiler numbers its warnings
    std::string message;
};

// What ptxas reports for one kernel.
struct ResourceUsage {
    std::string function;
    std::string architecture;
    int registers = 0;
    int barriers = 0;
    int sharedBytes = 0;   // static shared memory
    int constantBytes = 0; // cmem[0], the kernel's parameters and constants
    int stackFrameBytes = 0;
    int spillStoreBytes = 0;
    int spillLoadBytes = 0;
};

struct CompileOptions {
    // Target such as "sm_90"; empty means the present GPU's, else sm_90.
    std::string architecture;
    bool lineInfo = true;
    bool fastMath = false;
    // NVRTC's --Ofast-compile level ("min", "mid" or "max"): fewer optimisations for a faster
    // compile. Empty: every optimisation. Ignored by an NVRTC older than 12.8, which has none.
    std::string fastCompile;
    // Extra NVRTC options, passed through (for example "-DTILE=32").
    std::vector<std::string> extraOptions;
    // Template instantiations to make and look up by their lowered names.
    std::vector<std::string> nameExpressions;
};

struct CompileResult {
    bool ok = false;
    std::string architecture;
    std::string log;
    std::vector<Diagnostic> diagnostics;
    std::string ptx;
    std::string cubin; // binary
    std::vector<ResourceUsage> resources;
    std::map<std::string, std::string> loweredNames;
    double milliseconds = 0;
    bool fromCache = false;

    int errorCount() const;
    int warningCount() const;
};

} // namespace dice
