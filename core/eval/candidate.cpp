// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/eval/candidate.h"

#include "core/common/error.h"
#include "core/common/file_limits.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

namespace dice {

namespace {

std::string trim(const std::string& text) {
    std::size_t begin = 0;
    std::size_t end = text.size();
    while (begin < end && std::isspace(static_cast<unsigned char>(text[begin])))
        ++begin;
    while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1])))
        --end;
    return text.substr(begin, end - begin);
}

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (;;) {
        const std::size_t newline = text.find('\n', start);
        if (newline == std::string::npos) {
            lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, newline - start));
        start = newline + 1;
    }
    for (auto& line : lines)
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
    return lines;
}

// "#pragma dice device" with any spacing; returns "device", "host", another word, or "".
std::string pragmaSection(const std::string& line) {
    const std::string t = trim(line);
    if (t.empty() || t[0] != '#')
        return {};
    std::vector<std::string> words;
    std::string word;
    for (std::size_t i = 1; i <= t.size(); ++i) {
        if (i == t.size() || std::isspace(static_cast<unsigned char>(t[i]))) {
            if (!word.empty())
                words.push_back(word);
            word.clear();
        } else {
            word += t[i];
        }
    }
    if (words.size() >= 2 && words[0] == "pragma" && words[1] == "dice")
        return words.size() == 3 ? words[2] : std::string("?");
    return {};
}

bool isIdentStart(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool isIdentChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

struct Token {
    std::string text;
    int line = 0; // line within the device part, 1-based
    bool identifier = false;
};

std::vector<Token> tokenize(const std::string& code) {
    std::vector<Token> tokens;
    int line = 1;
    std::size_t i = 0;
    while (i < code.size()) {
        const char c = code[i];
        if (c == '\n') {
            ++line;
            ++i;
        } else if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
        } else if (isIdentStart(c)) {
            std::size_t j = i;
            while (j < code.size() && isIdentChar(code[j]))
                ++j;
            tokens.push_back({code.substr(i, j - i), line, true});
            i = j;
        } else if (std::isdigit(static_cast<unsigned char>(c))) {
            std::size_t j = i;
            while (j < code.size() && (isIdentChar(code[j]) || code[j] == '.'))
                ++j;
            tokens.push_back({code.substr(i, j - i), line, false});
            i = j;
        } else if (c == '"') {
            // Only "C" survives blanking (extern "C"); keep it as one token.
            std::size_t j = code.find('"', i + 1);
            if (j == std::string::npos)
                j = code.size() - 1;
            tokens.push_back({code.substr(i, j - i + 1), line, false});
            i = j + 1;
        } else if (c == ':' && i + 1 < code.size() && code[i + 1] == ':') {
            tokens.push_back({"::", line, false});
            i += 2;
        } else {
            tokens.push_back({std::string(1, c), line, false});
            ++i;
        }
    }
    return tokens;
}

const std::set<std::string> kQualifiers = {"const",      "volatile",      "__restrict__",
                                           "__restrict", "restrict",      "__grid_constant__",
                                           "struct",     "__align__dummy"};

const std::set<std::string> kTypeWords = {"int",   "long",   "short", "unsigned", "signed",
                                          "float", "double", "bool",  "char"};

struct TypeEntry {
    const char* type;
    ParamKind kind;
    DType dtype;
    int width;
};

