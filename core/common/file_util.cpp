// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/file_util.h"

#include "core/common/error.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dice {

namespace {

constexpr FileLimit kOwnFile{"a file", std::uint64_t(1) << 30};

// Limits are powers of two times a unit; a size that is not one is given in bytes.
std::string limitText(std::uint64_t bytes) {
    constexpr std::uint64_t kKiB = 1024;
    if (bytes >= kKiB * kKiB * kKiB && bytes % (kKiB * kKiB * kKiB) == 0)
        return std::to_string(bytes / (kKiB * kKiB * kKiB)) + " GiB";
    if (bytes >= kKiB * kKiB && bytes % (kKiB * kKiB) == 0)
        return std::to_string(bytes / (kKiB * kKiB)) + " MiB";
    if (bytes >= kKiB && bytes % kKiB == 0)
        return std::to_string(bytes / kKiB) + " KiB";
    return std::to_string(bytes) + " bytes";
}

std::string kindOf(mode_t mode) {
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "something other than a file";
}

[[noreturn]] void notRegular(const std::string& path, mode_t mode) {
    throw FileError(path, "is " + kindOf(mode) + ", not a regular file");
}

[[noreturn]] void tooLarge(const std::string& path, const FileLimit& limit,
                           const std::string& size) {
    throw FileError(path, "is larger than the " + limitText(limit.maxBytes) + " allowed for " +
                              limit.kind + " (" + size + ")");
}

} // namespace

RegularFile::RegularFile(const std::string& path, const FileLimit& limit) {
    // stat before open: opening a device can have effects of its own (a tape rewinds, a watchdog
    // arms), and opening a FIFO blocks until a writer comes. O_NONBLOCK keeps a FIFO swapped in
    // between the two calls from blocking; fstat then refuses it.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw FileError(path, std::string("cannot open: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        notRegular(path, st.st_mode);
    m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (m_fd < 0)
        throw FileError(path, std::string("cannot open: ") + std::strerror(errno));
    if (::fstat(m_fd, &st) != 0) {
        const int error = errno;
        ::close(m_fd);
        throw FileError(path, std::string("cannot open: ") + std::strerror(error));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(m_fd);
        notRegular(path, st.st_mode);
    }
    m_size = static_cast<std::uint64_t>(st.st_size);
    if (m_size > limit.maxBytes) {
        ::close(m_fd);
        tooLarge(path, limit, std::to_string(m_size) + " bytes");
    }
}

RegularFile::~RegularFile() {
    ::close(m_fd);
}

std::string readTextFile(const std::string& path, const FileLimit& limit) {
    const RegularFile file(path, limit);
    // The size stat gave is a first guess only: a file may grow while it is read, and files of
    // /proc report 0. Reading goes on to the end, but never beyond one byte past the limit.
    const std::uint64_t most = limit.maxBytes + 1;
    std::string content(static_cast<std::size_t>(std::min(file.size() + 1, most)), '\0');
    std::size_t filled = 0;
    for (;;) {
        if (filled == content.size()) {
            if (filled >= most)
                tooLarge(path, limit, "found when it was read");
            content.resize(static_cast<std::size_t>(
                std::min<std::uint64_t>(std::max<std::size_t>(2 * filled, 4096), most)));
        }
        const ssize_t n =
            ::read(file.descriptor(), content.data() + filled, content.size() - filled);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            throw FileError(path, std::string("read failed: ") + std::strerror(errno));
        }
        if (n == 0)
            break;
        filled += static_cast<std::size_t>(n);
    }
    content.resize(filled);
    return content;
}

std::string readTextFile(const std::string& path) {
    return readTextFile(path, kOwnFile);
}

TemporaryFolder::TemporaryFolder(const std::string& prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (!::mkdtemp(pattern.data()))
        throw Error(std::string("cannot create a temporary folder: ") + std::strerror(errno));
    m_path = pattern;
}

TemporaryFolder::~TemporaryFolder() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
}

void writeFileAtomically(const std::string& path, const std::string& content) {
    const std::string temporary = path + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out)
            throw FileError(temporary, std::string("cannot create: ") + std::strerror(errno));
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        out.flush();
        if (!out)
            throw FileError(temporary, "write failed");
    }
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec)
        throw FileError(path, "cannot replace: " + ec.message());
}

std::string executableDirectory() {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec)
        return std::filesystem::current_path().string();
    return self.parent_path().string();
}

std::string executablePath() {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("/proc/self/exe") : self.string();
}

std::string dataDirectory() {
    if (const char* overridden = std::getenv("DICE_DATA_DIR"); overridden && *overridden)
        return overridden;
    const std::filesystem::path candidate =
        std::filesystem::path(executableDirectory()).parent_path() / "share" / "dice-workbench";
    return candidate.lexically_normal().string();
}

} // namespace dice
