// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

// What is done with a model's answer before it is evaluated: the code is cut out of the text the
// way DICE's evaluation does it, an infilling answer is put back into its fixed skeleton, and the
// dialect is recognised.
namespace dice::kernelbench {

// Removes the tokens a decoded answer may still hold: mask tokens (<|MASK|>, <MASK>) wherever a
// block ended before every position was committed, and the special tokens that
// skip_special_tokens drops (<|endoftext|>, <|im_start|>, <|im_end|>, ...).
std::string stripModelTokens(const std::string& text, int* masksRemoved = nullptr,
                             int* specialsRemoved = nullptr);

struct ExtractedCode {
    bool found = false;      // the answer holds a fenced block
    std::string code;        // its content, language tag dropped, surrounding whitespace trimmed
    std::string language;    // the tag after the opening fence ("python", "cpp", ...), if any
    bool terminated = false; // false: no closing fence, the block runs to the end
    int blocks = 0;          // fenced blocks in the answer (only the first is used)
    int masksRemoved = 0;
    int specialsRemoved = 0;
};

// The first fenced code block, as DICE's extract_first_code takes it, plus what a model's raw
// output needs: model tokens are stripped first and an unterminated block is taken to the end.
ExtractedCode extractFirstCodeBlock(const std::string& answer);

// An infilling answer spliced into its skeleton. DICE asked for the whole program but never
// checked that the model kept the given prefix and suffix; here the generated middle is cut out
// and the given prefix and suffix are put around it, so the suffix (function names, signatures,
// the ModelNew that calls them) is always the one that was given.
struct InfillSplice {
    std::string program;      // prefix + middle + suffix
    std::string middle;       // what the model generated between them
    bool prefixFound = false; // the answer repeated the given prefix
    bool suffixFound = false; // the answer holds the given suffix's first line
    bool prefixRewritten = false;
    bool suffixRewritten = false; // the answer's suffix differs: the given one was put back
    std::string note;             // what was done, in one sentence
};

InfillSplice spliceInfill(const std::string& answerCode, const std::string& prefix,
                          const std::string& suffix);

enum class Dialect {
    Native,      // a .dice file: #pragma dice device / #pragma dice host
    KernelBench, // Python defining ModelNew (CUDA through load_inline)
    Unknown
};

std::string toString(Dialect dialect);

struct DialectGuess {
    Dialect dialect = Dialect::Unknown;
    std::string reason;
};

DialectGuess detectDialect(const std::string& code);

} // namespace dice::kernelbench