// The dialect's table of parameter types (docs/native-dialect.md).
const TypeEntry kPointerTypes[] = {
    {"float", ParamKind::Pointer, DType::Float32, 1},
    {"float2", ParamKind::Pointer, DType::Float32, 2},
    {"float4", ParamKind::Pointer, DType::Float32, 4},
    {"__half", ParamKind::Pointer, DType::Float16, 1},
    {"half", ParamKind::Pointer, DType::Float16, 1},
    {"__half2", ParamKind::Pointer, DType::Float16, 2},
    {"half2", ParamKind::Pointer, DType::Float16, 2},
    {"__nv_bfloat16", ParamKind::Pointer, DType::BFloat16, 1},
    {"nv_bfloat16", ParamKind::Pointer, DType::BFloat16, 1},
    {"__nv_bfloat162", ParamKind::Pointer, DType::BFloat16, 2},
    {"double", ParamKind::Pointer, DType::Float64, 1},
    {"int", ParamKind::Pointer, DType::Int32, 1},
    {"signed int", ParamKind::Pointer, DType::Int32, 1},
    {"int32_t", ParamKind::Pointer, DType::Int32, 1},
    {"int2", ParamKind::Pointer, DType::Int32, 2},
    {"int4", ParamKind::Pointer, DType::Int32, 4},
    {"long long", ParamKind::Pointer, DType::Int64, 1},
    {"long long int", ParamKind::Pointer, DType::Int64, 1},
    {"long", ParamKind::Pointer, DType::Int64, 1},
    {"int64_t", ParamKind::Pointer, DType::Int64, 1},
    {"bool", ParamKind::Pointer, DType::Bool, 1},
    {"unsigned char", ParamKind::Pointer, DType::Bool, 1},
    {"uint8_t", ParamKind::Pointer, DType::Bool, 1},
};

const TypeEntry kScalarTypes[] = {
    {"int", ParamKind::Int32, DType::Int32, 1},
    {"signed", ParamKind::Int32, DType::Int32, 1},
    {"signed int", ParamKind::Int32, DType::Int32, 1},
    {"int32_t", ParamKind::Int32, DType::Int32, 1},
    {"unsigned", ParamKind::UInt32, DType::Int32, 1},
    {"unsigned int", ParamKind::UInt32, DType::Int32, 1},
    {"uint32_t", ParamKind::UInt32, DType::Int32, 1},
    {"long", ParamKind::Int64, DType::Int64, 1},
    {"long int", ParamKind::Int64, DType::Int64, 1},
    {"long long", ParamKind::Int64, DType::Int64, 1},
    {"long long int", ParamKind::Int64, DType::Int64, 1},
    {"int64_t", ParamKind::Int64, DType::Int64, 1},
    {"size_t", ParamKind::UInt64, DType::Int64, 1},
    {"unsigned long", ParamKind::UInt64, DType::Int64, 1},
    {"unsigned long long", ParamKind::UInt64, DType::Int64, 1},
    {"uint64_t", ParamKind::UInt64, DType::Int64, 1},
    {"float", ParamKind::Float32, DType::Float32, 1},
    {"double", ParamKind::Float64, DType::Float64, 1},
    {"bool", ParamKind::Bool, DType::Bool, 1},
};

std::string join(const std::vector<std::string>& words, const char* separator = " ") {
    std::string out;
    for (const auto& w : words) {
        if (!out.empty())
            out += separator;
        out += w;
    }
    return out;
}

// Splits tokens [begin, end) at commas outside (), <>, [] and {}.
std::vector<std::vector<Token>> splitTopLevel(const std::vector<Token>& tokens, std::size_t begin,
                                              std::size_t end) {
    std::vector<std::vector<Token>> parts(1);
    int depth = 0;
    for (std::size_t i = begin; i < end; ++i) {
        const std::string& t = tokens[i].text;
        if (t == "(" || t == "<" || t == "[" || t == "{")
            ++depth;
        else if (t == ")" || t == ">" || t == "]" || t == "}")
            --depth;
        if (t == "," && depth == 0) {
            parts.emplace_back();
            continue;
        }
        parts.back().push_back(tokens[i]);
    }
    if (parts.size() == 1 && parts[0].empty())
        parts.clear();
    return parts;
}

// The type of one parameter declaration with qualifiers and the name removed.
struct ParsedParam {
    std::string name;
    std::vector<std::string> typeWords;
    int pointers = 0;
    bool unsupported = false; // references, arrays, function pointers
};

ParsedParam parseParam(const std::vector<Token>& tokens) {
    ParsedParam p;
    std::vector<Token> kept;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const auto& t = tokens[i];
        if (kQualifiers.count(t.text))
            continue;
        if (t.text == "__align__" && i + 1 < tokens.size() && tokens[i + 1].text == "(") {
            while (i < tokens.size() && tokens[i].text != ")")
                ++i;
            continue;
        }
        if (t.text == "*") {
            ++p.pointers;
            continue;
        }
        if (t.text == "&" || t.text == "[" || t.text == "(" || t.text == "=") {
            p.unsupported = t.text != "=";
            if (t.text == "=")
                break;
            continue;
        }
        kept.push_back(t);
    }
    if (kept.size() >= 2 && kept.back().identifier && !kTypeWords.count(kept.back().text)) {
        p.name = kept.back().text;
        kept.pop_back();
    }
    for (const auto& t : kept)
        p.typeWords.push_back(t.text);
    return p;
}

