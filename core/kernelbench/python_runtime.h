// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <vector>

// Python for the KernelBench dialect: finding an interpreter, asking it what it offers, running
// the workbench's scripts. The native dialect needs none of this; without Python the KernelBench
// dialect reports what is missing and everything else keeps working.
namespace dice::kernelbench {

// What one interpreter offers, as the worker's --probe reports it.
struct PythonInfo {
    std::string executable;
    std::string version;
    bool torch = false;
    std::string torchVersion;
    std::string torchCuda; // CUDA version PyTorch was built with; empty for a CPU build
    bool cudaAvailable = false;
    int gpus = 0;
    std::string device;
    std::string nvcc;
    bool ninja = false;
    std::vector<std::string> problems; // why KernelBench candidates cannot run with it
    std::string error;                 // the probe itself failed
    bool canEvaluate() const { return error.empty() && problems.empty(); }
};

enum class PythonNeed {
    Any,      // static checks
    Torch,    // the importer (a CPU PyTorch is enough)
    CudaTorch // evaluating candidates: CUDA PyTorch, a GPU, nvcc and ninja
};

// Interpreters to try, in order: $DICE_PYTHON, each python3 on PATH, /usr/bin/python3,
// /usr/local/bin/python3; each real file once.
std::vector<std::string> pythonCandidates();

// Runs the worker script's --probe with one interpreter (a path, or a name found on PATH).
// Results are cached per executable.
PythonInfo probePython(const std::string& executable);

// The first candidate that meets the need; every probe made lands in `tried`.
std::optional<PythonInfo> findPython(PythonNeed need, std::vector<PythonInfo>* tried = nullptr);

// One paragraph for the user: what was tried and what is missing for the need.
std::string explainMissingPython(const std::vector<PythonInfo>& tried, PythonNeed need);

// <data folder>/python/NAME, or $DICE_PYTHON_SCRIPTS/NAME when that is set.
std::string pythonScript(const std::string& name);

} // namespace dice::kernelbench
