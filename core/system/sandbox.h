// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <linux/filter.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

// The sandbox every untrusted program of the workbench runs in (docs/sandbox.md): a KernelBench
// answer and its build, a KernelBench problem file being imported, and the native worker. It is
// applied by the process to be confined, before it runs anything untrusted: between fork and
// exec, or at the start of main while the process has one thread. Each layer is applied where
// the kernel offers it and reported as "not applied: <why>" where it does not:
//   - limits (setrlimit): data, address space, file size, open files, processes, CPU time, no
//     core dumps;
//   - a user and a network namespace of its own (no network but a loopback of its own), and a
//     mount namespace when private folders are asked for (an empty tmpfs over /dev/shm, say);
//   - no_new_privs;
//   - Landlock: reads only beneath the readable folders, writes only beneath the writable ones
//     (and the process's own /proc entries where asked), programs run only from the executable
//     ones, devices only as listed, no TCP, no signal or abstract socket outside the sandbox;
//   - seccomp: a system-call filter (seccomp_filter.h).
namespace dice {

struct SandboxLimits {
    // 0 leaves a limit as it is. Limits are only ever lowered.
    std::uint64_t dataBytes = 0;         // RLIMIT_DATA: the heap and private writable memory
    std::uint64_t addressSpaceBytes = 0; // RLIMIT_AS: never for a process that uses CUDA
    std::uint64_t fileSizeBytes = 0;     // RLIMIT_FSIZE
    std::uint64_t openFiles = 0;         // RLIMIT_NOFILE
    std::uint64_t processes = 0;         // RLIMIT_NPROC
    std::uint64_t cpuSeconds = 0;        // RLIMIT_CPU
    bool noCoreDumps = true;             // RLIMIT_CORE = 0
};

// What a sandboxed process may do. Paths are absolute; those that do not exist are skipped.
struct SandboxPolicy {
    std::vector<std::string> readable;   // files and folders: read and list beneath
    std::vector<std::string> executable; // also run programs beneath (Landlock's execute right)
    std::vector<std::string> writable;   // create, change, rename and remove beneath; no exec
    std::vector<std::string> devices;    // device files opened for reading, writing and ioctl
    // Folders covered by an empty tmpfs of the process's own, writable (needs the namespaces).
    std::vector<std::string> privateFolders;
    bool isolateNetwork = true;    // own user and network namespace
    bool restrictFiles = true;     // Landlock
    bool filterSystemCalls = true; // seccomp
    bool allowUnixSockets = false; // socket(AF_UNIX); socketpair works regardless
    // Its own /proc/PID writable: the CUDA driver names its threads through
    // /proc/self/task/TID/comm while it initialises and fails (CUDA_ERROR_OPERATING_SYSTEM) when
    // it cannot. Only the process's own entries, never the rest of /proc.
    bool ownProcessWritable = false;
    // Refuse to run the program when a layer asked for could not be applied (an old kernel, a
    // container that forbids user namespaces): untrusted code never runs half confined unless
    // the user said so.
    bool requireAll = true;
    SandboxLimits limits;
};

nlohmann::json toJson(const SandboxPolicy& policy);
// Throws dice::Error naming the field that is wrong (a relative path, a negative limit, ...).
SandboxPolicy sandboxPolicyFromJson(const nlohmann::json& json);

// What applying a plan did, step by step: 0 applied, an errno value where it failed, -1 where
// it was not asked for. Plain data, filled without allocating.
struct SandboxOutcome {
    static constexpr int kLimits = 7; // data, as, fsize, nofile, nproc, cpu, core
    static constexpr int kMaxPrivateFolders = 8;
    int limits[kLimits] = {-1, -1, -1, -1, -1, -1, -1};
    unsigned long long limitInForce[kLimits] = {};
    int namespaces = -1; // unshare
    int idMaps = -1;     // uid_map, gid_map
    int loopback = -1;
    int privateFolders[kMaxPrivateFolders] = {-1, -1, -1, -1, -1, -1, -1, -1};
    int noNewPrivs = -1;
    int landlockAbi = 0; // 0: the kernel has none
    int landlock = -1;
    int landlockStep = 0; // 1 create, 2 add a rule, 3 restrict
    int rulesAdded = 0;
    int rulesSkipped = 0; // paths that were not there
    int seccomp = -1;
};

// A policy made ready in the parent (paths, the filter program, the id maps), so that apply()
// makes system calls only: it is async-signal-safe, and may run in the child of a multithreaded
// parent between fork and exec.
class SandboxPlan {
public:
    explicit SandboxPlan(SandboxPolicy policy);

    // Confines the calling process, which must have a single thread. Never throws.
    SandboxOutcome apply() const noexcept;

    const SandboxPolicy& policy() const { return m_policy; }
    // What was applied, in words, in the style of the worker's hello reply.
    nlohmann::json describe(const SandboxOutcome& outcome) const;
    // The layers asked for that were not applied ("landlock", "seccomp", "namespaces",
    // "no_new_privs", "limits"); empty when the plan holds whole.
    std::vector<std::string> missingLayers(const SandboxOutcome& outcome) const;

private:
    struct Rule {
        std::string path;
        std::uint64_t folderAccess = 0;
        std::uint64_t fileAccess = 0;
        int privateIndex = -1; // which private folder, for those
    };

    void applyLimits(SandboxOutcome& outcome) const noexcept;
    void applyNamespaces(SandboxOutcome& outcome) const noexcept;
    void applyLandlock(SandboxOutcome& outcome) const noexcept;
    void applySeccomp(SandboxOutcome& outcome) const noexcept;

    SandboxPolicy m_policy;
    std::vector<Rule> m_rules;
    std::vector<sock_filter> m_filter;
    std::string m_filterUnsupported;
    int m_deniedCalls = 0;
    std::string m_uidMap;
    std::string m_gidMap;
    std::string m_tmpfsOptions;
};

// The Landlock ABI version this kernel offers; 0 when it has none (or it is switched off).
int landlockAbi();

// The sandbox launcher (dice-sandbox): $DICE_SANDBOX_PROGRAM, else beside this executable.
std::string sandboxProgram();

} // namespace dice