std::optional<KernelParam> mapParam(const ParsedParam& p) {
    const std::string type = join(p.typeWords);
    KernelParam param;
    param.name = p.name;
    if (p.unsupported || p.pointers > 1)
        return std::nullopt;
    if (p.pointers == 1) {
        for (const auto& e : kPointerTypes)
            if (type == e.type) {
                param.kind = ParamKind::Pointer;
                param.dtype = e.dtype;
                param.vectorWidth = e.width;
                param.type = type + "*";
                return param;
            }
        return std::nullopt;
    }
    for (const auto& e : kScalarTypes)
        if (type == e.type) {
            param.kind = e.kind;
            param.dtype = e.dtype;
            param.type = type;
            return param;
        }
    return std::nullopt;
}

std::string describeParam(const std::vector<Token>& tokens) {
    std::vector<std::string> words;
    for (const auto& t : tokens)
        words.push_back(t.text);
    std::string out = join(words);
    // "float * x" reads better as "float* x".
    std::string tidy;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i] == ' ' && i + 1 < out.size() && out[i + 1] == '*')
            continue;
        tidy += out[i];
    }
    return tidy;
}

std::size_t matching(const std::vector<Token>& tokens, std::size_t open, const char* openText,
                     const char* closeText) {
    int depth = 0;
    for (std::size_t i = open; i < tokens.size(); ++i) {
        if (tokens[i].text == openText)
            ++depth;
        else if (tokens[i].text == closeText && --depth == 0)
            return i;
    }
    return std::string::npos;
}

} // namespace

std::string NativeCandidate::deviceForCompiler() const {
    std::string quoted;
    for (char c : origin) {
        if (c == '"' || c == '\\')
            quoted += '\\';
        quoted += c;
    }
    return "#line " + std::to_string(deviceFirstLine) + " \"" + quoted + "\"\n" + device;
}

std::string readCandidateFile(const std::string& path) {
    return readTextFile(path, limits::kCandidate);
}

NativeCandidate parseNativeCandidate(const std::string& source, const std::string& origin) {
    if (source.size() > limits::kCandidate.maxBytes)
        throw FileError(origin, "the candidate is larger than 1 MiB");
    if (source.find('\0') != std::string::npos)
        throw FileError(origin, "the candidate is not text (it contains a NUL byte)");
    const auto lines = splitLines(source);
    int deviceLine = 0;
    int hostLine = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const int lineNo = static_cast<int>(i) + 1;
        const std::string section = pragmaSection(lines[i]);
        if (section.empty()) {
            if (deviceLine == 0) {
                const std::string t = trim(lines[i]);
                const bool comment = t.empty() || t.rfind("//", 0) == 0 || t[0] == '#';
                if (!comment)
                    throw FileError(origin, "line " + std::to_string(lineNo) +
                                                ": code before '#pragma dice device' (only "
                                                "comment lines may come first)");
            }
            continue;
        }
        if (section == "device") {
            if (deviceLine != 0)
                throw FileError(origin, "line " + std::to_string(lineNo) +
                                            ": a second '#pragma dice device' (the first is on "
                                            "line " +
                                            std::to_string(deviceLine) + ")");
            deviceLine = lineNo;
        } else if (section == "host") {
            if (hostLine != 0)
                throw FileError(origin, "line " + std::to_string(lineNo) +
                                            ": a second '#pragma dice host' (the first is on "
                                            "line " +
                                            std::to_string(hostLine) + ")");
            if (deviceLine == 0)
                throw FileError(origin, "line " + std::to_string(lineNo) +
                                            ": '#pragma dice host' comes before '#pragma dice "
                                            "device' (the device part comes first)");
            hostLine = lineNo;
        } else {
            throw FileError(origin, "line " + std::to_string(lineNo) + ": unknown section '" +
                                        trim(lines[i]) +
                                        "' (expected '#pragma dice device' or '#pragma dice "
                                        "host')");
        }
    }
    if (deviceLine == 0)
        throw FileError(origin, "no '#pragma dice device' line: the file has no device part");
    if (hostLine == 0)
        throw FileError(origin, "no '#pragma dice host' line: the file has no host part");
    NativeCandidate c;
    c.origin = origin;
    c.source = source;
    c.deviceFirstLine = deviceLine + 1;
    c.hostFirstLine = hostLine + 1;
    for (int i = deviceLine; i < hostLine - 1; ++i)
        c.device += lines[static_cast<std::size_t>(i)] + "\n";
    for (std::size_t i = static_cast<std::size_t>(hostLine); i < lines.size(); ++i)
        c.host += lines[i] + "\n";
    if (trim(c.device).empty())
        throw FileError(origin,
                        "line " + std::to_string(deviceLine) + ": the device part is empty");
    if (trim(c.host).empty())
        throw FileError(origin, "line " + std::to_string(hostLine) + ": the host part is empty");
    return c;
}

