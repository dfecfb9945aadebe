// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/system/sandbox.h"

#include "core/common/error.h"
#include "core/system/landlock.h"
#include "core/system/seccomp_filter.h"

#include <fcntl.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace dice {

namespace {

constexpr int kLimitResources[SandboxOutcome::kLimits] = {
    RLIMIT_DATA, RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_NPROC, RLIMIT_CPU, RLIMIT_CORE};
const char* const kLimitNames[SandboxOutcome::kLimits] = {"data_limit_bytes",
                                                          "address_space_limit_bytes",
                                                          "file_size_limit_bytes",
                                                          "open_files_limit",
                                                          "process_limit",
                                                          "cpu_limit_seconds",
                                                          "core_dumps"};

// A private folder's tmpfs: enough for the small files a runtime keeps there.
constexpr unsigned long long kPrivateFolderBytes = 1ull << 30;

using namespace landlock;

constexpr std::uint64_t kReadRights = kReadFile | kReadDir;
constexpr std::uint64_t kExecuteRights = kExecute | kReadFile | kReadDir;
// Everything but running what was written, and making device nodes.
constexpr std::uint64_t kWriteRights = kWriteFile | kReadFile | kReadDir | kRemoveDir |
                                       kRemoveFile | kMakeDir | kMakeReg | kMakeSock | kMakeFifo |
                                       kMakeSym | kRefer | kTruncate;
constexpr std::uint64_t kDeviceRights = kReadFile | kWriteFile | kTruncate | kIoctlDev;

long createRuleset(const RulesetAttr* attr, std::size_t size, unsigned flags) {
    return ::syscall(kSysCreateRuleset, attr, size, flags);
}

bool writeWhole(const char* path, const std::string& text) {
    const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    return ok;
}

std::vector<std::string> stringList(const nlohmann::json& json, const char* key) {
    std::vector<std::string> out;
    if (!json.contains(key))
        return out;
    const auto& list = json.at(key);
    if (!list.is_array())
        throw Error(std::string("sandbox policy: \"") + key + "\" must be a list of paths");
    for (const auto& item : list) {
        if (!item.is_string())
            throw Error(std::string("sandbox policy: \"") + key +
                        "\" holds something that is "
                        "not a path");
        const std::string path = item.get<std::string>();
        if (path.empty() || path[0] != '/' || path.find('\0') != std::string::npos ||
            path.size() >= 4096)
            throw Error(std::string("sandbox policy: \"") + key + "\": \"" + path +
                        "\" is not an absolute path");
        out.push_back(path);
    }
    return out;
}

bool flag(const nlohmann::json& json, const char* key, bool fallback) {
    if (!json.contains(key))
        return fallback;
    if (!json.at(key).is_boolean())
        throw Error(std::string("sandbox policy: \"") + key + "\" must be true or false");
    return json.at(key).get<bool>();
}

std::uint64_t count(const nlohmann::json& json, const char* key) {
    if (!json.contains(key))
        return 0;
    const auto& value = json.at(key);
    if (!value.is_number_unsigned())
        throw Error(std::string("sandbox policy: limit \"") + key +
                    "\" must be a whole number of at least 0");
    return value.get<std::uint64_t>();
}

std::string errnoText(int error) {
    return std::strerror(error);
}

std::string joined(const std::vector<std::string>& names, std::size_t most) {
    std::string text;
    for (std::size_t i = 0; i < names.size() && i < most; ++i)
        text += (i ? ", " : "") + names[i];
    if (names.size() > most)
        text += ", ...";
    return text;
}

} // namespace

nlohmann::json toJson(const SandboxPolicy& p) {
    return {{"readable", p.readable},
            {"executable", p.executable},
            {"writable", p.writable},
            {"devices", p.devices},
            {"private_folders", p.privateFolders},
            {"isolate_network", p.isolateNetwork},
            {"restrict_files", p.restrictFiles},
            {"filter_system_calls", p.filterSystemCalls},
            {"allow_unix_sockets", p.allowUnixSockets},
            {"own_process_writable", p.ownProcessWritable},
            {"require_all", p.requireAll},
            {"limits",
             {{"data_bytes", p.limits.dataBytes},
              {"address_space_bytes", p.limits.addressSpaceBytes},
              {"file_size_bytes", p.limits.fileSizeBytes},
              {"open_files", p.limits.openFiles},
              {"processes", p.limits.processes},
              {"cpu_seconds", p.limits.cpuSeconds},
              {"no_core_dumps", p.limits.noCoreDumps}}}};
}

