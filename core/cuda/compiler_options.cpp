// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/compiler_options.h"

#include "core/common/error.h"

#include <cctype>
#include <cstring>
#include <sstream>

namespace dice {

namespace {

bool isIdentifier(const std::string& text) {
    if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0])))
        return false;
    for (const char c : text)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
            return false;
    return true;
}

// A macro's value is one word of ordinary characters: no quotes or backslashes to escape from,
// nothing that is not printable ASCII.
bool isPlainValue(const std::string& text) {
    for (const char c : text)
        if (c < 0x21 || c > 0x7e || c == '"' || c == '\'' || c == '\\')
            return false;
    return true;
}

bool startsWith(const std::string& text, const std::string& prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

// The value after "=" of `word`, when word is one of `names` followed by "=".
bool valueOf(const std::string& word, std::initializer_list<const char*> names,
             std::string& value) {
    for (const char* name : names) {
        const std::string prefix = std::string(name) + "=";
        if (startsWith(word, prefix)) {
            value = word.substr(prefix.size());
            return true;
        }
    }
    return false;
}

} // namespace

std::string allowedCompilerOptions() {
    return "--use_fast_math, -lineinfo, -maxrregcount=N (16-255), -DNAME[=VALUE], -UNAME, "
           "--ftz=, --prec-div=, --prec-sqrt=, --fmad= (true or false), "
           "--extra-device-vectorization, --restrict, -G";
}

CompilerOptionLine parseCompilerOptions(const std::string& line) {
    if (line.size() > 4096)
        throw Error("the compiler options are " + std::to_string(line.size()) +
                    " characters long, more than the 4096 allowed");
    CompilerOptionLine out;
    std::istringstream words(line);
    std::string word;
    const auto refuse = [](const std::string& w, const std::string& why) {
        throw Error("compiler option \"" + w + "\": " + why);
    };
    while (words >> word) {
        std::string value;
        if (word == "--use_fast_math" || word == "-use_fast_math") {
            out.fastMath = true;
        } else if (word == "-lineinfo" || word == "--generate-line-info") {
            // On already: the PTX view maps lines through it.
        } else if (word == "-G" || word == "--device-debug" || word == "--restrict" ||
                   word == "-restrict" || word == "--extra-device-vectorization" ||
                   word == "-extra-device-vectorization") {
            out.nvrtc.push_back(word);
        } else if (valueOf(word, {"-maxrregcount", "--maxrregcount"}, value)) {
            int registers = 0;
            try {
                std::size_t used = 0;
                registers = std::stoi(value, &used);
                if (used != value.size())
                    registers = 0;
            } catch (const std::exception&) {
                registers = 0;
            }
            if (registers < 16 || registers > 255)
                refuse(word, "the register limit must be a whole number from 16 to 255");
            out.nvrtc.push_back("--maxrregcount=" + std::to_string(registers));
        } else if (valueOf(word,
                           {"--ftz", "-ftz", "--prec-div", "-prec-div", "--prec-sqrt", "-prec-sqrt",
                            "--fmad", "-fmad"},
                           value)) {
            if (value != "true" && value != "false")
                refuse(word, "must be true or false");
            out.nvrtc.push_back(word);
        } else if (startsWith(word, "-D") || startsWith(word, "--define-macro=")) {
            const std::string macro = startsWith(word, "-D")
                                          ? word.substr(2)
                                          : word.substr(std::strlen("--define-macro="));
            const auto equals = macro.find('=');
            const std::string name = macro.substr(0, equals);
            if (!isIdentifier(name))
                refuse(word, "a macro's name must be an identifier (write -DNAME or -DNAME=VALUE)");
            if (equals != std::string::npos && !isPlainValue(macro.substr(equals + 1)))
                refuse(word, "a macro's value must be plain printable characters without quotes "
                             "or backslashes");
            out.nvrtc.push_back("-D" + macro);
        } else if (startsWith(word, "-U") || startsWith(word, "--undefine-macro=")) {
            const std::string name = startsWith(word, "-U")
                                         ? word.substr(2)
                                         : word.substr(std::strlen("--undefine-macro="));
            if (!isIdentifier(name))
                refuse(word, "a macro's name must be an identifier");
            out.nvrtc.push_back("-U" + name);
        } else if (startsWith(word, "-I") || startsWith(word, "--include-path") ||
                   startsWith(word, "--pre-include") || startsWith(word, "-include")) {
            refuse(word, "headers come from the CUDA toolkit only; no folder or file of this "
                         "machine is handed to the compiler");
        } else if (startsWith(word, "-arch") || startsWith(word, "--gpu-architecture") ||
                   startsWith(word, "-std") || startsWith(word, "--std")) {
            refuse(word, "the target and the language standard are chosen by the workbench (the "
                         "Target box sets the architecture)");
        } else {
            refuse(word, "not an option the workbench passes to NVRTC (allowed: " +
                             allowedCompilerOptions() + ")");
        }
    }
    return out;
}

void applyCompilerOptions(CompileOptions& options, const std::string& line) {
    const CompilerOptionLine parsed = parseCompilerOptions(line);
    options.fastMath = options.fastMath || parsed.fastMath;
    options.extraOptions.insert(options.extraOptions.end(), parsed.nvrtc.begin(),
                                parsed.nvrtc.end());
}

bool isFastCompileLevel(const std::string& level) {
    return level.empty() || level == "min" || level == "mid" || level == "max";
}

} // namespace dice
