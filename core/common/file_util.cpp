// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/file_util.h"

#include "core/common/error.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace dice {

std::string readTextFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw FileError(path, std::string("cannot open: ") + std::strerror(errno));
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad())
        throw FileError(path, "read failed");
    return buffer.str();
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

std::string dataDirectory() {
    if (const char* overridden = std::getenv("DICE_DATA_DIR"); overridden && *overridden)
        return overridden;
    const std::filesystem::path candidate =
        std::filesystem::path(executableDirectory()).parent_path() / "share" / "dice-workbench";
    return candidate.lexically_normal().string();
}

} // namespace dice
