// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <linux/filter.h>

#include <string>
#include <vector>

// The system-call filter of the sandbox (docs/sandbox.md): a classic BPF program for
// seccomp(SECCOMP_SET_MODE_FILTER), written out by hand so that no library stands between the
// sandbox and the kernel. Everything is allowed except what reaches another process, the kernel's
// configuration or a namespace: those calls fail with EPERM (a library that tries one sees an
// error, not a dead process). A system call of another architecture or ABI kills the process.
namespace dice {

struct SeccompOptions {
    // socket(AF_UNIX, ...). Other families are always refused; socketpair(AF_UNIX) always works.
    bool allowUnixSockets = false;
};

struct SeccompProgram {
    std::vector<sock_filter> instructions; // empty when this architecture is not supported
    std::string unsupported;               // why there is no program, in words
    int deniedCalls = 0;                   // system calls refused outright
};

SeccompProgram buildSeccompFilter(const SeccompOptions& options);

// The names of the system calls refused outright on this architecture, for the documentation and
// the sandbox's report.
std::vector<std::string> deniedSystemCallNames();

} // namespace dice
