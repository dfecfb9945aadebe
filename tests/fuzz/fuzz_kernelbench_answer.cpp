// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for what is done with a model's answer before it is evaluated: model tokens
// stripped, the first fenced block cut out, an infilling answer spliced into its skeleton, the
// dialect recognised. The input is the answer; after a NUL byte come the skeleton's prefix and,
// after a second, its suffix. Nothing may throw, and a spliced program must start with the given
// prefix and end with the given suffix.
#include "core/prompts/answer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void failure(const char* what) {
    std::fprintf(stderr, "%s\n", what);
    std::abort();
}

std::string withNewline(std::string text) {
    if (!text.empty() && text.back() != '\n')
        text += '\n';
    return text;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const std::size_t first = input.find('\0');
    const std::size_t second = first == std::string::npos ? first : input.find('\0', first + 1);
    const std::string answer = input.substr(0, first);
    const std::string prefix =
        first == std::string::npos ? std::string() : input.substr(first + 1, second - first - 1);
    const std::string suffix =
        second == std::string::npos ? std::string() : input.substr(second + 1);

    int masks = 0, specials = 0;
    const std::string stripped = dice::kernelbench::stripModelTokens(answer, &masks, &specials);
    if (stripped.size() > answer.size())
        failure("stripping model tokens made the answer longer");
    const dice::kernelbench::ExtractedCode code = dice::kernelbench::extractFirstCodeBlock(answer);
    if (code.found && code.code.size() > stripped.size())
        failure("the code block is longer than the answer");
    if (code.masksRemoved != masks || code.specialsRemoved != specials)
        failure("extraction counts other tokens than stripping");
    const auto splice =
        dice::kernelbench::spliceInfill(code.found ? code.code : answer, prefix, suffix);
    const std::string head = withNewline(prefix);
    const std::string tail = withNewline(suffix);
    if (splice.program.compare(0, head.size(), head) != 0)
        failure("the spliced program does not start with the given prefix");
    if (splice.program.size() < head.size() + tail.size() ||
        splice.program.compare(splice.program.size() - tail.size(), tail.size(), tail) != 0)
        failure("the spliced program does not end with the given suffix");
    dice::kernelbench::detectDialect(splice.program);
    dice::kernelbench::detectDialect(code.code);
    return 0;
}
