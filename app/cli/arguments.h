// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/common/error.h"
#include "core/model/qwen3_model.h"

#include <map>
#include <string>
#include <vector>

namespace dice::cli {

// A command line that asks for something malformed (an option's value that does not parse, one
// that is out of range, options that exclude each other): the command exits with status 2, as
// for an unknown option, not 1, which says the work was done and did not succeed.
class UsageError : public Error {
public:
    using Error::Error;
};

// Command-line arguments of one subcommand: --name value, --name=value, --flag, positionals.
// Every option a command reads must be declared, so that a mistyped option is an error, not a
// silently ignored word.
class Arguments {
public:
    // flags: options without a value; options: options with a value.
    Arguments(const std::vector<std::string>& args, const std::vector<std::string>& flags,
              const std::vector<std::string>& options);

    bool ok() const { return m_error.empty(); }
    const std::string& error() const { return m_error; }

    bool flag(const std::string& name) const;
    bool has(const std::string& name) const;
    std::string value(const std::string& name, const std::string& fallback = {}) const;
    int integer(const std::string& name, int fallback) const;
    double number(const std::string& name, double fallback) const;
    const std::vector<std::string>& positionals() const { return m_positionals; }

private:
    std::map<std::string, std::string> m_values;
    std::vector<std::string> m_flags;
    std::vector<std::string> m_positionals;
    std::string m_error;
};

// GPU indices written as a comma-separated list ("0,0,1": two workers on GPU 0 and one on GPU
// 1). Throws UsageError quoting the list when an item is not an index.
std::vector<int> gpuIndexList(const std::string& list);

// A comma-separated option value as its non-empty items ("a,,b" is a and b).
std::vector<std::string> splitList(const std::string& text);

// --device cuda|cpu of a command that runs the model: cuda by default where LibTorch sees a GPU.
// Throws Error when cuda is asked for and cannot be had here, UsageError for another word.
ModelDevice modelDevice(const Arguments& args);

// Whether standard error is a terminal: progress redrawn in place with \r is written only there,
// as in a redirected file it would be a line per update.
bool progressShown();

} // namespace dice::cli