SandboxPolicy sandboxPolicyFromJson(const nlohmann::json& json) {
    if (!json.is_object())
        throw Error("sandbox policy: not a JSON object");
    static const char* const known[] = {
        "readable",           "executable",           "writable",       "devices",
        "private_folders",    "isolate_network",      "restrict_files", "filter_system_calls",
        "allow_unix_sockets", "own_process_writable", "require_all",    "limits"};
    for (const auto& item : json.items())
        if (std::none_of(std::begin(known), std::end(known),
                         [&](const char* k) { return item.key() == k; }))
            throw Error("sandbox policy: unknown field \"" + item.key() + "\"");
    SandboxPolicy p;
    p.readable = stringList(json, "readable");
    p.executable = stringList(json, "executable");
    p.writable = stringList(json, "writable");
    p.devices = stringList(json, "devices");
    p.privateFolders = stringList(json, "private_folders");
    if (p.privateFolders.size() > static_cast<std::size_t>(SandboxOutcome::kMaxPrivateFolders))
        throw Error("sandbox policy: at most " +
                    std::to_string(SandboxOutcome::kMaxPrivateFolders) + " private folders");
    p.isolateNetwork = flag(json, "isolate_network", true);
    p.restrictFiles = flag(json, "restrict_files", true);
    p.filterSystemCalls = flag(json, "filter_system_calls", true);
    p.allowUnixSockets = flag(json, "allow_unix_sockets", false);
    p.ownProcessWritable = flag(json, "own_process_writable", false);
    p.requireAll = flag(json, "require_all", true);
    if (json.contains("limits")) {
        const auto& l = json.at("limits");
        if (!l.is_object())
            throw Error("sandbox policy: \"limits\" must be an object");
        static const char* const limitKeys[] = {
            "data_bytes", "address_space_bytes", "file_size_bytes", "open_files",
            "processes",  "cpu_seconds",         "no_core_dumps"};
        for (const auto& item : l.items())
            if (std::none_of(std::begin(limitKeys), std::end(limitKeys),
                             [&](const char* k) { return item.key() == k; }))
                throw Error("sandbox policy: unknown limit \"" + item.key() + "\"");
        p.limits.dataBytes = count(l, "data_bytes");
        p.limits.addressSpaceBytes = count(l, "address_space_bytes");
        p.limits.fileSizeBytes = count(l, "file_size_bytes");
        p.limits.openFiles = count(l, "open_files");
        p.limits.processes = count(l, "processes");
        p.limits.cpuSeconds = count(l, "cpu_seconds");
        p.limits.noCoreDumps = flag(l, "no_core_dumps", true);
    }
    return p;
}

int landlockAbi() {
    const long abi = createRuleset(nullptr, 0, kCreateRulesetVersion);
    return abi > 0 ? static_cast<int>(abi) : 0;
}

SandboxPlan::SandboxPlan(SandboxPolicy policy)
    : m_policy(std::move(policy)) {
    const auto add = [this](const std::vector<std::string>& paths, std::uint64_t folder,
                            std::uint64_t file, bool privateFolders) {
        for (std::size_t i = 0; i < paths.size(); ++i)
            m_rules.push_back(
                {paths[i], folder, file & kFileRights, privateFolders ? static_cast<int>(i) : -1});
    };
    add(m_policy.readable, kReadRights, kReadRights, false);
    add(m_policy.executable, kExecuteRights, kExecuteRights, false);
    add(m_policy.writable, kWriteRights, kWriteRights, false);
    add(m_policy.devices, kDeviceRights | kReadDir, kDeviceRights, false);
    add(m_policy.privateFolders, kWriteRights, kWriteRights, true);
    SeccompOptions seccomp;
    seccomp.allowUnixSockets = m_policy.allowUnixSockets;
    SeccompProgram program = buildSeccompFilter(seccomp);
    m_filter = std::move(program.instructions);
    m_filterUnsupported = std::move(program.unsupported);
    m_deniedCalls = program.deniedCalls;
    m_uidMap = std::to_string(::getuid()) + " " + std::to_string(::getuid()) + " 1\n";
    m_gidMap = std::to_string(::getgid()) + " " + std::to_string(::getgid()) + " 1\n";
    m_tmpfsOptions = "mode=1777,size=" + std::to_string(kPrivateFolderBytes);
}

