// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/system/seccomp_filter.h"

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <sched.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace dice {

namespace {

struct DeniedCall {
    int number;
    const char* name;
};

#define DICE_DENY(name)                                                                            \
    { __NR_##name, #name }

// Calls no evaluated program needs and a hostile one would: reaching into another process
// (ptrace and its relatives), the kernel's configuration and modules, mounts and namespaces
// (after the sandbox has made its own), BPF and performance counters (kernel attack surface and
// side channels), io_uring (whose operations seccomp cannot see), and the clock and host name.
const DeniedCall kDenied[] = {
    DICE_DENY(ptrace),
    DICE_DENY(process_vm_readv),
    DICE_DENY(process_vm_writev),
    DICE_DENY(process_madvise),
    DICE_DENY(pidfd_getfd),
    DICE_DENY(kcmp),
    DICE_DENY(mount),
    DICE_DENY(umount2),
    DICE_DENY(pivot_root),
    DICE_DENY(chroot),
    DICE_DENY(move_mount),
    DICE_DENY(open_tree),
    DICE_DENY(fsopen),
    DICE_DENY(fsconfig),
    DICE_DENY(fsmount),
    DICE_DENY(fspick),
    DICE_DENY(mount_setattr),
    DICE_DENY(unshare),
    DICE_DENY(setns),
    DICE_DENY(bpf),
    DICE_DENY(perf_event_open),
    DICE_DENY(userfaultfd),
    DICE_DENY(io_uring_setup),
    DICE_DENY(io_uring_enter),
    DICE_DENY(io_uring_register),
    DICE_DENY(kexec_load),
    DICE_DENY(kexec_file_load),
    DICE_DENY(init_module),
    DICE_DENY(finit_module),
    DICE_DENY(delete_module),
    DICE_DENY(reboot),
    DICE_DENY(swapon),
    DICE_DENY(swapoff),
    DICE_DENY(acct),
    DICE_DENY(syslog),
    DICE_DENY(quotactl),
    DICE_DENY(quotactl_fd),
    DICE_DENY(keyctl),
    DICE_DENY(add_key),
    DICE_DENY(request_key),
    DICE_DENY(open_by_handle_at),
    DICE_DENY(name_to_handle_at),
    DICE_DENY(fanotify_init),
    DICE_DENY(lookup_dcookie),
    DICE_DENY(vhangup),
    DICE_DENY(settimeofday),
    DICE_DENY(clock_settime),
    DICE_DENY(clock_adjtime),
    DICE_DENY(adjtimex),
    DICE_DENY(sethostname),
    DICE_DENY(setdomainname),
#ifdef __NR_iopl
    DICE_DENY(iopl),
#endif
#ifdef __NR_ioperm
    DICE_DENY(ioperm),
#endif
#ifdef __NR_uselib
    DICE_DENY(uselib),
#endif
#ifdef __NR__sysctl
    DICE_DENY(_sysctl),
#endif
#ifdef __NR_nfsservctl
    DICE_DENY(nfsservctl),
#endif
};

#undef DICE_DENY

// New namespaces from clone(): the sandbox's own were made before the filter.
constexpr std::uint32_t kNamespaceFlags = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS |
                                          CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |
                                          CLONE_NEWNET;

#if defined(__x86_64__)
constexpr std::uint32_t kArchitecture = AUDIT_ARCH_X86_64;
// x32 system calls share the architecture value and differ by this bit of the number.
constexpr std::uint32_t kForeignAbiBit = 0x40000000u;
#elif defined(__aarch64__)
constexpr std::uint32_t kArchitecture = AUDIT_ARCH_AARCH64;
constexpr std::uint32_t kForeignAbiBit = 0;
#else
constexpr std::uint32_t kArchitecture = 0;
constexpr std::uint32_t kForeignAbiBit = 0;
#endif

constexpr std::uint32_t kNumberOffset = offsetof(seccomp_data, nr);
constexpr std::uint32_t kArchOffset = offsetof(seccomp_data, arch);
// The low 32 bits of an argument (both supported architectures are little-endian).
constexpr std::uint32_t argumentOffset(int index) {
    return static_cast<std::uint32_t>(offsetof(seccomp_data, args) + 8 * index);
}

// A small assembler: jumps name labels, resolved to the 8-bit offsets classic BPF wants.
class Assembler {
public:
    enum Label {
        Allow,
        Deny,
        NoSystemCall,
        Kill,
        CloneCheck,
        SocketCheck,
        SocketPairCheck,
        IoctlCheck,
        LabelCount
    };

    void load(std::uint32_t offset) { emit(BPF_LD | BPF_W | BPF_ABS, offset); }
    void ret(std::uint32_t value) { emit(BPF_RET | BPF_K, value); }
    // if (A == value) goto target, else fall through.
    void jumpIfEqual(std::uint32_t value, Label target) { jump(BPF_JEQ, value, target); }
    void jumpIfAnyBit(std::uint32_t bits, Label target) { jump(BPF_JSET, bits, target); }
    // if (A != value) goto target.
    void jumpIfNotEqual(std::uint32_t value, Label target) {
        m_code.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 0, 0));
        m_fixups.push_back({m_code.size() - 1, target, false});
    }
    void place(Label label) { m_labels[label] = static_cast<int>(m_code.size()); }

    std::vector<sock_filter> finish() {
        for (const Fixup& f : m_fixups) {
            const int target = m_labels[f.target];
            const int offset = target - static_cast<int>(f.at) - 1;
            if (target < 0 || offset < 0 || offset > 255)
                throw std::logic_error("seccomp filter: a jump does not fit in 8 bits");
            if (f.whenTrue)
                m_code[f.at].jt = static_cast<std::uint8_t>(offset);
            else
                m_code[f.at].jf = static_cast<std::uint8_t>(offset);
        }
        return m_code;
    }

private:
    struct Fixup {
        std::size_t at;
        Label target;
        bool whenTrue;
    };

    void emit(std::uint16_t code, std::uint32_t k) { m_code.push_back(BPF_STMT(code, k)); }
    void jump(std::uint16_t op, std::uint32_t value, Label target) {
        m_code.push_back(BPF_JUMP(BPF_JMP | op | BPF_K, value, 0, 0));
        m_fixups.push_back({m_code.size() - 1, target, true});
    }

    std::vector<sock_filter> m_code;
    std::vector<Fixup> m_fixups;
    int m_labels[LabelCount] = {-1, -1, -1, -1, -1, -1, -1, -1};
};

} // namespace

