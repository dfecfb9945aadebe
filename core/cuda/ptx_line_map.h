// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace dice {

// Whether a file name from a line table (PTX's .file, nvdisasm's source places) names the file
// compiled as sourceFile. NVRTC puts the working folder in front of the name it was given, so a
// match is the same name or one that ends with it after a path separator.
bool lineTableNamesFile(const std::string& recorded, const std::string& sourceFile);

// Which source line each line of PTX comes from, read from the `.file` and `.loc` directives that
// -lineinfo writes. Code inlined from another file (a CUDA header) is credited to the line of the
// source file it was inlined at, when the `.loc` says so.
class PtxLineMap {
public:
    // `sourceFile` is the name the source was compiled under (a `.file` entry ends with it).
    static PtxLineMap build(const std::string& ptx, const std::string& sourceFile);

    // 1-based source line of a 0-based PTX line; 0 for directives, declarations and lines with no
    // known source.
    int sourceLine(int ptxLine) const;
    // 0-based PTX lines of instructions that come from a 1-based source line, in order.
    std::vector<int> ptxLines(int sourceLine) const;
    // Source lines that have any instruction.
    int coveredSourceLines() const;
    int ptxLineCount() const { return static_cast<int>(m_source.size()); }

private:
    std::vector<int> m_source;
};

} // namespace dice
