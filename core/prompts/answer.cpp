// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/prompts/answer.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <vector>

namespace dice::kernelbench {

namespace {

const char* const kMaskTokens[] = {"<|MASK|>", "<MASK>"};
// Qwen3's added tokens marked special (ids 151643 to 151656): skip_special_tokens drops them.
const char* const kSpecialTokens[] = {
    "<|endoftext|>",      "<|im_start|>",     "<|im_end|>",     "<|object_ref_start|>",
    "<|object_ref_end|>", "<|box_start|>",    "<|box_end|>",    "<|quad_start|>",
    "<|quad_end|>",       "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>",
    "<|image_pad|>",      "<|video_pad|>"};

int removeAll(std::string& text, const std::string& token) {
    int count = 0;
    size_t at = 0;
    while ((at = text.find(token, at)) != std::string::npos) {
        text.erase(at, token.size());
        ++count;
    }
    return count;
}

bool isSpace(char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0;
}

std::string trim(const std::string& text) {
    size_t begin = 0;
    size_t end = text.size();
    while (begin < end && isSpace(text[begin]))
        ++begin;
    while (end > begin && isSpace(text[end - 1]))
        --end;
    return text.substr(begin, end - begin);
}

std::string rtrim(const std::string& text) {
    size_t end = text.size();
    while (end > 0 && isSpace(text[end - 1]))
        --end;
    return text.substr(0, end);
}

bool isLanguageTag(const std::string& text) {
    if (text.empty() || text.size() > 32)
        return false;
    return std::all_of(text.begin(), text.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+' || c == '-' ||
               c == '.' || c == '#';
    });
}

struct Line {
    size_t begin;     // offset of the first character
    size_t end;       // offset just past the line break (or the text's end)
    std::string text; // without the line break, trailing whitespace removed
};

std::vector<Line> splitLines(const std::string& text) {
    std::vector<Line> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t newline = text.find('\n', start);
        const size_t stop = newline == std::string::npos ? text.size() : newline;
        const size_t next = newline == std::string::npos ? text.size() : newline + 1;
        lines.push_back({start, next, rtrim(text.substr(start, stop - start))});
        start = next;
    }
    return lines;
}

std::vector<std::string> contentLines(const std::string& text) {
    std::vector<std::string> out;
    for (const auto& line : splitLines(text))
        if (!trim(line.text).empty())
            out.push_back(trim(line.text));
    return out;
}

std::string withNewline(std::string text) {
    if (!text.empty() && text.back() != '\n')
        text += '\n';
    return text;
}

} // namespace

std::string stripModelTokens(const std::string& text, int* masksRemoved, int* specialsRemoved) {
    std::string out = text;
    int masks = 0;
    int specials = 0;
    for (const char* token : kMaskTokens)
        masks += removeAll(out, token);
    for (const char* token : kSpecialTokens)
        specials += removeAll(out, token);
    if (masksRemoved)
        *masksRemoved = masks;
    if (specialsRemoved)
        *specialsRemoved = specials;
    return out;
}

ExtractedCode extractFirstCodeBlock(const std::string& answer) {
    ExtractedCode result;
    const std::string text =
        stripModelTokens(answer, &result.masksRemoved, &result.specialsRemoved);
    const std::string fence = "```";
    for (size_t at = text.find(fence), count = 0; at != std::string::npos;
         at = text.find(fence, at + fence.size()))
        result.blocks = static_cast<int>((++count + 1) / 2);
    const size_t open = text.find(fence);
    if (open == std::string::npos)
        return result;
    result.found = true;
    size_t contentStart = open + fence.size();
    const size_t lineEnd = text.find('\n', contentStart);
    const std::string info = trim(text.substr(
        contentStart, (lineEnd == std::string::npos ? text.size() : lineEnd) - contentStart));
    const size_t closeOnLine = text.find(fence, contentStart);
    const bool fenceOnSameLine =
        closeOnLine != std::string::npos && (lineEnd == std::string::npos || closeOnLine < lineEnd);
    if (!fenceOnSameLine && (info.empty() || isLanguageTag(info))) {
        result.language = info;
        contentStart = lineEnd == std::string::npos ? text.size() : lineEnd + 1;
    }
    const size_t close = text.find(fence, contentStart);
    result.terminated = close != std::string::npos;
    const std::string content =
        text.substr(contentStart, result.terminated ? close - contentStart : std::string::npos);
    result.code = trim(content);
    return result;
}