SandboxOutcome SandboxPlan::apply() const noexcept {
    SandboxOutcome outcome;
    const long abi = createRuleset(nullptr, 0, kCreateRulesetVersion);
    outcome.landlockAbi = abi > 0 ? static_cast<int>(abi) : 0;
    applyLimits(outcome);
    if (m_policy.isolateNetwork)
        applyNamespaces(outcome);
    outcome.noNewPrivs = ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0 : errno;
    if (m_policy.restrictFiles)
        applyLandlock(outcome);
    if (m_policy.filterSystemCalls)
        applySeccomp(outcome);
    return outcome;
}

void SandboxPlan::applyLimits(SandboxOutcome& outcome) const noexcept {
    const SandboxLimits& l = m_policy.limits;
    const std::uint64_t wanted[SandboxOutcome::kLimits] = {l.dataBytes,
                                                           l.addressSpaceBytes,
                                                           l.fileSizeBytes,
                                                           l.openFiles,
                                                           l.processes,
                                                           l.cpuSeconds,
                                                           0};
    for (int i = 0; i < SandboxOutcome::kLimits; ++i) {
        const bool core = kLimitResources[i] == RLIMIT_CORE;
        if (core ? !l.noCoreDumps : wanted[i] == 0)
            continue;
        rlimit current{};
        if (::getrlimit(kLimitResources[i], &current) != 0) {
            outcome.limits[i] = errno;
            continue;
        }
        const rlim_t value = static_cast<rlim_t>(wanted[i]);
        rlimit next = current;
        next.rlim_cur = std::min(current.rlim_cur, value);
        next.rlim_max = std::min(current.rlim_max, value);
        outcome.limits[i] = ::setrlimit(kLimitResources[i], &next) == 0 ? 0 : errno;
        outcome.limitInForce[i] = outcome.limits[i] == 0 ? next.rlim_cur : current.rlim_cur;
    }
}

void SandboxPlan::applyNamespaces(SandboxOutcome& outcome) const noexcept {
    const bool mounts = !m_policy.privateFolders.empty();
    const int flags = CLONE_NEWUSER | CLONE_NEWNET | (mounts ? CLONE_NEWNS : 0);
    if (::unshare(flags) != 0) {
        outcome.namespaces = errno;
        for (std::size_t i = 0; i < m_policy.privateFolders.size(); ++i)
            outcome.privateFolders[i] = outcome.namespaces;
        return;
    }
    outcome.namespaces = 0;
    // Our own ids inside the namespace, so that files keep the owners they have outside.
    outcome.idMaps = writeWhole("/proc/self/setgroups", "deny") &&
                             writeWhole("/proc/self/uid_map", m_uidMap) &&
                             writeWhole("/proc/self/gid_map", m_gidMap)
                         ? 0
                         : errno;
    if (mounts) {
        // Nothing mounted here may propagate back to the parent's namespace.
        const int privateRoot = ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr);
        for (std::size_t i = 0; i < m_policy.privateFolders.size(); ++i)
            outcome.privateFolders[i] =
                privateRoot != 0 ? errno
                : ::mount("tmpfs", m_policy.privateFolders[i].c_str(), "tmpfs",
                          MS_NOSUID | MS_NODEV, m_tmpfsOptions.c_str()) == 0
                    ? 0
                    : errno;
    }
    // A new network namespace has a loopback that is down.
    const int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) {
        outcome.loopback = errno;
        return;
    }
    ifreq request;
    std::memset(&request, 0, sizeof(request));
    std::memcpy(request.ifr_name, "lo", 3);
    if (::ioctl(s, SIOCGIFFLAGS, &request) == 0) {
        request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP | IFF_RUNNING);
        outcome.loopback = ::ioctl(s, SIOCSIFFLAGS, &request) == 0 ? 0 : errno;
    } else {
        outcome.loopback = errno;
    }
    ::close(s);
}

