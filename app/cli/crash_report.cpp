// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/crash_report.h"

#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>

namespace dice::cli {

namespace {

// A stack of its own, so that a stack overflow can still be reported.
alignas(16) char g_alternateStack[64 * 1024];

void writeText(const char* text) {
    const std::size_t length = std::strlen(text);
    std::size_t done = 0;
    while (done < length) {
        const ssize_t n = ::write(STDERR_FILENO, text + done, length - done);
        if (n <= 0)
            return;
        done += static_cast<std::size_t>(n);
    }
}

void writeHex(const char* label, std::uintptr_t value) {
    char text[2 + 2 * sizeof(value) + 1];
    text[0] = '0';
    text[1] = 'x';
    for (std::size_t i = 0; i < 2 * sizeof(value); ++i)
        text[2 + i] = "0123456789abcdef"[(value >> (4 * (2 * sizeof(value) - 1 - i))) & 0xf];
    text[sizeof(text) - 1] = '\0';
    writeText(label);
    writeText(text);
}

void writeNumber(long value) {
    char number[24];
    int digits = 0;
    do {
        number[digits++] = static_cast<char>('0' + value % 10);
        value /= 10;
    } while (value > 0 && digits < 23);
    char text[24];
    int at = 0;
    while (digits > 0)
        text[at++] = number[--digits];
    text[at] = '\0';
    writeText(text);
}

// A return address into a library the unwinder knows nothing of says little without the map of
// where each library was loaded, and in which process: a forked child inherits this handler.
void writeExecutableMappings() {
    const int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    writeText("executable mappings:\n");
    char line[512];
    std::size_t length = 0;
    char chunk[4096];
    ssize_t got = 0;
    while ((got = ::read(fd, chunk, sizeof(chunk))) > 0) {
        for (ssize_t i = 0; i < got; ++i) {
            if (length + 1 < sizeof(line))
                line[length++] = chunk[i];
            if (chunk[i] != '\n')
                continue;
            line[length] = '\0';
            const char* space = std::strchr(line, ' ');
            if (space && space[3] == 'x')
                writeText(line);
            length = 0;
        }
    }
    ::close(fd);
}

void onFatalSignal(int signal, siginfo_t* info, void* context) {
    // Only async-signal-safe calls: write, backtrace_symbols_fd (backtrace itself was made safe
    // by calling it once at installation, which loads libgcc before any crash).
    char line[96] = "dice: crashed with signal ";
    char number[16];
    int digits = 0;
    for (int value = signal; value > 0 && digits < 15; value /= 10)
        number[digits++] = static_cast<char>('0' + value % 10);
    std::size_t at = std::strlen(line);
    while (digits > 0 && at + 2 < sizeof(line))
        line[at++] = number[--digits];
    line[at] = '\0';
    writeText(line);
    writeText(" in process ");
    writeNumber(static_cast<long>(::getpid()));
    writeText(" (parent ");
    writeNumber(static_cast<long>(::getppid()));
    writeText(")");
    writeHex(" at address ", reinterpret_cast<std::uintptr_t>(info ? info->si_addr : nullptr));
#if defined(__x86_64__) && defined(REG_RIP)
    // The unwinder stops at a frame without unwind information (a call through a bad function
    // pointer): the instruction and the return address on top of the stack still say where.
    if (context) {
        const auto* registers = static_cast<const ucontext_t*>(context)->uc_mcontext.gregs;
        writeHex(", instruction ", static_cast<std::uintptr_t>(registers[REG_RIP]));
        const auto* top = reinterpret_cast<const std::uintptr_t*>(registers[REG_RSP]);
        if (top)
            writeHex(", top of stack ", *top);
    }
#else
    (void)context;
#endif
    writeText("; call stack:\n");
    void* frames[64];
    const int count = ::backtrace(frames, 64);
    ::backtrace_symbols_fd(frames, count, STDERR_FILENO);
    writeExecutableMappings();
    ::signal(signal, SIG_DFL);
    ::raise(signal);
}

} // namespace

void installCrashReport() {
    void* warm[1];
    ::backtrace(warm, 1);
    stack_t stack{};
    stack.ss_sp = g_alternateStack;
    stack.ss_size = sizeof(g_alternateStack);
    ::sigaltstack(&stack, nullptr);
    struct sigaction action {};
    action.sa_sigaction = onFatalSignal;
    action.sa_flags = SA_ONSTACK | SA_RESETHAND | SA_SIGINFO;
    ::sigemptyset(&action.sa_mask);
    for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
        ::sigaction(signal, &action, nullptr);
}

} // namespace dice::cli