std::string blankCommentsAndStrings(const std::string& code) {
    std::string out = code;
    std::size_t i = 0;
    auto blank = [&](std::size_t from, std::size_t to) {
        for (std::size_t k = from; k < to && k < out.size(); ++k)
            if (out[k] != '\n')
                out[k] = ' ';
    };
    while (i < code.size()) {
        if (code.compare(i, 2, "//") == 0) {
            std::size_t end = code.find('\n', i);
            if (end == std::string::npos)
                end = code.size();
            blank(i, end);
            i = end;
        } else if (code.compare(i, 2, "/*") == 0) {
            std::size_t end = code.find("*/", i + 2);
            end = end == std::string::npos ? code.size() : end + 2;
            blank(i, end);
            i = end;
        } else if (code[i] == '"' || code[i] == '\'') {
            const char quote = code[i];
            std::size_t j = i + 1;
            while (j < code.size() && code[j] != quote && code[j] != '\n') {
                if (code[j] == '\\')
                    ++j;
                ++j;
            }
            const std::size_t end = std::min(j + 1, code.size());
            // extern "C" keeps its meaning; every other literal's content goes.
            if (!(quote == '"' && code.compare(i, 3, "\"C\"") == 0))
                blank(i + 1, end - 1);
            i = end;
        } else {
            ++i;
        }
    }
    return out;
}