void SandboxPlan::applyLandlock(SandboxOutcome& outcome) const noexcept {
    const int abi = outcome.landlockAbi;
    if (abi <= 0) {
        outcome.landlock = ENOSYS;
        return;
    }
    RulesetAttr attr;
    attr.handledAccessFs = filesystemRights(abi);
    if (abi >= 4)
        attr.handledAccessNet = kBindTcp | kConnectTcp;
    if (abi >= 6)
        attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    const std::size_t size = abi >= 6   ? sizeof(RulesetAttr)
                             : abi >= 4 ? 2 * sizeof(std::uint64_t)
                                        : sizeof(std::uint64_t);
    const long ruleset = createRuleset(&attr, size, 0);
    if (ruleset < 0) {
        outcome.landlock = errno;
        outcome.landlockStep = 1;
        return;
    }
    const int rulesetFd = static_cast<int>(ruleset);
    for (const Rule& rule : m_rules) {
        // A private folder whose tmpfs is missing would grant the shared one.
        if (rule.privateIndex >= 0 && outcome.privateFolders[rule.privateIndex] != 0)
            continue;
        const int fd = ::open(rule.path.c_str(), O_PATH | O_CLOEXEC);
        if (fd < 0) {
            ++outcome.rulesSkipped;
            continue;
        }
        struct stat st;
        const bool folder = ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
        PathBeneathAttr beneath;
        beneath.allowedAccess =
            (folder ? rule.folderAccess : rule.fileAccess) & attr.handledAccessFs;
        beneath.parentFd = fd;
        const long added = beneath.allowedAccess
                               ? ::syscall(kSysAddRule, rulesetFd, kRulePathBeneath, &beneath, 0)
                               : 0;
        const int error = errno;
        ::close(fd);
        if (added != 0) {
            outcome.landlock = error;
            outcome.landlockStep = 2;
            ::close(rulesetFd);
            return;
        }
        ++outcome.rulesAdded;
    }
    if (m_policy.ownProcessWritable) {
        // /proc/self leads to this process's folder. Landlock holds the rule by inode, and procfs
        // makes a new inode when it looks a folder up again after dropping it: the descriptor
        // stays open, across exec too, so that the folder is never dropped.
        const int self = ::open("/proc/self", O_PATH | O_DIRECTORY);
        PathBeneathAttr beneath;
        beneath.allowedAccess =
            (kReadFile | kReadDir | kWriteFile | kTruncate) & attr.handledAccessFs;
        beneath.parentFd = self;
        if (self < 0 || ::syscall(kSysAddRule, rulesetFd, kRulePathBeneath, &beneath, 0) != 0) {
            outcome.landlock = errno;
            outcome.landlockStep = 2;
            ::close(rulesetFd);
            return;
        }
        ++outcome.rulesAdded;
    }
    outcome.landlock = ::syscall(kSysRestrictSelf, rulesetFd, 0) == 0 ? 0 : errno;
    if (outcome.landlock != 0)
        outcome.landlockStep = 3;
    ::close(rulesetFd);
}

void SandboxPlan::applySeccomp(SandboxOutcome& outcome) const noexcept {
    if (m_filter.empty()) {
        outcome.seccomp = ENOSYS;
        return;
    }
    sock_fprog program;
    program.len = static_cast<unsigned short>(m_filter.size());
    program.filter = const_cast<sock_filter*>(m_filter.data());
    outcome.seccomp = ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) == 0 ? 0 : errno;
}

std::vector<std::string> SandboxPlan::missingLayers(const SandboxOutcome& o) const {
    std::vector<std::string> missing;
    if (std::any_of(std::begin(o.limits), std::end(o.limits), [](int e) { return e > 0; }))
        missing.push_back("limits");
    if (m_policy.isolateNetwork && o.namespaces != 0)
        missing.push_back("namespaces");
    if (o.noNewPrivs != 0)
        missing.push_back("no_new_privs");
    if (m_policy.restrictFiles && o.landlock != 0)
        missing.push_back("landlock");
    if (m_policy.filterSystemCalls && o.seccomp != 0)
        missing.push_back("seccomp");
    return missing;
}