InfillSplice spliceInfill(const std::string& answerCode, const std::string& prefix,
                          const std::string& suffix) {
    InfillSplice result;
    const std::vector<Line> lines = splitLines(answerCode);
    const std::vector<std::string> prefixLines = contentLines(prefix);
    const std::vector<std::string> suffixLines = contentLines(suffix);

    // The prefix: the answer's leading content lines, compared line by line with the given ones.
    size_t middleLine = 0;
    size_t matched = 0;
    size_t index = 0;
    while (index < lines.size() && matched < prefixLines.size()) {
        const std::string text = trim(lines[index].text);
        if (text.empty()) {
            ++index;
            continue;
        }
        if (text != prefixLines[matched])
            break;
        ++matched;
        ++index;
    }
    if (!prefixLines.empty() && matched == prefixLines.size()) {
        result.prefixFound = true;
        middleLine = index;
    } else {
        // The model changed the prefix: skip the leading lines that belong to it anyway
        // (imports, the comment) and keep the rest as the middle.
        index = 0;
        while (index < lines.size()) {
            const std::string text = trim(lines[index].text);
            const bool known = text.empty() || std::find(prefixLines.begin(), prefixLines.end(),
                                                         text) != prefixLines.end();
            if (!known)
                break;
            ++index;
        }
        middleLine = index;
        // Some of the prefix came back, but not all of it as given.
        bool repeated = false;
        for (size_t i = 0; i < middleLine; ++i)
            repeated = repeated || !trim(lines[i].text).empty();
        result.prefixRewritten = repeated;
    }

    // The suffix: where its first content line appears after the middle starts.
    size_t suffixLine = lines.size();
    if (!suffixLines.empty()) {
        for (size_t i = middleLine; i < lines.size(); ++i) {
            if (trim(lines[i].text) == suffixLines.front()) {
                suffixLine = i;
                result.suffixFound = true;
                break;
            }
        }
        if (!result.suffixFound) {
            // No anchor: the middle ends where any line of the given suffix first shows up.
            for (size_t i = middleLine; i < lines.size(); ++i) {
                if (std::find(suffixLines.begin(), suffixLines.end(), trim(lines[i].text)) !=
                    suffixLines.end()) {
                    suffixLine = i;
                    result.suffixRewritten = true;
                    break;
                }
            }
        }
    }
    if (result.suffixFound) {
        std::vector<std::string> tail;
        for (size_t i = suffixLine; i < lines.size(); ++i)
            if (!trim(lines[i].text).empty())
                tail.push_back(trim(lines[i].text));
        result.suffixRewritten = tail != suffixLines;
    }

    const size_t begin = middleLine < lines.size() ? lines[middleLine].begin : answerCode.size();
    const size_t end = suffixLine < lines.size() ? lines[suffixLine].begin : answerCode.size();
    // The program keeps the answer's own layout between the parts (blank lines included), so
    // an answer that kept the skeleton comes back unchanged; `middle` is the bare generated code.
    const std::string slice = end > begin ? answerCode.substr(begin, end - begin) : std::string();
    result.middle = slice;
    while (!result.middle.empty() && result.middle.front() == '\n')
        result.middle.erase(result.middle.begin());
    result.middle = rtrim(result.middle);

    std::string program = withNewline(prefix);
    if (!trim(slice).empty())
        program += withNewline(slice);
    program += withNewline(suffix);
    result.program = program;

    if (result.suffixRewritten)
        result.note = "the answer rewrote the fixed suffix; the given suffix was put back";
    else if (!result.suffixFound)
        result.note = "the answer holds only the middle; the given prefix and suffix were added";
    else if (result.prefixRewritten)
        result.note = "the answer rewrote the fixed prefix; the given prefix was put back";
    else
        result.note = "the answer kept the given prefix and suffix";
    return result;
}

std::string toString(Dialect dialect) {
    switch (dialect) {
    case Dialect::Native:
        return "native";
    case Dialect::KernelBench:
        return "kernelbench";
    case Dialect::Unknown:
        return "unknown";
    }
    return "unknown";
}

DialectGuess detectDialect(const std::string& code) {
    bool device = false;
    bool host = false;
    for (const auto& line : splitLines(code)) {
        const std::string text = trim(line.text);
        device = device || text == "#pragma dice device";
        host = host || text == "#pragma dice host";
    }
    if (device && host)
        return {Dialect::Native, "it has the #pragma dice device and host sections"};
    static const std::regex modelNew(R"(\bclass\s+ModelNew\b)");
    if (std::regex_search(code, modelNew))
        return {Dialect::KernelBench, "it defines class ModelNew"};
    if (device || host)
        return {Dialect::Unknown, std::string("it has #pragma dice ") +
                                      (device ? "device" : "host") + " but not the other section"};
    return {Dialect::Unknown, "neither #pragma dice sections nor a class ModelNew"};
}

} // namespace dice::kernelbench
