// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>

namespace dice {

// What a file holds and the most bytes the workbench reads of such a file; both are named in the
// error when a file is larger. core/common/file_limits.h lists the kinds read from outside.
struct FileLimit {
    const char* kind;
    std::uint64_t maxBytes;
};

// Reads a whole regular file of at most `limit.maxBytes`. A FIFO, a device, a directory or a
// socket is refused before it is read, so that a hostile path can neither hang the reader nor
// feed it without end. Throws FileError naming the file and what is wrong.
std::string readTextFile(const std::string& path, const FileLimit& limit);
// The same under a limit of 1 GiB, for the workbench's own files (resources, fixtures, what it
// wrote itself), where the limit only stops a runaway read.
std::string readTextFile(const std::string& path);

// A regular file opened read-only and checked as readTextFile checks it, for readers that map or
// stream the file themselves. Closes the descriptor when destroyed.
class RegularFile {
public:
    RegularFile(const std::string& path, const FileLimit& limit);
    ~RegularFile();
    RegularFile(const RegularFile&) = delete;
    RegularFile& operator=(const RegularFile&) = delete;

    int descriptor() const { return m_fd; }
    // The size when the file was opened.
    std::uint64_t size() const { return m_size; }

private:
    int m_fd = -1;
    std::uint64_t m_size = 0;
};

// A new, empty folder under the system's temporary folder (named PREFIX-XXXXXX), removed with
// everything in it when destroyed. Throws Error when it cannot be created.
class TemporaryFolder {
public:
    explicit TemporaryFolder(const std::string& prefix = "dice");
    ~TemporaryFolder();
    TemporaryFolder(const TemporaryFolder&) = delete;
    TemporaryFolder& operator=(const TemporaryFolder&) = delete;

    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

// Writes a file through a temporary beside it and a rename, so readers never see half a file.
void writeFileAtomically(const std::string& path, const std::string& content);

// The folder that holds the workbench's shared data (built-in tasks, prompts, the embedded
// model): $DICE_DATA_DIR when set, else <folder of the executable>/../share/dice-workbench.
std::string dataDirectory();

// The folder of the running executable.
std::string executableDirectory();
// This program's own file, resolved: a path that another program can start (/proc/self/exe
// names whichever process reads it).
std::string executablePath();

} // namespace dice
