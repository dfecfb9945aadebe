// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/sass_listing.h"

#include <optional>
#include <string>

namespace dice {

// The CUDA toolkit's disassembler this machine has.
struct SassTool {
    enum class Kind {
        Nvdisasm, // reads the line table: instructions come with their source places
        Cuobjdump // the fallback: SASS without source places
    };
    Kind kind = Kind::Nvdisasm;
    std::string path;
};

// nvdisasm on the PATH, else in the bin folder of the CUDA toolkit NVRTC's headers come from;
// cuobjdump the same way where there is no nvdisasm.
std::optional<SassTool> findSassTool();

struct SassDisassembly {
    std::string tool;   // the program that ran; empty when none was found
    std::string output; // what it printed
    SassListing listing;
    std::string error; // why there is no listing, in plain words; empty when there is one
    bool ok() const { return error.empty(); }
};

// Disassembles a cubin (the bytes NVRTC made) through a temporary file: `nvdisasm -c -gi`, so
// that code inlined from a header is credited to the line that called it, or
// `cuobjdump --dump-sass`. A tool that runs past timeoutMs is killed.
SassDisassembly disassembleCubin(const std::string& cubin, int timeoutMs = 60000);

} // namespace dice
