// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/ptx_line_map.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <sstream>

namespace dice {

namespace {

std::string trimmed(const std::string& line) {
    std::size_t begin = 0;
    while (begin < line.size() && std::isspace(static_cast<unsigned char>(line[begin])))
        ++begin;
    std::size_t end = line.size();
    while (end > begin && std::isspace(static_cast<unsigned char>(line[end - 1])))
        --end;
    return line.substr(begin, end - begin);
}

bool startsWith(const std::string& text, const char* prefix) {
    return text.rfind(prefix, 0) == 0;
}

// `.file 1 "name"` with optional timestamp and size after the name.
bool parseFile(const std::string& line, int* index, std::string* name) {
    std::istringstream in(line.substr(5));
    if (!(in >> *index))
        return false;
    const auto open = line.find('"');
    const auto close = open == std::string::npos ? open : line.find('"', open + 1);
    if (close == std::string::npos)
        return false;
    *name = line.substr(open + 1, close - open - 1);
    return true;
}

// An instruction line: not a directive, declaration, label, brace or comment.
bool isInstruction(const std::string& line) {
    if (line.empty() || line[0] == '.' || line[0] == '/' || line[0] == '{' || line[0] == '}' ||
        line[0] == ')' || line[0] == '(' || line.back() == ':')
        return false;
    return line.find(';') != std::string::npos;
}

} // namespace

bool lineTableNamesFile(const std::string& recorded, const std::string& sourceFile) {
    if (sourceFile.empty() || recorded.size() < sourceFile.size() ||
        recorded.compare(recorded.size() - sourceFile.size(), sourceFile.size(), sourceFile) != 0)
        return false;
    return recorded.size() == sourceFile.size() || sourceFile.front() == '/' ||
           recorded[recorded.size() - sourceFile.size() - 1] == '/';
}

PtxLineMap PtxLineMap::build(const std::string& ptx, const std::string& sourceFile) {
    std::vector<std::string> lines;
    {
        std::istringstream in(ptx);
        for (std::string raw; std::getline(in, raw);)
            lines.push_back(trimmed(raw));
    }
    // NVRTC writes the .file table after the code, so it is read first.
    std::set<int> ours;
    for (const std::string& line : lines) {
        int index = 0;
        std::string name;
        if (startsWith(line, ".file") && parseFile(line, &index, &name) &&
            lineTableNamesFile(name, sourceFile))
            ours.insert(index);
    }
    PtxLineMap map;
    int current = 0;
    for (const std::string& line : lines) {
        int mapped = 0;
        if (startsWith(line, ".loc")) {
            // .loc FILE LINE COL [, function_name ..., inlined_at FILE LINE COL]
            std::istringstream fields(line.substr(4));
            int file = 0;
            int sourceLine = 0;
            fields >> file >> sourceLine;
            current = ours.count(file) ? sourceLine : 0;
            const auto inlined = line.find("inlined_at");
            if (current == 0 && inlined != std::string::npos) {
                std::istringstream at(line.substr(inlined + 10));
                int atFile = 0;
                int atLine = 0;
                if (at >> atFile >> atLine && ours.count(atFile))
                    current = atLine;
            }
        } else if (startsWith(line, ".entry") || startsWith(line, ".visible .entry") ||
                   startsWith(line, ".func") || startsWith(line, ".visible .func")) {
            current = 0;
        } else if (isInstruction(line)) {
            mapped = current;
        }
        map.m_source.push_back(mapped);
    }
    return map;
}

int PtxLineMap::sourceLine(int ptxLine) const {
    if (ptxLine < 0 || ptxLine >= static_cast<int>(m_source.size()))
        return 0;
    return m_source[static_cast<std::size_t>(ptxLine)];
}

std::vector<int> PtxLineMap::ptxLines(int sourceLine) const {
    std::vector<int> lines;
    if (sourceLine <= 0)
        return lines;
    for (std::size_t i = 0; i < m_source.size(); ++i)
        if (m_source[i] == sourceLine)
            lines.push_back(static_cast<int>(i));
    return lines;
}

int PtxLineMap::coveredSourceLines() const {
    std::set<int> lines(m_source.begin(), m_source.end());
    lines.erase(0);
    return static_cast<int>(lines.size());
}

} // namespace dice
