// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

// Landlock, the kernel's unprivileged access control (Linux 5.13 and later), declared here
// because the C library and older kernel headers do not declare its later versions. Each
// version ("ABI") adds rights; a ruleset names the rights it handles, and a handled right is
// denied except beneath the folders a rule grants it for.
namespace dice::landlock {

// Filesystem rights (ABI 1 unless noted).
inline constexpr std::uint64_t kExecute = 1ull << 0;
inline constexpr std::uint64_t kWriteFile = 1ull << 1;
inline constexpr std::uint64_t kReadFile = 1ull << 2;
inline constexpr std::uint64_t kReadDir = 1ull << 3;
inline constexpr std::uint64_t kRemoveDir = 1ull << 4;
inline constexpr std::uint64_t kRemoveFile = 1ull << 5;
inline constexpr std::uint64_t kMakeChar = 1ull << 6;
inline constexpr std::uint64_t kMakeDir = 1ull << 7;
inline constexpr std::uint64_t kMakeReg = 1ull << 8;
inline constexpr std::uint64_t kMakeSock = 1ull << 9;
inline constexpr std::uint64_t kMakeFifo = 1ull << 10;
inline constexpr std::uint64_t kMakeBlock = 1ull << 11;
inline constexpr std::uint64_t kMakeSym = 1ull << 12;
inline constexpr std::uint64_t kRefer = 1ull << 13;    // ABI 2: links and renames across folders
inline constexpr std::uint64_t kTruncate = 1ull << 14; // ABI 3
inline constexpr std::uint64_t kIoctlDev = 1ull << 15; // ABI 5: ioctl on device files

// Network rights (ABI 4).
inline constexpr std::uint64_t kBindTcp = 1ull << 0;
inline constexpr std::uint64_t kConnectTcp = 1ull << 1;

// Scopes (ABI 6): nothing outside the domain is reached.
inline constexpr std::uint64_t kScopeAbstractUnixSocket = 1ull << 0;
inline constexpr std::uint64_t kScopeSignal = 1ull << 1;

// Rights that apply to a file (rules on a file may grant only these).
inline constexpr std::uint64_t kFileRights =
    kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;

// Every filesystem right the given ABI knows.
inline std::uint64_t filesystemRights(int abi) {
    std::uint64_t rights = (kMakeSym << 1) - 1;
    if (abi >= 2)
        rights |= kRefer;
    if (abi >= 3)
        rights |= kTruncate;
    if (abi >= 5)
        rights |= kIoctlDev;
    return rights;
}

struct RulesetAttr {
    std::uint64_t handledAccessFs = 0;
    std::uint64_t handledAccessNet = 0; // ABI 4
    std::uint64_t scoped = 0;           // ABI 6
};

struct __attribute__((packed)) PathBeneathAttr {
    std::uint64_t allowedAccess = 0;
    std::int32_t parentFd = -1;
};

inline constexpr int kRulePathBeneath = 1;
inline constexpr unsigned kCreateRulesetVersion = 1u << 0;

// The same numbers on every architecture (system calls added after the tables were unified).
inline constexpr long kSysCreateRuleset = 444;
inline constexpr long kSysAddRule = 445;
inline constexpr long kSysRestrictSelf = 446;

} // namespace dice::landlock