std::vector<KernelSignature> parseKernelSignatures(const NativeCandidate& candidate) {
    const std::vector<Token> tokens = tokenize(blankCommentsAndStrings(candidate.device));
    auto fileLine = [&](int deviceLine) { return deviceLine + candidate.deviceFirstLine - 1; };
    auto fail = [&](int deviceLine, const std::string& why) {
        throw FileError(candidate.origin,
                        "line " + std::to_string(fileLine(deviceLine)) + ": " + why);
    };

    // Which opening braces belong to extern "C" { ... } blocks.
    std::vector<bool> braceIsExternC;
    std::vector<bool> externCAt(tokens.size(), false);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const bool inExternC =
            std::find(braceIsExternC.begin(), braceIsExternC.end(), true) != braceIsExternC.end();
        externCAt[i] = inExternC;
        if (tokens[i].text == "{") {
            const bool block =
                i >= 2 && tokens[i - 1].text == "\"C\"" && tokens[i - 2].text == "extern";
            braceIsExternC.push_back(block);
        } else if (tokens[i].text == "}" && !braceIsExternC.empty()) {
            braceIsExternC.pop_back();
        }
    }

    std::vector<KernelSignature> kernels;
    for (std::size_t g = 0; g < tokens.size(); ++g) {
        if (tokens[g].text != "__global__")
            continue;
        KernelSignature k;
        k.line = fileLine(tokens[g].line);
        // The declaration's prefix: back to the end of the previous statement.
        std::size_t start = g;
        while (start > 0) {
            const std::string& t = tokens[start - 1].text;
            if (t == ";" || t == "}" || t == "{")
                break;
            --start;
        }
        k.externC = externCAt[g];
        for (std::size_t i = start; i < g; ++i) {
            if (tokens[i].text == "extern" && i + 1 < g && tokens[i + 1].text == "\"C\"")
                k.externC = true;
            if (tokens[i].text == "template") {
                k.isTemplate = true;
                if (i + 1 >= g || tokens[i + 1].text != "<")
                    fail(tokens[i].line, "cannot read the template parameter list");
                const std::size_t close = matching(tokens, i + 1, "<", ">");
                if (close == std::string::npos || close > g)
                    fail(tokens[i].line, "cannot read the template parameter list");
                for (const auto& part : splitTopLevel(tokens, i + 2, close)) {
                    std::vector<Token> decl;
                    for (const auto& t : part) {
                        if (t.text == "=")
                            break;
                        decl.push_back(t);
                    }
                    if (decl.empty() || !decl.back().identifier)
                        fail(tokens[i].line, "cannot read a template parameter");
                    k.templateParams.push_back(decl.back().text);
                    decl.pop_back();
                    std::vector<std::string> words;
                    for (const auto& t : decl)
                        words.push_back(t.text);
                    const std::string kind = join(words);
                    k.templateKinds.push_back(kind == "class" ? "typename" : kind);
                }
                i = close;
            }
        }
        // The name: the first identifier followed by '(' that is not an attribute.
        std::size_t open = std::string::npos;
        for (std::size_t i = g + 1; i + 1 < tokens.size(); ++i) {
            const auto& t = tokens[i];
            if (t.text == ";" || t.text == "{")
                break;
            if (t.identifier && tokens[i + 1].text == "(") {
                if (t.text == "__launch_bounds__" || t.text == "__attribute__" ||
                    t.text == "__align__" || t.text == "__maxnreg__") {
                    i = matching(tokens, i + 1, "(", ")");
                    if (i == std::string::npos)
                        break;
                    continue;
                }
                k.name = t.text;
                open = i + 1;
                break;
            }
        }
        if (open == std::string::npos)
            fail(tokens[g].line, "cannot find the name and parameters of this __global__ function");
        const std::size_t close = matching(tokens, open, "(", ")");
        if (close == std::string::npos)
            fail(tokens[g].line, "the parameter list of " + k.name + " is not closed");
        for (const auto& part : splitTopLevel(tokens, open + 1, close)) {
            // "(float* x, , int n)": found by fuzz_candidate, it reached part.front().
            if (part.empty())
                fail(tokens[open].line, "kernel " + k.name + " has an empty parameter");
            if (part.size() == 1 && part[0].text == "void")
                continue;
            k.rawParams.push_back(describeParam(part));
            if (k.isTemplate)
                continue;
            const ParsedParam parsed = parseParam(part);
            const auto mapped = mapParam(parsed);
            if (!mapped)
                fail(part.front().line,
                     "kernel " + k.name + ": parameter '" + describeParam(part) +
                         "' has a type the native dialect cannot bind (see the table of "
                         "parameter types in docs/native-dialect.md)");
            k.params.push_back(*mapped);
        }
        const bool definition = close + 1 < tokens.size() && tokens[close + 1].text == "{";
        auto existing = std::find_if(kernels.begin(), kernels.end(),
                                     [&](const KernelSignature& s) { return s.name == k.name; });
        if (existing == kernels.end())
            kernels.push_back(k);
        else if (definition)
            *existing = k;
    }
    return kernels;
}

