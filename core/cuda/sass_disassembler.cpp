// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/sass_disassembler.h"

#include "core/common/child_process.h"
#include "core/common/error.h"
#include "core/common/text_tail.h"
#include "core/cuda/nvrtc_compiler.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace dice {

namespace {

// The cubin on disk for as long as the tool reads it.
class CubinFile {
public:
    explicit CubinFile(const std::string& bytes) {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "dice-sass-XXXXXX.cubin").string();
        const int fd = ::mkstemps(pattern.data(), 6);
        if (fd < 0)
            throw Error(std::string("cannot create a temporary file for the cubin: ") +
                        std::strerror(errno));
        m_path = pattern;
        std::size_t done = 0;
        while (done < bytes.size()) {
            const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                const std::string why = std::strerror(errno);
                ::close(fd);
                throw Error("cannot write the cubin to " + m_path + ": " + why);
            }
            done += static_cast<std::size_t>(n);
        }
        ::close(fd);
    }
    ~CubinFile() {
        if (!m_path.empty())
            ::unlink(m_path.c_str());
    }
    CubinFile(const CubinFile&) = delete;
    CubinFile& operator=(const CubinFile&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

} // namespace

std::optional<SassTool> findSassTool() {
    std::vector<std::string> toolkit;
    const std::string include = NvrtcCompiler::cudaIncludeDirectory();
    if (!include.empty())
        toolkit.push_back(
            (std::filesystem::path(include) / ".." / "bin").lexically_normal().string());
    for (const auto kind : {SassTool::Kind::Nvdisasm, SassTool::Kind::Cuobjdump}) {
        const std::string name = kind == SassTool::Kind::Nvdisasm ? "nvdisasm" : "cuobjdump";
        std::string path = findExecutable(name);
        if (path.empty())
            path = findExecutable(name, toolkit);
        if (!path.empty())
            return SassTool{kind, path};
    }
    return std::nullopt;
}

SassDisassembly disassembleCubin(const std::string& cubin, int timeoutMs) {
    SassDisassembly result;
    if (cubin.empty()) {
        result.error = "there is no cubin to disassemble";
        return result;
    }
    const auto tool = findSassTool();
    if (!tool) {
        result.error = "neither nvdisasm nor cuobjdump (CUDA toolkit) was found on the PATH or "
                       "in the toolkit's bin folder";
        return result;
    }
    result.tool = tool->path;
    try {
        const CubinFile file(cubin);
        const bool nvdisasm = tool->kind == SassTool::Kind::Nvdisasm;
        ChildRunOptions options;
        options.timeoutMs = timeoutMs;
        const ChildResult run =
            runChild({nvdisasm ? std::vector<std::string>{tool->path, "-c", "-gi", file.path()}
                               : std::vector<std::string>{tool->path, "--dump-sass", file.path()}},
                     options);
        result.output = run.out;
        if (!run.ok()) {
            const std::string message = textTail(run.err, 2000);
            result.error = run.exit.started()
                               ? tool->path + " " + run.exit.describe() +
                                     (message.empty() ? std::string() : ": " + message)
                               : run.exit.startError;
            return result;
        }
        result.listing = nvdisasm ? parseNvdisasmListing(run.out) : parseCuobjdumpListing(run.out);
    } catch (const Error& e) {
        result.error = e.what();
    }
    return result;
}

} // namespace dice
