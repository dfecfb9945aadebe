// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/worker/sandbox.h"

#include "core/common/file_util.h"
#include "core/cuda/nvrtc_compiler.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

namespace dice {

namespace {

constexpr std::uint64_t kFileSizeLimit = std::uint64_t(1) << 30;
constexpr std::uint64_t kProcessLimit = 4096;

const char* const kSystemFolders[] = {"/usr",  "/lib", "/lib32", "/lib64", "/libx32", "/bin",
                                      "/sbin", "/etc", "/opt",   "/proc",  "/sys"};
const char* const kPlainDevices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                     "/dev/urandom"};

// The folders of every file this process has mapped: LibTorch, CUDA's libraries and the program
// itself, wherever they were installed (a virtual environment, a LibTorch archive).
std::set<std::string> mappedFolders() {
    std::set<std::string> folders;
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        const auto slash = line.find('/');
        if (slash == std::string::npos)
            continue;
        const std::filesystem::path file(line.substr(slash));
        if (file.has_parent_path())
            folders.insert(file.parent_path().string());
    }
    return folders;
}

// The GPU's character devices: /dev/nvidia0, nvidiactl, nvidia-uvm, the capabilities beneath
// /dev/nvidia-caps, and a render node.
std::vector<std::string> gpuDevices() {
    std::vector<std::string> devices;
    const auto addCharacterDevices = [&devices](const std::string& folder,
                                                const std::string& prefix) {
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
            const std::string name = entry.path().filename().string();
            struct stat st;
            if (name.rfind(prefix, 0) == 0 && ::stat(entry.path().c_str(), &st) == 0 &&
                S_ISCHR(st.st_mode))
                devices.push_back(entry.path().string());
        }
    };
    addCharacterDevices("/dev", "nvidia");
    addCharacterDevices("/dev/nvidia-caps", "");
    addCharacterDevices("/dev/dri", "renderD");
    return devices;
}

} // namespace

SandboxPolicy workerSandboxPolicy(const std::vector<std::string>& readableFolders) {
    SandboxPolicy p;
    std::set<std::string> readable(std::begin(kSystemFolders), std::end(kSystemFolders));
    const std::set<std::string> mapped = mappedFolders();
    readable.insert(mapped.begin(), mapped.end());
    readable.insert(executableDirectory());
    readable.insert(dataDirectory());
    // The toolkit's headers, which NVRTC reads for every kernel, and what lies beside them.
    const std::string include = NvrtcCompiler::cudaIncludeDirectory();
    if (!include.empty())
        readable.insert(std::filesystem::path(include).parent_path().string());
    for (const std::string& folder : readableFolders)
        if (!folder.empty() && folder[0] == '/')
            readable.insert(folder);
    // Landlock follows links to where they lead: the data folder of a build links to resources/.
    for (const std::string& folder : std::set<std::string>(readable)) {
        std::error_code ec;
        const auto real = std::filesystem::canonical(folder, ec);
        if (!ec)
            readable.insert(real.string());
    }
    p.readable.assign(readable.begin(), readable.end());
    p.devices.assign(std::begin(kPlainDevices), std::end(kPlainDevices));
    const std::vector<std::string> gpu = gpuDevices();
    p.devices.insert(p.devices.end(), gpu.begin(), gpu.end());
    // /tmp, /dev/shm and /run become empty folders of its own, unless a folder it must read
    // lies beneath one of them (a task imported into /tmp, say): the worker may open Unix
    // sockets, and the daemons' sockets (a session bus, a container engine) live there.
    for (const std::string folder : {"/tmp", "/dev/shm", "/run"}) {
        std::error_code ec;
        if (!std::filesystem::is_directory(folder, ec) || std::filesystem::is_symlink(folder, ec))
            continue;
        const bool needed = std::any_of(readable.begin(), readable.end(), [&](const auto& r) {
            return r == folder || r.rfind(folder + "/", 0) == 0;
        });
        if (!needed)
            p.privateFolders.push_back(folder);
    }
    p.isolateNetwork = true;
    p.restrictFiles = true;
    p.filterSystemCalls = true;
    // The CUDA driver may talk to nvidia-persistenced over a Unix socket, and names its threads.
    p.allowUnixSockets = true;
    p.ownProcessWritable = true;
    p.limits.fileSizeBytes = kFileSizeLimit;
    p.limits.processes = kProcessLimit;
    p.limits.noCoreDumps = true;
    return p;
}

nlohmann::json applyWorkerSandbox(const std::vector<std::string>& readableFolders) {
    const SandboxPlan plan(workerSandboxPolicy(readableFolders));
    return plan.describe(plan.apply());
}

} // namespace dice
