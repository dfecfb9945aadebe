// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dice {

// A line of a source file as a line table names it.
struct SourcePlace {
    std::string file;
    int line = 0;
    bool operator==(const SourcePlace& other) const {
        return file == other.file && line == other.line;
    }
};

// One SASS instruction as the disassembler printed it.
struct SassInstruction {
    std::uint64_t address = 0; // offset in its function
    std::string predicate;     // "@P0", "@!P1"; empty when it always runs
    std::string opcode;        // "LDG.E.CONSTANT"
    std::string operands;      // "R2, desc[UR4][R2.64]"; empty for "EXIT"
    // Labels defined just before it (".L_x_4"), where branches land.
    std::vector<std::string> labels;
    // Where it came from (nvdisasm -g or -gi on a cubin with line info); an empty file without.
    SourcePlace place;
    // With -gi, the calls it was inlined through: the innermost call site first.
    std::vector<SourcePlace> inlinedAt;

    // The instruction as written: predicate, opcode and operands.
    std::string text() const;
};

struct SassFunction {
    std::string name; // the symbol, mangled as the cubin has it
    std::vector<SassInstruction> instructions;
};

struct SassListing {
    std::string architecture; // "sm_90"
    std::vector<SassFunction> functions;
};

// Parses the output of `nvdisasm -c` (with or without -g, -gi, -hex). Throws Error naming the line
// for text that is not such output.
SassListing parseNvdisasmListing(const std::string& text);
// Parses the output of `cuobjdump --dump-sass` (which has no source places). Throws Error naming
// the line for text that is not such output.
SassListing parseCuobjdumpListing(const std::string& text);

nlohmann::json toJson(const SassListing& listing);

// The line of sourceFile (named as PtxLineMap names it) an instruction belongs to: its own place
// when that is in the file, else the innermost call site that is; 0 for none.
int sourceLineOf(const SassInstruction& instruction, const std::string& sourceFile);

// A listing as text for a reader: each function under its name, and every run of instructions
// from one line of the source under that line, quoted from the source (the way Compiler Explorer
// pairs them). Keeps which text line shows which source line.
class SassText {
public:
    // `source` is the compiled text (for the quoted lines); it may be empty.
    static SassText render(const SassListing& listing, const std::string& sourceFile,
                           const std::string& source);

    const std::string& text() const { return m_text; }
    // The 1-based source line of a 0-based text line (a quoted line or an instruction); 0 when
    // it has none.
    int sourceLine(int textLine) const;
    // The 0-based text lines of the instructions from a 1-based source line, in order.
    std::vector<int> instructionLines(int sourceLine) const;
    int lineCount() const { return static_cast<int>(m_sourceLines.size()); }

private:
    std::string m_text;
    std::vector<int> m_sourceLines;
    std::vector<bool> m_instruction;
};

} // namespace dice
