// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tasks/holes.h"

#include "core/common/error.h"

#include <cctype>

namespace dice {

namespace {

constexpr char kOpen[] = "{{hole";

bool isIdentifierChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool validName(const std::string& name) {
    if (name.empty())
        return true;
    if (std::isdigit(static_cast<unsigned char>(name[0])))
        return false;
    for (char c : name)
        if (!isIdentifierChar(c))
            return false;
    return true;
}

// Skips a comment or a string/char literal starting at i; returns the index after it, or i when
// nothing is there.
std::size_t skipNonCode(const std::string& s, std::size_t i) {
    if (s.compare(i, 2, "//") == 0) {
        const std::size_t end = s.find('\n', i);
        return end == std::string::npos ? s.size() : end;
    }
    if (s.compare(i, 2, "/*") == 0) {
        const std::size_t end = s.find("*/", i + 2);
        return end == std::string::npos ? s.size() : end + 2;
    }
    if (s[i] == '"' || s[i] == '\'') {
        const char quote = s[i];
        std::size_t j = i + 1;
        while (j < s.size() && s[j] != quote) {
            if (s[j] == '\\')
                ++j;
            if (s[j] == '\n')
                break;
            ++j;
        }
        return j < s.size() ? j + 1 : s.size();
    }
    return i;
}

// Index of the bracket closing the one at `open`, skipping comments and literals; npos if none.
std::size_t matchBracket(const std::string& s, std::size_t open, char opening, char closing) {
    int depth = 0;
    for (std::size_t i = open; i < s.size();) {
        const std::size_t skipped = skipNonCode(s, i);
        if (skipped != i) {
            i = skipped;
            continue;
        }
        if (s[i] == opening)
            ++depth;
        else if (s[i] == closing && --depth == 0)
            return i;
        ++i;
    }
    return std::string::npos;
}

} // namespace

std::string holeMarker(const std::string& name) {
    return name.empty() ? std::string("{{hole}}") : "{{hole:" + name + "}}";
}

std::vector<Hole> findHoles(const std::string& text) {
    std::vector<Hole> holes;
    int line = 1;
    std::size_t lineStart = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            lineStart = i + 1;
            continue;
        }
        if (text.compare(i, sizeof(kOpen) - 1, kOpen) != 0)
            continue;
        std::size_t j = i + sizeof(kOpen) - 1;
        std::string name;
        if (j < text.size() && text[j] == ':') {
            ++j;
            while (j < text.size() && isIdentifierChar(text[j]))
                name += text[j++];
            if (name.empty() || !validName(name))
                continue;
        }
        if (text.compare(j, 2, "}}") != 0)
            continue;
        Hole hole;
        hole.name = name;
        hole.offset = i;
        hole.length = j + 2 - i;
        hole.line = line;
        hole.column = static_cast<int>(i - lineStart) + 1;
        std::size_t k = lineStart;
        while (k < i && (text[k] == ' ' || text[k] == '\t'))
            ++k;
        hole.indentation = text.substr(lineStart, k - lineStart);
        holes.push_back(hole);
        i = j + 1;
    }
    return holes;
}

InfillContext infillContext(const std::string& text, const Hole& hole) {
    if (hole.offset + hole.length > text.size())
        throw Error("the hole lies outside the text");
    return {text.substr(0, hole.offset), text.substr(hole.offset + hole.length)};
}

std::string fillHole(const std::string& text, const Hole& hole, const std::string& content) {
    if (hole.offset + hole.length > text.size() ||
        text.compare(hole.offset, hole.length, holeMarker(hole.name)) != 0)
        throw Error("the hole " + holeMarker(hole.name) + " is no longer at line " +
                    std::to_string(hole.line) + "; find the holes again");
    return text.substr(0, hole.offset) + content + text.substr(hole.offset + hole.length);
}

std::string makeHole(const std::string& text, std::size_t begin, std::size_t end,
                     const std::string& name) {
    if (begin > end || end > text.size())
        throw Error("the selection lies outside the text");
    if (!validName(name))
        throw Error("\"" + name + "\" is not a valid hole name (letters, digits, underscores)");
    while (begin < end && std::isspace(static_cast<unsigned char>(text[begin])))
        ++begin;
    while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1])))
        --end;
    return text.substr(0, begin) + holeMarker(name) + text.substr(end);
}