nlohmann::json SandboxPlan::describe(const SandboxOutcome& o) const {
    nlohmann::json d;
    for (int i = 0; i < SandboxOutcome::kLimits; ++i) {
        const bool core = kLimitResources[i] == RLIMIT_CORE;
        if (o.limits[i] < 0) {
            if (core)
                d[kLimitNames[i]] = "left as they are";
            continue;
        }
        if (o.limits[i] != 0)
            d[kLimitNames[i]] =
                (core ? "could not be disabled: " : "not set: ") + errnoText(o.limits[i]);
        else if (core)
            d[kLimitNames[i]] = "off";
        else
            d[kLimitNames[i]] = o.limitInForce[i] == RLIM_INFINITY
                                    ? std::string("unlimited")
                                    : std::to_string(o.limitInForce[i]);
    }
    d["no_new_privs"] = o.noNewPrivs == 0;
    if (!m_policy.isolateNetwork) {
        d["network"] = "not isolated: switched off";
    } else if (o.namespaces != 0) {
        d["network"] =
            "not isolated: unshare(CLONE_NEWUSER | CLONE_NEWNET): " + errnoText(o.namespaces);
    } else {
        std::string text = "isolated: own user and network namespace (loopback only)";
        if (o.idMaps != 0)
            text += "; user ids unmapped: " + errnoText(o.idMaps);
        if (o.loopback != 0)
            text += "; the loopback is down: " + errnoText(o.loopback);
        d["network"] = text;
    }
    if (!m_policy.privateFolders.empty()) {
        std::string text;
        for (std::size_t i = 0; i < m_policy.privateFolders.size(); ++i) {
            text += text.empty() ? "" : "; ";
            text += o.privateFolders[i] == 0 ? "own empty tmpfs on " + m_policy.privateFolders[i]
                                             : "not applied on " + m_policy.privateFolders[i] +
                                                   ": " + errnoText(o.privateFolders[i]);
        }
        d["private_folders"] = text;
    }
    if (!m_policy.restrictFiles) {
        d["landlock"] = "not applied: switched off";
    } else if (o.landlockAbi <= 0) {
        d["landlock"] = "not applied: the kernel offers no Landlock (Linux 5.13 or later, with "
                        "landlock among its security modules)";
    } else if (o.landlock != 0) {
        static const char* const steps[] = {"", "landlock_create_ruleset", "landlock_add_rule",
                                            "landlock_restrict_self"};
        d["landlock"] =
            "not applied: " + std::string(steps[o.landlockStep]) + ": " + errnoText(o.landlock);
    } else {
        std::string text =
            "applied: ABI " + std::to_string(o.landlockAbi) + "; reads beneath " +
            std::to_string(m_policy.readable.size() + m_policy.executable.size()) +
            " paths, writes beneath " + std::to_string(m_policy.writable.size()) +
            ", programs from " + std::to_string(m_policy.executable.size()) + ", " +
            std::to_string(m_policy.devices.size()) + " devices" +
            (m_policy.ownProcessWritable ? ", its own /proc entries writable; " : "; ");
        text += o.landlockAbi >= 4 ? "no TCP" : "TCP not covered (ABI 4 and later)";
        text += o.landlockAbi >= 6 ? "; no signals or abstract sockets outside"
                                   : "; signals not covered (ABI 6 and later)";
        text += " (" + std::to_string(o.rulesAdded) + " rules";
        if (o.rulesSkipped)
            text += ", " + std::to_string(o.rulesSkipped) + " paths not there";
        d["landlock"] = text + ")";
    }
    if (!m_policy.filterSystemCalls) {
        d["seccomp"] = "not applied: switched off";
    } else if (o.seccomp == ENOSYS && m_filter.empty()) {
        d["seccomp"] = "not applied: " + m_filterUnsupported;
    } else if (o.seccomp != 0) {
        d["seccomp"] = "not applied: " + errnoText(o.seccomp);
    } else {
        d["seccomp"] = "applied: " + std::to_string(m_deniedCalls) + " system calls refused (" +
                       joined(deniedSystemCallNames(), 6) + "), new namespaces, " +
                       (m_policy.allowUnixSockets ? "sockets other than AF_UNIX"
                                                  : "new sockets (socketpair only)") +
                       ", TIOCSTI";
    }
    return d;
}

} // namespace dice
