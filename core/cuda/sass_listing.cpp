// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/sass_listing.h"

#include "core/common/error.h"
#include "core/common/utf8.h"
#include "core/cuda/ptx_line_map.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <sstream>

namespace dice {

namespace {

std::string trimmed(const std::string& text) {
    std::size_t begin = 0;
    while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin])))
        ++begin;
    std::size_t end = text.size();
    while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1])))
        --end;
    return text.substr(begin, end - begin);
}

bool startsWith(const std::string& text, const std::string& prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

bool endsWith(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool isHex(const std::string& text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isxdigit(static_cast<unsigned char>(c)) != 0;
    });
}

// Reports a line the parser cannot place.
[[noreturn]] void reject(const std::string& tool, int lineNumber, const std::string& line,
                         const std::string& why) {
    const std::string shown = line.size() > 120 ? line.substr(0, 120) + "..." : line;
    throw Error(tool + " output, line " + std::to_string(lineNumber) + ": " + why + ": \"" + shown +
                "\"");
}

// `/* 0x000fe20000000800 */`: the second word of an encoding that -hex or cuobjdump prints.
bool isEncodingComment(const std::string& line) {
    if (!startsWith(line, "/*") || !endsWith(line, "*/"))
        return false;
    const std::string inside = trimmed(line.substr(2, line.size() - 4));
    return startsWith(inside, "0x") && isHex(inside.substr(2));
}

// A label: one word ending in a colon.
bool isLabel(const std::string& line) {
    return line.size() > 1 && line.back() == ':' &&
           std::none_of(line.begin(), line.end(),
                        [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
}

// `/*0070*/  @P0 EXIT ;  /* 0x... */` into an instruction; nullopt when the line does not start
// with an address.
std::optional<SassInstruction> parseInstruction(const std::string& tool, int lineNumber,
                                                const std::string& line) {
    if (!startsWith(line, "/*"))
        return std::nullopt;
    const auto close = line.find("*/", 2);
    if (close == std::string::npos)
        return std::nullopt;
    const std::string address = line.substr(2, close - 2);
    if (!isHex(address))
        return std::nullopt;
    if (address.size() > 15)
        reject(tool, lineNumber, line, "the address is too large");
    SassInstruction instruction;
    instruction.address = std::stoull(address, nullptr, 16);
    const std::string rest = line.substr(close + 2);
    const auto semicolon = rest.find(';');
    if (semicolon == std::string::npos)
        reject(tool, lineNumber, line, "an instruction without its closing ';'");
    const std::string after = trimmed(rest.substr(semicolon + 1));
    if (!after.empty() && !isEncodingComment(after))
        reject(tool, lineNumber, line, "unexpected text after the instruction");
    std::string text = trimmed(rest.substr(0, semicolon));
    if (text.empty())
        reject(tool, lineNumber, line, "an address without an instruction");
    if (text.front() == '@') {
        const auto space = text.find_first_of(" \t");
        if (space == std::string::npos)
            reject(tool, lineNumber, line, "a predicate without an instruction");
        instruction.predicate = text.substr(0, space);
        text = trimmed(text.substr(space));
    }
    const auto space = text.find_first_of(" \t");
    instruction.opcode = text.substr(0, space);
    instruction.operands = space == std::string::npos ? std::string() : trimmed(text.substr(space));
    return instruction;
}

// `//## File "PATH", line N` with an optional `inlined at "PATH", line M`.
struct PlaceLine {
    SourcePlace place;
    std::optional<SourcePlace> inlinedAt;
};

// Reads `"PATH", line N` from the start of text; returns where it ended, or npos.
std::size_t readPlace(const std::string& text, std::size_t from, SourcePlace* place) {
    if (from >= text.size() || text[from] != '"')
        return std::string::npos;
    const auto quote = text.find("\", line ", from + 1);
    if (quote == std::string::npos)
        return std::string::npos;
    place->file = text.substr(from + 1, quote - from - 1);
    std::size_t at = quote + 8;
    const std::size_t digits = at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])))
        ++at;
    if (at == digits || at - digits > 9)
        return std::string::npos;
    place->line = std::stoi(text.substr(digits, at - digits));
    return at;
}

PlaceLine parsePlaceLine(int lineNumber, const std::string& line) {
    const std::string prefix = "//## File ";
    PlaceLine parsed;
    std::size_t at = readPlace(line, prefix.size(), &parsed.place);
    if (at == std::string::npos)
        reject("nvdisasm", lineNumber, line, "a source place that cannot be read");
    const std::string inlined = " inlined at ";
    if (line.compare(at, inlined.size(), inlined) == 0) {
        SourcePlace site;
        at = readPlace(line, at + inlined.size(), &site);
        if (at == std::string::npos)
            reject("nvdisasm", lineNumber, line, "a call site that cannot be read");
        parsed.inlinedAt = site;
    }
    if (!trimmed(line.substr(at)).empty())
        reject("nvdisasm", lineNumber, line, "unexpected text after the source place");
    return parsed;
}