SeccompProgram buildSeccompFilter(const SeccompOptions& options) {
    SeccompProgram program;
    if (kArchitecture == 0) {
        program.unsupported = "no filter is written for this processor architecture";
        return program;
    }
    using A = Assembler;
    A a;
    a.load(kArchOffset);
    a.jumpIfNotEqual(kArchitecture, A::Kill);
    a.load(kNumberOffset);
    if (kForeignAbiBit)
        a.jumpIfAnyBit(kForeignAbiBit, A::Kill);
    for (const DeniedCall& call : kDenied)
        a.jumpIfEqual(static_cast<std::uint32_t>(call.number), A::Deny);
    a.jumpIfEqual(__NR_clone, A::CloneCheck);
    // clone3 passes its flags in memory the filter cannot read: "not implemented" makes the C
    // library fall back to clone, whose flags it can.
    a.jumpIfEqual(__NR_clone3, A::NoSystemCall);
    a.jumpIfEqual(__NR_socket, A::SocketCheck);
    a.jumpIfEqual(__NR_socketpair, A::SocketPairCheck);
    a.jumpIfEqual(__NR_ioctl, A::IoctlCheck);
    a.ret(SECCOMP_RET_ALLOW);

    a.place(A::CloneCheck);
    a.load(argumentOffset(0));
    a.jumpIfAnyBit(kNamespaceFlags, A::Deny);
    a.ret(SECCOMP_RET_ALLOW);

    a.place(A::SocketCheck);
    a.load(argumentOffset(0));
    if (options.allowUnixSockets)
        a.jumpIfEqual(AF_UNIX, A::Allow);
    a.ret(SECCOMP_RET_ERRNO | EPERM);

    a.place(A::SocketPairCheck);
    a.load(argumentOffset(0));
    a.jumpIfEqual(AF_UNIX, A::Allow);
    a.ret(SECCOMP_RET_ERRNO | EPERM);

    // Characters pushed into a terminal's input run as the user once the sandbox has ended.
    a.place(A::IoctlCheck);
    a.load(argumentOffset(1));
    a.jumpIfEqual(TIOCSTI, A::Deny);
    a.jumpIfEqual(TIOCLINUX, A::Deny);
    a.ret(SECCOMP_RET_ALLOW);

    a.place(A::Allow);
    a.ret(SECCOMP_RET_ALLOW);
    a.place(A::Deny);
    a.ret(SECCOMP_RET_ERRNO | EPERM);
    a.place(A::NoSystemCall);
    a.ret(SECCOMP_RET_ERRNO | ENOSYS);
    a.place(A::Kill);
    a.ret(SECCOMP_RET_KILL_PROCESS);

    program.instructions = a.finish();
    program.deniedCalls = static_cast<int>(sizeof(kDenied) / sizeof(kDenied[0]));
    return program;
}

std::vector<std::string> deniedSystemCallNames() {
    std::vector<std::string> names;
    for (const DeniedCall& call : kDenied)
        names.emplace_back(call.name);
    return names;
}

} // namespace dice
