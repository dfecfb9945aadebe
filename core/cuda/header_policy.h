// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/compile_types.h"

#include <string>
#include <vector>

// What device code may include. NVRTC opens whatever path an #include names (an absolute path, a
// path with "..", a file beside the process) and quotes the file's lines in its diagnostics, so a
// candidate could read any file of the host through a compile error. Before NVRTC sees a source,
// this check reads its preprocessing directives the way the compiler does and allows only
// headers of the CUDA toolkit's include folder, named in place (no macro), by a relative path
// that stays inside that folder. Where the compiler's reading and this one could differ (raw
// string literals, a stray backslash, non-ASCII characters outside comments and strings, a
// directive that is not in the standard set), the source is refused rather than guessed at.
namespace dice {

// The problems of a source, each located by its file and line as the source's #line directives
// say (the evaluator's sources start with one). Empty when NVRTC may compile it. `fileName` is
// the name NVRTC is given; `includeDirectory` the toolkit's include folder (empty: none, so no
// header may be included).
std::vector<Diagnostic> checkDeviceIncludes(const std::string& source, const std::string& fileName,
                                            const std::string& includeDirectory);

// The folders NVRTC searches for headers: the toolkit's include folder and, where it has one, its
// cccl folder. Empty when `includeDirectory` is.
std::vector<std::string> toolkitIncludeFolders(const std::string& includeDirectory);

// Whether `name`, as written between <> or "" in an #include, is one of the toolkit's
// device-side headers (cuda_*.h, curand_*.h, mma.h, sm_*_intrinsics.h, cuda/, cub/, thrust/, ...)
// and a regular file inside one of those folders, reached by a plain relative path.
bool isToolkitHeader(const std::string& name, const std::string& includeDirectory);

} // namespace dice
