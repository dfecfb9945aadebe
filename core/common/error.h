// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <stdexcept>
#include <string>

namespace dice {

// The one exception type core throws for bad outside input and failed operations. The message is
// meant for a user: it names the file or the part that is wrong and what is wrong with it.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message)
        : std::runtime_error(message) {}
};

// Error about a specific file; the message starts with the file name.
class FileError : public Error {
public:
    FileError(const std::string& path, const std::string& problem)
        : Error(path + ": " + problem)
        , m_path(path)
        , m_problem(problem) {}
    const std::string& path() const { return m_path; }
    const std::string& problem() const { return m_problem; }

private:
    std::string m_path;
    std::string m_problem;
};

} // namespace dice
