// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/compile_log_parser.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

namespace dice {

std::string toString(Severity severity) {
    switch (severity) {
    case Severity::Error:
        return "error";
    case Severity::Warning:
        return "warning";
    case Severity::Remark:
        return "remark";
    }
    return "error";
}

int CompileResult::errorCount() const {
    int n = 0;
    for (const auto& d : diagnostics)
        n += d.severity == Severity::Error;
    return n;
}

int CompileResult::warningCount() const {
    int n = 0;
    for (const auto& d : diagnostics)
        n += d.severity == Severity::Warning;
    return n;
}

namespace {

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::string line;
    std::istringstream in(text);
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        lines.push_back(line);
    }
    return lines;
}

bool startsWith(const std::string& s, const std::string& prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
}

// Reads a non-negative integer at pos; returns -1 when none.
long readNumber(const std::string& s, size_t& pos) {
    const size_t start = pos;
    long value = 0;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
        if (value < 100000000)
            value = value * 10 + (s[pos] - '0');
        ++pos;
    }
    return pos == start ? -1 : value;
}

// "file(12): error: text", "file(12): warning #177-D: text", "file(12): catastrophic error: text"
bool parseHeader(const std::string& line, Diagnostic& out) {
    const size_t open = line.find('(');
    if (open == std::string::npos || open == 0)
        return false;
    size_t pos = open + 1;
    const long number = readNumber(line, pos);
    if (number < 0 || pos + 2 >= line.size() || line[pos] != ')' || line[pos + 1] != ':' ||
        line[pos + 2] != ' ')
        return false;
    std::string rest = line.substr(pos + 3);
    struct Kind {
        const char* word;
        Severity severity;
    };
    static const Kind kinds[] = {{"catastrophic error", Severity::Error},
                                 {"error", Severity::Error},
                                 {"warning", Severity::Warning},
                                 {"remark", Severity::Remark}};
    for (const auto& kind : kinds) {
        if (!startsWith(rest, kind.word))
            continue;
        std::string after = rest.substr(std::string(kind.word).size());
        std::string code;
        if (startsWith(after, " #")) {
            const size_t colon = after.find(':');
            if (colon == std::string::npos)
                return false;
            code = after.substr(2, colon - 2);
            after = after.substr(colon);
        }
        if (!startsWith(after, ": "))
            return false;
        out.file = line.substr(0, open);
        out.line = static_cast<int>(number);
        out.column = 0;
        out.severity = kind.severity;
        out.code = code;
        out.message = after.substr(2);
        return true;
    }
    return false;
}

// "ptxas warning : text" and "ptxas error   : text": the assembler's own messages, with no
// source location.
bool parsePtxasMessage(const std::string& line, Diagnostic& out) {
    if (!startsWith(line, "ptxas "))
        return false;
    size_t pos = line.find_first_not_of(' ', 6);
    if (pos == std::string::npos)
        return false;
    Severity severity;
    if (line.compare(pos, 7, "warning") == 0) {
        severity = Severity::Warning;
        pos += 7;
    } else if (line.compare(pos, 5, "error") == 0 || line.compare(pos, 5, "fatal") == 0) {
        severity = Severity::Error;
        pos += 5;
    } else {
        return false;
    }
    pos = line.find_first_not_of(' ', pos);
    if (pos == std::string::npos || line[pos] != ':')
        return false;
    out.file = "ptxas";
    out.line = 0;
    out.column = 0;
    out.severity = severity;
    out.code.clear();
    const size_t text = line.find_first_not_of(' ', pos + 1);
    out.message = text == std::string::npos ? std::string() : line.substr(text);
    return true;
}

} // namespace

std::vector<Diagnostic> parseNvrtcLog(const std::string& log) {
    std::vector<Diagnostic> diagnostics;
    const auto lines = splitLines(log);
    for (size_t i = 0; i < lines.size(); ++i) {
        Diagnostic d;
        if (parsePtxasMessage(lines[i], d)) {
            diagnostics.push_back(d);
            continue;
        }
        if (!parseHeader(lines[i], d))
            continue;
        // NVRTC echoes the source line indented by two spaces and marks the column with a caret
        // on the next line.
        if (i + 2 < lines.size()) {
            const std::string& caretLine = lines[i + 2];
            const size_t caret = caretLine.find('^');
            const bool onlySpaces =
                caret != std::string::npos && caretLine.find_first_not_of(' ') == caret &&
                caretLine.find_first_not_of(' ', caret + 1) == std::string::npos;
            if (onlySpaces && caret >= 2) {
                d.column = static_cast<int>(caret - 2) + 1;
                i += 2;
            }
        }
        // Template errors continue with indented "detected during ..." lines.
        while (i + 1 < lines.size()) {
            const std::string& next = lines[i + 1];
            const size_t text = next.find_first_not_of(' ');
            if (text == std::string::npos || text < 4 || next.compare(text, 9, "detected ") != 0)
                break;
            d.message += " (" + next.substr(text) + ")";
            ++i;
        }
        diagnostics.push_back(d);
    }
    return diagnostics;
}

std::vector<ResourceUsage> parsePtxasInfo(const std::string& log) {
    std::vector<ResourceUsage> out;
    ResourceUsage* current = nullptr;
    std::string architecture;
    for (const auto& line : splitLines(log)) {
        if (!startsWith(line, "ptxas"))
            continue;
        const std::string entry = "Compiling entry function '";
        size_t at = line.find(entry);
        if (at != std::string::npos) {
            const size_t start = at + entry.size();
            const size_t end = line.find('\'', start);
            if (end == std::string::npos)
                continue;
            ResourceUsage usage;
            usage.function = line.substr(start, end - start);
            const std::string forWord = "for '";
            const size_t archAt = line.find(forWord, end);
            if (archAt != std::string::npos) {
                const size_t archEnd = line.find('\'', archAt + forWord.size());
                if (archEnd != std::string::npos)
                    usage.architecture =
                        line.substr(archAt + forWord.size(), archEnd - archAt - forWord.size());
            }
            out.push_back(usage);
            current = &out.back();
            continue;
        }
        if (!current)
            continue;
        auto numberBefore = [&](const std::string& suffix) -> int {
            const size_t where = line.find(suffix);
            if (where == std::string::npos)
                return -1;
            size_t begin = where;
            while (begin > 0 && line[begin - 1] == ' ')
                --begin;
            size_t digits = begin;
            while (digits > 0 && std::isdigit(static_cast<unsigned char>(line[digits - 1])))
                --digits;
            if (digits == begin)
                return -1;
            return std::atoi(line.substr(digits, begin - digits).c_str());
        };
        if (line.find("bytes stack frame") != std::string::npos) {
            current->stackFrameBytes = std::max(0, numberBefore("bytes stack frame"));
            current->spillStoreBytes = std::max(0, numberBefore("bytes spill stores"));
            current->spillLoadBytes = std::max(0, numberBefore("bytes spill loads"));
        } else if (line.find("Used ") != std::string::npos &&
                   line.find("registers") != std::string::npos) {
            current->registers = std::max(0, numberBefore("registers"));
            current->barriers = std::max(0, numberBefore("barriers"));
            current->sharedBytes = std::max(0, numberBefore("bytes smem"));
            current->constantBytes = std::max(0, numberBefore("bytes cmem[0]"));
        }
    }
    return out;
}

} // namespace dice
