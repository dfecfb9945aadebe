// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

// KernelBench problem files as native tasks. The conversion itself is Python
// (resources/python/kernelbench_import.py): it runs the problem file, traces Model with torch.fx
// and writes a TorchScript reference in which every submodule is its functional form, with the
// module's parameters as task parameters in a safetensors file beside the task. A conversion is
// kept only when the TorchScript reference gives the original Model's outputs on the same inputs.
namespace dice::kernelbench {

struct ImportOptions {
    std::string outputDirectory = "."; // task files and their .safetensors go here
    int level = 0;                     // 0: from the folder name (level1, level2, level3)
    bool dryRun = false;               // convert and verify, write nothing
    // With dryRun: fill parameters with a cheap pattern instead of the seeded initialisation
    // (the conversion check does not depend on the values; large layers take minutes to draw).
    bool fastInit = false;
    // Also compare each reference with the original Model at the bench sizes, on `device`
    // (a GPU: the bench sizes do not fit a CPU check). Writes nothing.
    bool verifyBench = false;
    std::string device; // "cuda", "cuda:1", ...; empty: the CPU
    std::string python; // empty: the first python3 with PyTorch
    // One problem may take this long (the first also starts Python and PyTorch); past it, it is
    // reported as not converted and the rest go on in a fresh process.
    int problemTimeoutMs = 10 * 60 * 1000;
    // The importer's private memory (RLIMIT_DATA in its sandbox); 0: half the machine's memory,
    // at most 32 GiB. A problem that needs more fails alone, with that said.
    std::int64_t memoryLimitBytes = 0;
};

struct ImportedProblem {
    std::string source; // the problem file
    bool converted = false;
    std::string task;               // the task's name
    std::string taskFile;           // where it was written (empty in a dry run)
    std::string reason;             // why it was not converted
    std::vector<std::string> notes; // e.g. an input distribution the task format cannot express
    double maxError = 0;            // TorchScript reference against Model on the small preset
};

struct ImportReport {
    std::string python; // the interpreter that did the work
    std::string torchVersion;
    std::vector<ImportedProblem> problems;
    int converted() const;
};

// Folders are expanded to their *.py files (sorted). Throws Error when no python3 with PyTorch
// can be found or the script fails as a whole; a problem that cannot be converted is listed with
// its reason instead. Every problem is reported: one that kills the importer (a signal, the
// memory limit, the time limit) is listed with what happened, and the problems after it are
// converted by a fresh importer.
// Half the machine's memory, at most 32 GiB.
std::int64_t defaultImportMemoryLimit();

ImportReport importKernelBench(const std::vector<std::string>& paths, const ImportOptions& options,
                               const std::function<void(const ImportedProblem&)>& onProblem = {});

} // namespace dice::kernelbench
