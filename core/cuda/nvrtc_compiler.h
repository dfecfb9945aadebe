// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/compile_types.h"

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace dice {

// Compiles CUDA C++ to PTX and cubin with NVRTC. Works without a GPU. Results are cached by
// source, file name and options, so recompiling an unchanged kernel costs a hash lookup.
// Thread-safe.
class NvrtcCompiler {
public:
    explicit NvrtcCompiler(std::size_t cacheEntries = 256);

    // Whether NVRTC was built in; when not, compile() returns a result with one error saying so.
    static bool available();
    // "13.0", or "none".
    static std::string version();
    // Whether this NVRTC knows --Ofast-compile (12.8 and later).
    static bool hasFastCompile();
    // The CUDA include folder passed to NVRTC (cuda_fp16.h and friends live there), or empty.
    static std::string cudaIncludeDirectory();
    // Target architecture used when the options name none: the first GPU's, else sm_90.
    static std::string defaultArchitecture();

    CompileResult compile(const std::string& source, const std::string& fileName,
                          const CompileOptions& options = {});

    std::size_t cacheHits() const;
    void clearCache();

private:
    CompileResult compileUncached(const std::string& source, const std::string& fileName,
                                  const CompileOptions& options, const std::string& arch);

    std::size_t m_capacity;
    mutable std::mutex m_mutex;
    std::list<std::string> m_order;
    std::unordered_map<std::string, std::pair<CompileResult, std::list<std::string>::iterator>>
        m_cache;
    std::size_t m_hits = 0;
};

} // namespace dice