// The text between the dashes of `//----- .text.NAME -----`.
std::string sectionOf(const std::string& line) {
    std::size_t begin = 2;
    while (begin < line.size() && line[begin] == '-')
        ++begin;
    std::size_t end = line.size();
    while (end > begin && line[end - 1] == '-')
        --end;
    return trimmed(line.substr(begin, end - begin));
}

// The tools write ASCII, and UTF-8 in file names; anything else is not their output.
void requireText(const std::string& tool, const std::string& text) {
    const std::size_t bad = firstInvalidUtf8(text);
    if (bad == std::string::npos)
        return;
    const auto lineNumber =
        1 + std::count(text.begin(), text.begin() + static_cast<long>(bad), '\n');
    throw Error(tool + " output, line " + std::to_string(lineNumber) + ": not UTF-8 text");
}

std::string fileName(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

std::string SassInstruction::text() const {
    std::string out = predicate.empty() ? opcode : predicate + " " + opcode;
    if (!operands.empty())
        out += " " + operands;
    return out;
}

SassListing parseNvdisasmListing(const std::string& text) {
    requireText("nvdisasm", text);
    SassListing listing;
    SassFunction* function = nullptr;
    // With -gi an instruction's place comes as a chain of lines: the innermost first, each with
    // the call site it was inlined at, down to a line without one. A place holds for the
    // instructions after it until the next.
    std::vector<PlaceLine> chain;
    bool chainComplete = true;
    SourcePlace place;
    std::vector<SourcePlace> inlinedAt;
    std::vector<std::string> labels;
    std::istringstream in(text);
    int lineNumber = 0;
    for (std::string raw; std::getline(in, raw);) {
        ++lineNumber;
        const std::string line = trimmed(raw);
        if (line.empty())
            continue;
        if (startsWith(line, "//---")) {
            const std::string section = sectionOf(line);
            function = nullptr;
            if (startsWith(section, ".text.") && section.size() > 6) {
                listing.functions.push_back({section.substr(6), {}});
                function = &listing.functions.back();
            }
            chain.clear();
            chainComplete = true;
            place = SourcePlace();
            inlinedAt.clear();
            labels.clear();
            continue;
        }
        if (startsWith(line, "//## File ")) {
            if (chainComplete)
                chain.clear();
            chain.push_back(parsePlaceLine(lineNumber, line));
            chainComplete = !chain.back().inlinedAt;
            continue;
        }
        if (startsWith(line, "//"))
            continue;
        if (auto instruction = parseInstruction("nvdisasm", lineNumber, line)) {
            if (!function)
                reject("nvdisasm", lineNumber, line, "an instruction outside a function");
            if (!chain.empty()) {
                place = chain.front().place;
                inlinedAt.clear();
                for (const PlaceLine& link : chain)
                    if (link.inlinedAt)
                        inlinedAt.push_back(*link.inlinedAt);
                chain.clear();
                chainComplete = true;
            }
            instruction->place = place;
            instruction->inlinedAt = inlinedAt;
            instruction->labels = std::move(labels);
            labels.clear();
            function->instructions.push_back(std::move(*instruction));
            continue;
        }
        if (isEncodingComment(line))
            continue;
        if (isLabel(line)) {
            const std::string name = line.substr(0, line.size() - 1);
            // The function's own symbol and section start are not branch targets.
            if (function && name != function->name && name != ".text." + function->name)
                labels.push_back(name);
            continue;
        }
        if (line.front() == '.') {
            if (startsWith(line, ".target")) {
                listing.architecture = trimmed(line.substr(7));
                if (listing.architecture.empty())
                    reject("nvdisasm", lineNumber, line, "a target without an architecture");
            }
            continue;
        }
        reject("nvdisasm", lineNumber, line, "not nvdisasm output");
    }
    return listing;
}

SassListing parseCuobjdumpListing(const std::string& text) {
    requireText("cuobjdump", text);
    SassListing listing;
    SassFunction* function = nullptr;
    std::istringstream in(text);
    int lineNumber = 0;
    for (std::string raw; std::getline(in, raw);) {
        ++lineNumber;
        const std::string line = trimmed(raw);
        if (line.empty() || isEncodingComment(line))
            continue;
        if (startsWith(line, "Function : ")) {
            const std::string name = trimmed(line.substr(11));
            if (name.empty())
                reject("cuobjdump", lineNumber, line, "a function without a name");
            listing.functions.push_back({name, {}});
            function = &listing.functions.back();
            continue;
        }
        if (auto instruction = parseInstruction("cuobjdump", lineNumber, line)) {
            if (!function)
                reject("cuobjdump", lineNumber, line, "an instruction outside a function");
            function->instructions.push_back(std::move(*instruction));
            continue;
        }
        if (line.find_first_not_of('.') == std::string::npos) {
            function = nullptr; // the dots that end a function
            continue;
        }
        if (startsWith(line, "code for ")) {
            listing.architecture = trimmed(line.substr(9));
            continue;
        }
        if (startsWith(line, ".target")) {
            listing.architecture = trimmed(line.substr(7));
            continue;
        }
        // Directives, and the headers of a fat binary: "Fatbin elf code:", "=====",
        // "arch = sm_90", "code version = [1,8]", ...
        if (line.front() == '.' || startsWith(line, "Fatbin ") ||
            line.find_first_not_of('=') == std::string::npos ||
            line.find(" = ") != std::string::npos)
            continue;
        reject("cuobjdump", lineNumber, line, "not cuobjdump output");
    }
    return listing;
}

nlohmann::json toJson(const SassListing& listing) {
    nlohmann::json functions = nlohmann::json::array();
    for (const SassFunction& function : listing.functions) {
        nlohmann::json instructions = nlohmann::json::array();
        for (const SassInstruction& i : function.instructions) {
            nlohmann::json inlined = nlohmann::json::array();
            for (const SourcePlace& site : i.inlinedAt)
                inlined.push_back({{"file", site.file}, {"line", site.line}});
            instructions.push_back({{"address", i.address},
                                    {"predicate", i.predicate},
                                    {"opcode", i.opcode},
                                    {"operands", i.operands},
                                    {"labels", i.labels},
                                    {"file", i.place.file},
                                    {"line", i.place.line},
                                    {"inlined_at", inlined}});
        }
        functions.push_back({{"name", function.name}, {"instructions", instructions}});
    }
    return {{"architecture", listing.architecture}, {"functions", functions}};
}

int sourceLineOf(const SassInstruction& instruction, const std::string& sourceFile) {
    if (!instruction.place.file.empty() && lineTableNamesFile(instruction.place.file, sourceFile))
        return instruction.place.line;
    for (const SourcePlace& site : instruction.inlinedAt)
        if (lineTableNamesFile(site.file, sourceFile))
            return site.line;
    return 0;
}

SassText SassText::render(const SassListing& listing, const std::string& sourceFile,
                          const std::string& source) {
    std::vector<std::string> sourceLines;
    {
        std::istringstream in(source);
        for (std::string line; std::getline(in, line);)
            sourceLines.push_back(trimmed(line));
    }
    SassText out;
    const auto add = [&out](const std::string& line, int sourceLine, bool instruction) {
        out.m_text += line + "\n";
        out.m_sourceLines.push_back(sourceLine);
        out.m_instruction.push_back(instruction);
    };
    const std::string shownName = fileName(sourceFile);
    for (const SassFunction& function : listing.functions) {
        if (!out.m_text.empty())
            add("", 0, false);
        add("// " + function.name, 0, false);
        std::optional<std::pair<int, SourcePlace>> shown;
        for (const SassInstruction& instruction : function.instructions) {
            const int line = sourceLineOf(instruction, sourceFile);
            // Instructions from elsewhere (a header's code not inlined into this file) are
            // headed by the place they come from.
            const SourcePlace elsewhere = line > 0 ? SourcePlace() : instruction.place;
            const std::pair<int, SourcePlace> key{line, elsewhere};
            if ((line > 0 || !elsewhere.file.empty()) && (!shown || *shown != key)) {
                if (line > 0) {
                    const std::string& quoted = line <= static_cast<int>(sourceLines.size())
                                                    ? sourceLines[static_cast<size_t>(line - 1)]
                                                    : std::string();
                    add("// " + shownName + ":" + std::to_string(line) +
                            (quoted.empty() ? "" : "  " + quoted),
                        line, false);
                } else {
                    add("// " + fileName(elsewhere.file) + ":" + std::to_string(elsewhere.line), 0,
                        false);
                }
            }
            shown = key;
            for (const std::string& label : instruction.labels)
                add(label + ":", 0, false);
            char address[32];
            std::snprintf(address, sizeof(address), "/*%04llx*/",
                          static_cast<unsigned long long>(instruction.address));
            std::string predicate = instruction.predicate;
            if (predicate.size() < 5)
                predicate.insert(0, 5 - predicate.size(), ' ');
            std::string text =
                "        " + std::string(address) + " " + predicate + " " + instruction.opcode;
            if (!instruction.operands.empty())
                text += " " + instruction.operands;
            add(text + " ;", line, true);
        }
    }
    return out;
}

int SassText::sourceLine(int textLine) const {
    if (textLine < 0 || textLine >= static_cast<int>(m_sourceLines.size()))
        return 0;
    return m_sourceLines[static_cast<size_t>(textLine)];
}

std::vector<int> SassText::instructionLines(int sourceLine) const {
    std::vector<int> lines;
    if (sourceLine <= 0)
        return lines;
    for (std::size_t i = 0; i < m_sourceLines.size(); ++i)
        if (m_instruction[i] && m_sourceLines[i] == sourceLine)
            lines.push_back(static_cast<int>(i));
    return lines;
}

} // namespace dice
