// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/header_policy.h"

#include <cctype>
#include <cstring>
#include <filesystem>
#include <regex>
#include <set>
#include <system_error>

namespace dice {

namespace {

constexpr std::size_t kMaxHeaderName = 200;
constexpr std::size_t kShownName = 120;

// The source after translation phases 1 and 2 as the compiler runs them: line splices removed
// and every line ending made '\n' (a lone carriage return counts as one: where a compiler would
// not end a line there, treating it as an end only finds more directives). Each character
// remembers the physical line it came from.
struct Spliced {
    std::string text;
    std::vector<int> line; // 1-based physical line of text[i]
};

Spliced splice(const std::string& source) {
    Spliced s;
    s.text.reserve(source.size());
    s.line.reserve(source.size());
    int line = 1;
    for (std::size_t i = 0; i < source.size(); ++i) {
        const char c = source[i];
        if (c == '\\' && i + 1 < source.size() &&
            (source[i + 1] == '\n' || source[i + 1] == '\r')) {
            i += source[i + 1] == '\r' && i + 2 < source.size() && source[i + 2] == '\n' ? 2 : 1;
            ++line;
            continue;
        }
        if (c == '\r') {
            s.text += '\n';
            s.line.push_back(line);
            if (i + 1 < source.size() && source[i + 1] == '\n')
                ++i;
            ++line;
            continue;
        }
        s.text += c;
        s.line.push_back(line);
        if (c == '\n')
            ++line;
    }
    return s;
}

bool identifierStart(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

bool identifierChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

std::string shown(const std::string& name) {
    std::string out;
    for (char c : name) {
        if (out.size() >= kShownName) {
            out += "...";
            break;
        }
        const auto u = static_cast<unsigned char>(c);
        out += (u >= 0x20 && u < 0x7F) ? c : '?';
    }
    return out;
}

// The names the toolkit's device-side headers go by. The folder alone does not say what is the
// toolkit's: a distribution may install the toolkit's headers beside every other library's in
// one system folder.
bool inToolkitFamily(const std::string& name) {
    static const std::regex file(
        "(cuda_[A-Za-z0-9_]+|cuComplex|curand(_[A-Za-z0-9_]+)?|cooperative_groups|mma|"
        "math_constants|math_functions|vector_types|vector_functions|device_[a-z_]+|"
        "sm_[0-9]+_[a-z_]+|texture_[a-z_]+|surface_[a-z_]+|channel_descriptor|builtin_types|"
        "driver_types|host_defines|library_types|common_functions)\\.(h|hpp)");
    static const std::set<std::string> folders = {"cuda", "cub", "thrust",
                                                  "nv",   "crt", "cooperative_groups"};
    const std::size_t slash = name.find('/');
    if (slash == std::string::npos)
        return std::regex_match(name, file);
    return folders.count(name.substr(0, slash)) != 0;
}

const std::set<std::string>& allowedDirectives() {
    static const std::set<std::string> names = {
        "define", "undef", "if",   "ifdef", "ifndef",  "elif",   "elifdef", "elifndef",
        "else",   "endif", "line", "error", "warning", "pragma", "include"};
    return names;
}

class Scanner {
public:
    Scanner(const std::string& source, const std::string& fileName, const std::string& include)
        : m_s(splice(source))
        , m_t(m_s.text)
        , m_file(fileName)
        , m_include(include) {}

    std::vector<Diagnostic> run() {
        bool lineStart = true;
        while (m_i < m_t.size() && m_problems.empty()) {
            const char c = m_t[m_i];
            if (c == '\n') {
                lineStart = true;
                ++m_i;
                continue;
            }
            if (c == ' ' || c == '\t' || c == '\f' || c == '\v') {
                ++m_i;
                continue;
            }
            if (startsWith("/*")) {
                // A directive may follow a comment that ended a line it did not start.
                if (skipBlockComment())
                    lineStart = true;
                continue;
            }
            if (startsWith("//")) {
                skipLine();
                continue;
            }
            if (lineStart && (c == '#' || startsWith("%:"))) {
                lineStart = false;
                directive();
                continue;
            }
            lineStart = false;
            token();
        }
        return m_problems;
    }

private:
    bool startsWith(const char* prefix) const {
        return m_t.compare(m_i, std::strlen(prefix), prefix) == 0;
    }

    // Lines as the compiler names them, after #line directives.
    int presumedLine(std::size_t at) const {
        const int physical =
            at < m_s.line.size() ? m_s.line[at] : (m_s.line.empty() ? 1 : m_s.line.back());
        return m_lineBase + (physical - m_lineBasePhysical);
    }

    void fail(std::size_t at, const std::string& message) {
        Diagnostic d;
        d.file = m_presumedFile.empty() ? m_file : m_presumedFile;
        d.line = presumedLine(at);
        d.severity = Severity::Error;
        d.message = message;
        m_problems.push_back(d);
    }

    // Returns true when the comment held a line end.
    bool skipBlockComment() {
        const std::size_t end = m_t.find("*/", m_i + 2);
        const std::size_t stop = end == std::string::npos ? m_t.size() : end + 2;
        const bool newline = m_t.find('\n', m_i) < stop;
        m_i = stop;
        return newline;
    }

    void skipLine() {
        while (m_i < m_t.size() && m_t[m_i] != '\n')
            ++m_i;
    }

    // Blanks and comments up to the next token on this directive line; a // comment ends it.
    void skipDirectiveSpace() {
        for (;;) {
            while (m_i < m_t.size() &&
                   (m_t[m_i] == ' ' || m_t[m_i] == '\t' || m_t[m_i] == '\f' || m_t[m_i] == '\v'))
                ++m_i;
            if (startsWith("/*")) {
                skipBlockComment();
                continue;
            }
            if (startsWith("//"))
                skipLine();
            return;
        }
    }

    void skipQuoted(char quote) {
        ++m_i;
        while (m_i < m_t.size() && m_t[m_i] != quote && m_t[m_i] != '\n') {
            if (m_t[m_i] == '\\' && m_i + 1 < m_t.size() && m_t[m_i + 1] != '\n')
                ++m_i;
            ++m_i;
        }
        if (m_i < m_t.size() && m_t[m_i] == quote)
            ++m_i;
    }

    void ppNumber() {
        ++m_i;
        while (m_i < m_t.size()) {
            const char c = m_t[m_i];
            if ((c == 'e' || c == 'E' || c == 'p' || c == 'P') && m_i + 1 < m_t.size() &&
                (m_t[m_i + 1] == '+' || m_t[m_i + 1] == '-')) {
                m_i += 2;
                continue;
            }
            if (identifierChar(c) || c == '.') {
                ++m_i;
                continue;
            }
            if (c == '\'' && m_i + 1 < m_t.size() && identifierChar(m_t[m_i + 1])) {
                m_i += 2;
                continue;
            }
            return;
        }
    }

    std::string identifier() {
        const std::size_t start = m_i;
        while (m_i < m_t.size() && identifierChar(m_t[m_i]))
            ++m_i;
        return m_t.substr(start, m_i - start);
    }

    void token() {
        const char c = m_t[m_i];
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\'') {
            skipQuoted(c);
            return;
        }
        if (identifierStart(c)) {
            const std::size_t at = m_i;
            const std::string id = identifier();
            if (id.back() == 'R' && m_i < m_t.size() && m_t[m_i] == '"')
                return fail(at, "raw string literals are not allowed in device code");
            if (id == "__has_include" || id == "__has_include_next")
                hasInclude(at, id);
            return;
        }
        if (std::isdigit(u) || (c == '.' && m_i + 1 < m_t.size() &&
                                std::isdigit(static_cast<unsigned char>(m_t[m_i + 1])))) {
            ppNumber();
            return;
        }
        if (c == '\\')
            return fail(m_i, "a backslash outside a string or a comment (a universal character "
                             "name or a line splice followed by blanks) is not allowed in device "
                             "code");
        if (u >= 0x80)
            return fail(m_i, "non-ASCII characters outside comments and strings are not allowed "
                             "in device code");
        if (u < 0x20 || u == 0x7F)
            return fail(m_i, "a control character outside comments and strings is not allowed in "
                             "device code");
        ++m_i;
    }

    // Reads `<name>` or `"name"` in place; false (and a problem) for anything else.
    bool headerName(std::size_t at, const std::string& what, std::string& name) {
        skipDirectiveSpace();
        if (m_i >= m_t.size() || (m_t[m_i] != '<' && m_t[m_i] != '"')) {
            fail(at, what + " must name a header in place, as <name> or \"name\" (a header "
                            "named through a macro is not allowed)");
            return false;
        }
        const char close = m_t[m_i] == '<' ? '>' : '"';
        const std::size_t start = ++m_i;
        while (m_i < m_t.size() && m_t[m_i] != close && m_t[m_i] != '\n')
            ++m_i;
        if (m_i >= m_t.size() || m_t[m_i] != close) {
            fail(at, what + ": the header name is not closed on its line");
            return false;
        }
        name = m_t.substr(start, m_i - start);
        ++m_i;
        if (!isToolkitHeader(name, m_include)) {
            const std::string written =
                (close == '>' ? "<" : "\"") + shown(name) + (close == '>' ? ">" : "\"");
            fail(at, what + " " + written +
                         " is not allowed: device code may include only headers of the CUDA "
                         "toolkit (such as <cuda_fp16.h> or <cuda_bf16.h>), named by a relative "
                         "path inside its include folder" +
                         (m_include.empty() ? std::string(" (this build has no CUDA include "
                                                          "folder, so none can be included)")
                                            : std::string()));
            return false;
        }
        return true;
    }

    void hasInclude(std::size_t at, const std::string& id) {
        skipDirectiveSpace();
        if (m_i >= m_t.size() || m_t[m_i] != '(')
            return fail(at, id + " must be followed by a header of the CUDA toolkit in "
                                 "parentheses");
        ++m_i;
        std::string name;
        if (!headerName(at, id, name))
            return;
        skipDirectiveSpace();
        if (m_i >= m_t.size() || m_t[m_i] != ')')
            return fail(at, id + "(...) must hold one header name");
        ++m_i;
    }

    void lineDirective(std::size_t at) {
        skipDirectiveSpace();
        const std::size_t start = m_i;
        while (m_i < m_t.size() && std::isdigit(static_cast<unsigned char>(m_t[m_i])))
            ++m_i;
        if (m_i == start || m_i - start > 9)
            return; // a #line through a macro: the compiler's lines and ours may part here
        const int number = std::stoi(m_t.substr(start, m_i - start));
        skipDirectiveSpace();
        std::string file;
        if (m_i < m_t.size() && m_t[m_i] == '"') {
            ++m_i;
            while (m_i < m_t.size() && m_t[m_i] != '"' && m_t[m_i] != '\n') {
                if (m_t[m_i] == '\\' && m_i + 1 < m_t.size() && m_t[m_i + 1] != '\n')
                    ++m_i;
                file += m_t[m_i++];
            }
        }
        skipLine();
        // The line after the directive has the number it gives.
        const int physical = m_s.line[at];
        m_lineBasePhysical = physical + 1;
        m_lineBase = number;
        if (!file.empty())
            m_presumedFile = file;
    }

    void directive() {
        const std::size_t at = m_i;
        m_i += m_t[m_i] == '#' ? 1 : 2;
        skipDirectiveSpace();
        if (m_i >= m_t.size() || m_t[m_i] == '\n')
            return; // the null directive
        if (std::isdigit(static_cast<unsigned char>(m_t[m_i]))) {
            // A line marker, "# 12 "file"": the compiler reads it as #line.
            m_i = at + (m_t[at] == '#' ? 1 : 2);
            return lineDirective(at);
        }
        if (!identifierStart(m_t[m_i]))
            return fail(at, "a preprocessing directive must start with its name");
        const std::string name = identifier();
        if (m_i < m_t.size() && m_t[m_i] == '\\')
            return fail(at, "a directive name spelled with a backslash is not allowed");
        if (!allowedDirectives().count(name))
            return fail(at, "#" + shown(name) +
                                " is not a preprocessing directive that device code may use");
        if (name == "line")
            return lineDirective(at);
        if (name != "include")
            return; // the rest of the line is read as code (an #if's __has_include)
        std::string header;
        if (!headerName(at, "#include", header))
            return;
        skipDirectiveSpace();
        if (m_i < m_t.size() && m_t[m_i] != '\n')
            fail(at, "#include <" + shown(header) + "> is followed by more text on its line");
    }

    Spliced m_s;
    const std::string& m_t;
    std::string m_file;
    std::string m_include;
    std::size_t m_i = 0;
    int m_lineBase = 1;
    int m_lineBasePhysical = 1;
    std::string m_presumedFile;
    std::vector<Diagnostic> m_problems;
};

} // namespace

std::vector<std::string> toolkitIncludeFolders(const std::string& includeDirectory) {
    namespace fs = std::filesystem;
    std::vector<std::string> folders;
    if (includeDirectory.empty())
        return folders;
    folders.push_back(includeDirectory);
    // CUDA 13 keeps libcu++, CUB and Thrust (<cuda/std/...>) in a folder of their own.
    std::error_code ec;
    const fs::path cccl = fs::path(includeDirectory) / "cccl";
    if (fs::is_directory(cccl, ec))
        folders.push_back(cccl.string());
    return folders;
}

bool isToolkitHeader(const std::string& name, const std::string& includeDirectory) {
    namespace fs = std::filesystem;
    if (includeDirectory.empty() || name.empty() || name.size() > kMaxHeaderName)
        return false;
    for (char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' ||
              c == '-' || c == '+'))
            return false;
    if (name.front() == '/')
        return false;
    std::size_t start = 0;
    while (start <= name.size()) {
        const std::size_t slash = name.find('/', start);
        const std::string part =
            name.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
        if (part.empty() || part == "." || part == "..")
            return false;
        if (slash == std::string::npos)
            break;
        start = slash + 1;
    }
    if (!inToolkitFamily(name))
        return false;
    for (const std::string& folder : toolkitIncludeFolders(includeDirectory)) {
        std::error_code ec;
        const fs::path root = fs::canonical(folder, ec);
        if (ec)
            continue;
        const fs::path file = fs::canonical(root / name, ec);
        if (ec || !fs::is_regular_file(file, ec))
            continue;
        // A link inside the folder that leads out of it does not count.
        const std::string rootText = root.string() + "/";
        if (file.string().compare(0, rootText.size(), rootText) == 0)
            return true;
    }
    return false;
}

std::vector<Diagnostic> checkDeviceIncludes(const std::string& source, const std::string& fileName,
                                            const std::string& includeDirectory) {
    return Scanner(source, fileName, includeDirectory).run();
}

} // namespace dice
