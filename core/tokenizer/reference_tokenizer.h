// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/tokenizer/tokenizer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dice {

// One run of the JavaScript reference tokenizer (tests/reference/tokenizer_reference.cjs under
// Node.js): the parity corpus it built and the ids it gave for every document, with its timing.
// The parity test and `dice bench tokenizer` both use it.
struct ReferenceDocument {
    std::string source; // "python", "man-ja", "generated", ...
    std::string name;
    std::string text;
    std::vector<std::int64_t> ids;
};

struct ReferenceRun {
    std::string reference;     // "@lenml/tokenizers 3.7.2"
    std::string node;          // Node.js version
    std::string tokenizer;     // the vocabulary, in words (package, file, extra tokens)
    std::string tokenizerJson; // the tokenizer.json it used
    nlohmann::json extraAddedTokens = nlohmann::json::array();
    nlohmann::json sources = nlohmann::json::object(); // bytes taken from each source
    std::uint64_t bytes = 0;
    double loadSeconds = 0;
    double coldSeconds = 0; // first pass over the corpus with a fresh tokenizer
    double warmSeconds = 0; // second pass
    std::vector<ReferenceDocument> documents;
};

// tests/reference/tokenizer_reference.cjs of the source tree that holds `start` (a build tree
// lives inside its source tree); empty when there is none.
std::string findReferenceScript(const std::string& start);

// Runs the script with `node` and reads what it wrote. Throws dice::Error with the script's own
// message when Node.js, the npm packages or the corpus sources are missing.
ReferenceRun runReferenceTokenizer(const std::string& script);

// Our tokenizer for the same vocabulary: the reference's tokenizer.json with the added tokens the
// reference appended to it.
Tokenizer loadReferenceTokenizer(const ReferenceRun& run);

} // namespace dice
