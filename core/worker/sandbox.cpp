// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/worker/sandbox.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace dice {

namespace {

constexpr rlim_t kFileSizeLimit = rlim_t(1) << 30;
constexpr rlim_t kProcessLimit = 4096;

// Lowers a limit (never raises it); returns the soft limit in force afterwards.
std::string lowerLimit(int resource, rlim_t wanted) {
    rlimit current{};
    if (getrlimit(resource, &current) != 0)
        return std::string("unknown: ") + std::strerror(errno);
    rlimit next = current;
    next.rlim_cur = std::min(current.rlim_cur, wanted);
    next.rlim_max = std::min(current.rlim_max, wanted);
    if (setrlimit(resource, &next) != 0)
        return std::string("not set: ") + std::strerror(errno);
    return std::to_string(static_cast<unsigned long long>(next.rlim_cur));
}

bool writeFile(const char* path, const std::string& text) {
    const int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    close(fd);
    return ok;
}

} // namespace

nlohmann::json applyWorkerSandbox(bool isolateNetwork) {
    nlohmann::json applied;
    applied["core_dumps"] = lowerLimit(RLIMIT_CORE, 0) == "0" ? "off" : "could not be disabled";
    applied["file_size_limit_bytes"] = lowerLimit(RLIMIT_FSIZE, kFileSizeLimit);
    applied["process_limit"] = lowerLimit(RLIMIT_NPROC, kProcessLimit);
    applied["no_new_privs"] = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0;
    if (!isolateNetwork) {
        applied["network"] = "not isolated: switched off (--no-sandbox)";
        return applied;
    }
    const uid_t uid = getuid();
    const gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
        applied["network"] = std::string("not isolated: unshare(CLONE_NEWUSER | CLONE_NEWNET): ") +
                             std::strerror(errno);
        return applied;
    }
    // Keep our own ids inside the namespace, so files keep their owners as we see them.
    const bool mapped =
        writeFile("/proc/self/setgroups", "deny") &&
        writeFile("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1\n") &&
        writeFile("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n");
    applied["network"] = std::string("isolated: own user and network namespace (loopback only)") +
                         (mapped ? "" : "; user ids unmapped");
    return applied;
}

} // namespace dice