ResolvedKernel resolveKernel(const std::vector<KernelSignature>& kernels,
                             const std::string& launchName) {
    const std::size_t angle = launchName.find('<');
    const std::string base = trim(launchName.substr(0, angle));
    const KernelSignature* found = nullptr;
    for (const auto& k : kernels)
        if (k.name == base)
            found = &k;
    if (!found) {
        std::vector<std::string> names;
        for (const auto& k : kernels)
            names.push_back(k.name);
        throw Error("dice.launch names kernel \"" + launchName +
                    "\", but the device code defines no __global__ function " + base +
                    (names.empty() ? std::string(" (it defines none)")
                                   : " (it defines " + join(names, ", ") + ")"));
    }
    ResolvedKernel resolved;
    resolved.signature = found;
    if (!found->isTemplate) {
        if (angle != std::string::npos)
            throw Error("dice.launch names \"" + launchName + "\", but " + base +
                        " is not a template");
        resolved.params = found->params;
        resolved.nameExpression = !found->externC;
        return resolved;
    }
    if (angle == std::string::npos || launchName.back() != '>')
        throw Error("kernel " + base +
                    " is a template: launch it through a name expression such "
                    "as \"" +
                    base + "<...>\"");
    resolved.nameExpression = true;
    const std::string argsText = launchName.substr(angle + 1, launchName.size() - angle - 2);
    const auto argTokens = tokenize(argsText);
    const auto argParts = splitTopLevel(argTokens, 0, argTokens.size());
    if (argParts.size() > found->templateParams.size())
        throw Error("\"" + launchName + "\" gives " + std::to_string(argParts.size()) +
                    " template arguments; " + base + " takes " +
                    std::to_string(found->templateParams.size()));
    std::map<std::string, std::vector<std::string>> substitute;
    for (std::size_t i = 0; i < argParts.size(); ++i) {
        if (found->templateKinds[i] != "typename")
            continue;
        std::vector<std::string> words;
        for (const auto& t : argParts[i])
            words.push_back(t.text);
        substitute[found->templateParams[i]] = words;
    }
    for (const auto& raw : found->rawParams) {
        auto tokens = tokenize(raw);
        std::vector<Token> replaced;
        for (const auto& t : tokens) {
            auto s = substitute.find(t.text);
            if (t.identifier && s != substitute.end()) {
                for (const auto& w : s->second)
                    replaced.push_back({w, t.line, isIdentStart(w[0])});
            } else {
                replaced.push_back(t);
            }
        }
        const auto mapped = mapParam(parseParam(replaced));
        if (!mapped)
            throw Error("kernel \"" + launchName + "\": parameter '" + describeParam(replaced) +
                        "' has a type the native dialect cannot bind (see the table of parameter "
                        "types in docs/native-dialect.md)");
        resolved.params.push_back(*mapped);
    }
    return resolved;
}

std::vector<PrecisionFinding> scanReducedPrecision(const NativeCandidate& candidate) {
    static const std::set<std::string> exact = {"half",
                                                "__half",
                                                "half2",
                                                "__half2",
                                                "__nv_bfloat16",
                                                "nv_bfloat16",
                                                "__nv_bfloat162",
                                                "nv_bfloat162",
                                                "__hadd",
                                                "__hsub",
                                                "__hmul",
                                                "__hdiv",
                                                "__hfma",
                                                "__hneg",
                                                "__habs",
                                                "__hmax",
                                                "__hmin",
                                                "__hadd2",
                                                "__hmul2",
                                                "__hfma2",
                                                "hexp",
                                                "hlog",
                                                "hsqrt",
                                                "hrsqrt",
                                                "h2exp",
                                                "__float2half",
                                                "__float2half_rn",
                                                "__half2float",
                                                "__float2bfloat16",
                                                "__bfloat162float",
                                                "__float22half2_rn",
                                                "__half22float2",
                                                "__floats2half2_rn",
                                                "__float2bfloat16_rn",
                                                "__floats2bfloat162_rn",
                                                "__bfloat1622float2"};
    std::vector<PrecisionFinding> findings;
    for (const auto& t : tokenize(blankCommentsAndStrings(candidate.device))) {
        if (!t.identifier)
            continue;
        const bool conversion =
            t.text.rfind("__float2half", 0) == 0 || t.text.rfind("__float2bfloat16", 0) == 0 ||
            t.text.rfind("__half2", 0) == 0 || t.text.rfind("__bfloat162", 0) == 0;
        if (exact.count(t.text) || conversion)
            findings.push_back({t.line + candidate.deviceFirstLine - 1, t.text});
    }
    return findings;
}

Diagnostic candidateDiagnostic(const FileError& error, const std::string& origin) {
    Diagnostic d;
    d.file = origin;
    d.severity = Severity::Error;
    d.message = error.problem();
    static const std::regex linePrefix(R"(^line (\d+): (.*)$)");
    std::smatch m;
    if (std::regex_match(d.message, m, linePrefix)) {
        d.line = std::stoi(m[1].str());
        d.message = m[2].str();
    }
    return d;
}

} // namespace dice