namespace {

// The text with the skeleton's hole number k given its body (found again: fills move markers).
std::string withBody(const std::string& text, const Skeleton& skeleton, std::size_t k) {
    for (const auto& hole : findHoles(text))
        if (hole.name == skeleton.holes[k])
            return fillHole(text, hole, skeleton.bodies[k]);
    return text;
}

} // namespace

std::string skeletonWithOneHole(const Skeleton& skeleton, std::size_t target) {
    std::string text = skeleton.text;
    for (std::size_t k = 0; k < skeleton.holes.size(); ++k)
        if (k != target)
            text = withBody(text, skeleton, k);
    return text;
}

std::string skeletonFilledBefore(const Skeleton& skeleton, std::size_t target) {
    std::string text = skeleton.text;
    for (std::size_t k = 0; k < target && k < skeleton.holes.size(); ++k)
        text = withBody(text, skeleton, k);
    return text;
}

std::optional<Skeleton> makeSkeleton(const std::string& candidate) {
    const std::string hostPragma = "#pragma dice host";
    const std::size_t hostAt = candidate.find(hostPragma);
    const std::size_t deviceEnd = hostAt == std::string::npos ? candidate.size() : hostAt;

    Skeleton skeleton;
    std::string out;
    std::size_t copied = 0;
    for (std::size_t i = 0; i < deviceEnd;) {
        const std::size_t skipped = skipNonCode(candidate, i);
        if (skipped != i) {
            i = skipped;
            continue;
        }
        const bool keyword = candidate.compare(i, 10, "__global__") == 0 &&
                             (i == 0 || !isIdentifierChar(candidate[i - 1])) &&
                             (i + 10 >= candidate.size() || !isIdentifierChar(candidate[i + 10]));
        if (!keyword) {
            ++i;
            continue;
        }
        // The kernel's name is the identifier before the first '(' that is not an attribute's
        // (__launch_bounds__(256), __attribute__((...))).
        std::size_t paren = candidate.find('(', i);
        std::string name;
        while (paren != std::string::npos && paren < deviceEnd) {
            std::size_t nameEnd = paren;
            while (nameEnd > i && std::isspace(static_cast<unsigned char>(candidate[nameEnd - 1])))
                --nameEnd;
            std::size_t nameBegin = nameEnd;
            while (nameBegin > i && isIdentifierChar(candidate[nameBegin - 1]))
                --nameBegin;
            name = candidate.substr(nameBegin, nameEnd - nameBegin);
            if (name != "__launch_bounds__" && name != "__attribute__" && name != "__declspec" &&
                name != "alignas" && name != "__maxnreg__" && name != "__cluster_dims__")
                break;
            const std::size_t attributeEnd = matchBracket(candidate, paren, '(', ')');
            if (attributeEnd == std::string::npos)
                break;
            paren = candidate.find('(', attributeEnd + 1);
        }
        if (paren == std::string::npos || paren >= deviceEnd)
            break;
        const std::size_t close = matchBracket(candidate, paren, '(', ')');
        if (name.empty() || close == std::string::npos || close >= deviceEnd)
            break;
        std::size_t brace = close + 1;
        while (brace < deviceEnd && candidate[brace] != '{' && candidate[brace] != ';')
            ++brace;
        if (brace >= deviceEnd || candidate[brace] == ';') {
            i = brace; // a declaration, not a definition
            continue;
        }
        const std::size_t end = matchBracket(candidate, brace, '{', '}');
        if (end == std::string::npos || end >= deviceEnd)
            break;
        const std::string body = candidate.substr(brace + 1, end - brace - 1);
        // Keep the whitespace that surrounds the code so that filling the hole with the answer
        // restores the body byte for byte.
        std::size_t lead = 0;
        while (lead < body.size() && std::isspace(static_cast<unsigned char>(body[lead])))
            ++lead;
        std::size_t trail = body.size();
        while (trail > lead && std::isspace(static_cast<unsigned char>(body[trail - 1])))
            --trail;
        if (lead == body.size()) {
            i = end + 1; // an empty body has nothing to fill
            continue;
        }
        out += candidate.substr(copied, brace + 1 - copied);
        out += body.substr(0, lead) + holeMarker(name) + body.substr(trail);
        copied = end;
        skeleton.holes.push_back(name);
        skeleton.bodies.push_back(body.substr(lead, trail - lead));
        i = end + 1;
    }
    if (skeleton.holes.empty())
        return std::nullopt;
    out += candidate.substr(copied);
    skeleton.text = out;
    return skeleton;
}

} // namespace dice
