// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

extern char** environ;

namespace dice {

namespace {

using Clock = std::chrono::steady_clock;

#ifndef CLOSE_RANGE_CLOEXEC
constexpr unsigned kCloseRangeCloexec = 1U << 2;
#else
constexpr unsigned kCloseRangeCloexec = CLOSE_RANGE_CLOEXEC;
#endif

// The most a single read call takes from one stream, so that a child writing without pause
// cannot keep the others (and the time limit) waiting.
constexpr std::size_t kReadBurst = std::size_t(1) << 20;

// What the child reports through the error pipe when it cannot get to exec.
struct StartFailure {
    int stage; // kStageChdir or kStageExec
    int error; // errno
};
constexpr int kStageChdir = 1;
constexpr int kStageExec = 2;

void closeFd(int& fd) {
    if (fd >= 0)
        ::close(fd);
    fd = -1;
}

// Moves a descriptor to 3 or above, so that putting the child's streams on 0, 1 and 2 never
// overwrites another of them.
bool lift(int& fd) {
    if (fd < 0 || fd > 2)
        return true;
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (moved < 0)
        return false;
    ::close(fd);
    fd = moved;
    return true;
}

void setNonBlocking(int fd) {
    if (fd >= 0)
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

// write() with SIGPIPE held back in this thread: a child that closed its stdin makes the write
// fail with EPIPE instead of killing the parent, and the signal it raised is taken back.
ssize_t writeWithoutSigpipe(int fd, const char* data, std::size_t size) {
    sigset_t pipeSignal;
    sigemptyset(&pipeSignal);
    sigaddset(&pipeSignal, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    const bool alreadyPending = sigismember(&pending, SIGPIPE) == 1;
    sigset_t previous;
    pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous);
    ssize_t n = 0;
    do {
        n = ::write(fd, data, size);
    } while (n < 0 && errno == EINTR);
    const int writeError = errno;
    if (n < 0 && writeError == EPIPE && !alreadyPending) {
        const timespec now{0, 0};
        while (sigtimedwait(&pipeSignal, nullptr, &now) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    errno = writeError;
    return n;
}

bool isExecutableFile(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
}

std::vector<std::string> pathFolders() {
    std::vector<std::string> folders;
    const char* path = std::getenv("PATH");
    if (!path)
        return folders;
    const std::string text = path;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(':', start), text.size());
        if (end > start)
            folders.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return folders;
}

// Splits a stream into lines for a callback as its bytes arrive.
class LineSplitter {
public:
    LineSplitter(const std::function<void(const std::string&)>& callback, std::size_t longest)
        : m_callback(callback)
        , m_longest(std::max<std::size_t>(longest, 1)) {}

    void feed(const std::string& data) {
        if (!m_callback)
            return;
        m_pending += data;
        std::size_t start = 0;
        for (std::size_t newline = m_pending.find('\n'); newline != std::string::npos;
             newline = m_pending.find('\n', start)) {
            m_callback(m_pending.substr(start, newline - start));
            start = newline + 1;
        }
        m_pending.erase(0, start);
        while (m_pending.size() > m_longest) {
            m_callback(m_pending.substr(0, m_longest));
            m_pending.erase(0, m_longest);
        }
    }

    void finish() {
        if (m_callback && !m_pending.empty())
            m_callback(m_pending);
        m_pending.clear();
    }

private:
    const std::function<void(const std::string&)>& m_callback;
    std::size_t m_longest;
    std::string m_pending;
};

// One captured stream of runChild.
struct Capture {
    std::string* text;
    std::size_t* dropped;
    std::size_t limit;
    LineSplitter lines;
    bool open;

    void take(const std::string& chunk) {
        const std::size_t room = limit > text->size() ? limit - text->size() : 0;
        text->append(chunk, 0, std::min(room, chunk.size()));
        *dropped += chunk.size() - std::min(room, chunk.size());
        lines.feed(chunk);
    }
};

} // namespace

std::string ChildExit::describe() const {
    if (!started())
        return startError;
    if (timedOut)
        return "ran past its time limit and was killed";
    if (signal != 0) {
        const char* name = strsignal(signal);
        return "was killed by signal " + std::to_string(signal) +
               (name ? std::string(" (") + name + ")" : std::string());
    }
    if (exitCode >= 0)
        return "exited with status " + std::to_string(exitCode);
    return "has not ended";
}

std::string findExecutable(const std::string& name, const std::vector<std::string>& folders) {
    if (name.empty() || name.find('/') != std::string::npos)
        return name;
    for (const std::string& folder : folders) {
        if (folder.empty())
            continue;
        const std::string candidate = folder.back() == '/' ? folder + name : folder + "/" + name;
        if (isExecutableFile(candidate))
            return candidate;
    }
    return {};
}

std::string findExecutable(const std::string& name) {
    return findExecutable(name, pathFolders());
}

ChildProcess::~ChildProcess() {
    if (m_pid > 0) {
        kill(SIGKILL);
        wait(-1);
    }
    closePipes();
}

bool ChildProcess::start(const ChildCommand& command, const ChildStart& how, std::string* error) {
    const auto fail = [error](const std::string& why) {
        if (error)
            *error = why;
        return false;
    };
    if (m_pid > 0) {
        kill(SIGKILL);
        wait(-1);
    }
    closePipes();
    m_exit = ChildExit();
    if (command.argv.empty() || command.argv.front().empty())
        return fail("no program to run");
    const std::string& name = command.argv.front();
    const std::string program = findExecutable(name);
    if (program.empty())
        return fail("cannot start " + name + ": it was not found on PATH");

    // Everything the child needs is made here: between fork and exec it may only call
    // async-signal-safe functions, so it allocates nothing.
    std::vector<std::string> args = command.argv;
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) {
        const std::string entry = *e;
        const std::string key = entry.substr(0, entry.find('='));
        const bool replaced = std::any_of(command.environment.begin(), command.environment.end(),
                                          [&key](const auto& kv) { return kv.first == key; });
        if (!replaced)
            env.push_back(entry);
    }
    for (const auto& [key, value] : command.environment)
        env.push_back(key + "=" + value);
    std::vector<char*> envp;
    for (std::string& e : env)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    const char* folder =
        command.workingDirectory.empty() ? nullptr : command.workingDirectory.c_str();

    int in[2] = {-1, -1};
    int out[2] = {-1, -1};
    int err[2] = {-1, -1};
    int report[2] = {-1, -1};
    int null = -1;
    const auto closeAll = [&] {
        for (int* fd :
             {&in[0], &in[1], &out[0], &out[1], &err[0], &err[1], &report[0], &report[1], &null})
            closeFd(*fd);
    };
    const bool wantNull =
        how.in == ChildStream::Null || how.out == ChildStream::Null || how.err == ChildStream::Null;
    bool made = (how.in != ChildStream::Pipe || ::pipe2(in, O_CLOEXEC) == 0) &&
                (how.out != ChildStream::Pipe || ::pipe2(out, O_CLOEXEC) == 0) &&
                (how.err != ChildStream::Pipe || ::pipe2(err, O_CLOEXEC) == 0) &&
                ::pipe2(report, O_CLOEXEC) == 0 &&
                (!wantNull || (null = ::open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0);
    for (int* fd :
         {&in[0], &in[1], &out[0], &out[1], &err[0], &err[1], &report[0], &report[1], &null})
        made = made && lift(*fd);
    if (!made) {
        const std::string why = std::strerror(errno);
        closeAll();
        return fail("cannot start " + name + ": cannot create its pipes: " + why);
    }
    const auto source = [null](ChildStream stream, int pipeEnd) {
        return stream == ChildStream::Pipe ? pipeEnd : stream == ChildStream::Null ? null : -1;
    };
    const int childIn = source(how.in, in[0]);
    const int childOut = source(how.out, out[1]);
    const int childErr = source(how.err, err[1]);
    // Used by the child only where close_range cannot mark its descriptors.
    rlimit files{};
    int lastFd = 65535;
    if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY)
        lastFd = static_cast<int>(std::min<rlim_t>(files.rlim_cur, rlim_t(1) << 20)) - 1;
    sigset_t noSignals;
    sigemptyset(&noSignals);
    const pid_t parent = ::getpid();
    const bool ownGroup = how.ownGroup;
    const bool endsWithStarter = how.endsWithStarter;

    const pid_t pid = ::fork();
    if (pid < 0) {
        const std::string why = std::strerror(errno);
        closeAll();
        return fail("cannot start " + name + ": " + why);
    }
    if (pid == 0) {
        if (ownGroup)
            ::setpgid(0, 0);
        // A parent that died before this line would never send the signal.
        if (endsWithStarter && (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent))
            ::_exit(127);
        // A parent that ignores SIGPIPE (or blocks signals in this thread) must not hand that on:
        // an ignored signal stays ignored across exec.
        ::signal(SIGPIPE, SIG_DFL);
        ::sigprocmask(SIG_SETMASK, &noSignals, nullptr);
        if (childIn >= 0)
            ::dup2(childIn, STDIN_FILENO);
        if (childOut >= 0)
            ::dup2(childOut, STDOUT_FILENO);
        if (childErr >= 0)
            ::dup2(childErr, STDERR_FILENO);
        StartFailure failure{0, 0};
        if (folder && ::chdir(folder) != 0) {
            failure = {kStageChdir, errno};
        } else {
            // Whatever the parent opened without close-on-exec (another thread's file, a
            // library's socket) closes at exec; the error pipe is close-on-exec already.
#ifdef SYS_close_range
            const bool marked = ::syscall(SYS_close_range, 3U, ~0U, kCloseRangeCloexec) == 0;
#else
            const bool marked = false;
#endif
            if (!marked)
                for (int fd = 3; fd <= lastFd; ++fd) {
                    const int flags = ::fcntl(fd, F_GETFD);
                    if (flags >= 0 && !(flags & FD_CLOEXEC))
                        ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
                }
            ::execve(program.c_str(), argv.data(), envp.data());
            failure = {kStageExec, errno};
        }
        [[maybe_unused]] const ssize_t written = ::write(report[1], &failure, sizeof(failure));
        ::_exit(127);
    }
    // Both sides set the group, so that it exists whichever runs first.
    if (ownGroup)
        ::setpgid(pid, pid);
    closeFd(in[0]);
    closeFd(out[1]);
    closeFd(err[1]);
    closeFd(report[1]);
    closeFd(null);
    StartFailure failure{0, 0};
    ssize_t got = 0;
    do {
        got = ::read(report[0], &failure, sizeof(failure));
    } while (got < 0 && errno == EINTR);
    closeFd(report[0]);
    if (got == static_cast<ssize_t>(sizeof(failure))) {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        closeAll();
        if (failure.stage == kStageChdir)
            return fail("cannot start " + name + " in " + command.workingDirectory + ": " +
                        std::strerror(failure.error));
        return fail("cannot start " + program + ": " + std::strerror(failure.error));
    }
    m_pid = pid;
    m_ownGroup = ownGroup;
    m_in = in[1];
    m_out = out[0];
    m_err = err[0];
    setNonBlocking(m_in);
    setNonBlocking(m_out);
    setNonBlocking(m_err);
    return true;
}

void ChildProcess::reaped(int status) {
    if (WIFEXITED(status))
        m_exit.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        m_exit.signal = WTERMSIG(status);
    m_pid = -1;
}

bool ChildProcess::running() {
    if (m_pid <= 0)
        return false;
    int status = 0;
    pid_t done = 0;
    do {
        done = ::waitpid(m_pid, &status, WNOHANG);
    } while (done < 0 && errno == EINTR);
    if (done == 0)
        return true;
    if (done == m_pid)
        reaped(status);
    else
        m_pid = -1; // reaped elsewhere: nothing is known of its end
    return false;
}

bool ChildProcess::write(const std::string& data, std::size_t* written) {
    std::size_t done = 0;
    const auto finish = [&](bool ok) {
        if (written)
            *written = done;
        return ok;
    };
    while (done < data.size()) {
        if (m_in < 0)
            return finish(false);
        const ssize_t n = writeWithoutSigpipe(m_in, data.data() + done, data.size() - done);
        if (n < 0) {
            if (errno != EAGAIN)
                return finish(false);
            pollfd p{m_in, POLLOUT, 0};
            ::poll(&p, 1, 1000);
            continue;
        }
        done += static_cast<std::size_t>(n);
    }
    return finish(true);
}

std::size_t ChildProcess::stdinUnread() const {
    int bytes = 0;
    if (m_in < 0 || ::ioctl(m_in, FIONREAD, &bytes) != 0 || bytes < 0)
        return 0;
    return static_cast<std::size_t>(bytes);
}

void ChildProcess::closeStdin() {
    closeFd(m_in);
}

void ChildProcess::closeStdout() {
    closeFd(m_out);
}

void ChildProcess::closeStderr() {
    closeFd(m_err);
}

void ChildProcess::closePipes() {
    closeFd(m_in);
    closeFd(m_out);
    closeFd(m_err);
}

ChildProcess::ReadState ChildProcess::readAvailable(int fd, std::string& buffer) {
    if (fd < 0)
        return ReadState::EndOfFile;
    char chunk[65536];
    std::size_t taken = 0;
    while (taken < kReadBurst) {
        const ssize_t n = ::read(fd, chunk, sizeof(chunk));
        if (n > 0) {
            buffer.append(chunk, static_cast<std::size_t>(n));
            taken += static_cast<std::size_t>(n);
            continue;
        }
        if (n == 0)
            return ReadState::EndOfFile;
        if (errno == EINTR)
            continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? ReadState::Open : ReadState::EndOfFile;
    }
    return ReadState::Open;
}

void ChildProcess::kill(int signal) {
    if (m_pid <= 0)
        return;
    if (!m_ownGroup || ::kill(-m_pid, signal) != 0)
        ::kill(m_pid, signal);
}

ChildExit ChildProcess::wait(int timeoutMs) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(std::max(timeoutMs, 0));
    auto pause = std::chrono::milliseconds(1);
    while (running()) {
        if (timeoutMs >= 0 && Clock::now() >= deadline) {
            kill(SIGKILL);
            int status = 0;
            pid_t done = 0;
            do {
                done = ::waitpid(m_pid, &status, 0);
            } while (done < 0 && errno == EINTR);
            if (done == m_pid)
                reaped(status);
            m_pid = -1;
            m_exit.timedOut = true;
            break;
        }
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::milliseconds(20));
    }
    return m_exit;
}

ChildResult runChild(const ChildCommand& command, const ChildRunOptions& options) {
    ChildResult result;
    ChildProcess child;
    ChildStart how;
    how.in = options.input ? ChildStream::Pipe : ChildStream::Null;
    how.out = options.out;
    how.err = options.err;
    how.endsWithStarter = true;
    std::string error;
    if (!child.start(command, how, &error)) {
        result.exit.startError = error;
        return result;
    }
    const std::string input = options.input.value_or(std::string());
    std::size_t written = 0;
    if (input.empty())
        child.closeStdin();
    auto lastLine = Clock::now();
    std::function<void(const std::string&)> onStdoutLine = options.onStdoutLine;
    if (options.idleTimeoutMs > 0)
        onStdoutLine = [&](const std::string& line) {
            lastLine = Clock::now();
            if (options.onStdoutLine)
                options.onStdoutLine(line);
        };
    Capture out{&result.out, &result.outDropped, options.captureLimit,
                LineSplitter(onStdoutLine, options.captureLimit), child.stdoutFd() >= 0};
    Capture err{&result.err, &result.errDropped, options.captureLimit,
                LineSplitter(options.onStderrLine, options.captureLimit), child.stderrFd() >= 0};
    const bool limited = options.timeoutMs > 0;
    const auto deadline = Clock::now() + std::chrono::milliseconds(std::max(options.timeoutMs, 0));
    bool timedOut = false;
    while (out.open || err.open || child.stdinFd() >= 0) {
        int waitMs = 1000;
        if (options.idleTimeoutMs > 0) {
            const auto quiet =
                std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - lastLine)
                    .count();
            if (quiet >= options.idleTimeoutMs) {
                timedOut = true;
                result.silent = true;
                break;
            }
            waitMs = static_cast<int>(std::min<long long>(options.idleTimeoutMs - quiet, waitMs));
        }
        if (limited) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now())
                    .count();
            if (left <= 0) {
                timedOut = true;
                break;
            }
            waitMs = static_cast<int>(std::min<long long>(left, waitMs));
        }
        pollfd fds[3] = {{child.stdinFd(), POLLOUT, 0},
                         {out.open ? child.stdoutFd() : -1, POLLIN, 0},
                         {err.open ? child.stderrFd() : -1, POLLIN, 0}};
        if (::poll(fds, 3, waitMs) < 0) {
            if (errno == EINTR)
                continue;
            child.kill(SIGKILL);
            break;
        }
        if (fds[0].revents) {
            const std::size_t size = std::min<std::size_t>(input.size() - written, 65536);
            const ssize_t n = writeWithoutSigpipe(child.stdinFd(), input.data() + written, size);
            if (n > 0)
                written += static_cast<std::size_t>(n);
            // A child that stops reading its input has said what it thinks of the rest.
            if (written == input.size() || (n < 0 && errno != EAGAIN))
                child.closeStdin();
        }
        for (int i : {1, 2}) {
            if (!fds[i].revents)
                continue;
            Capture& capture = i == 1 ? out : err;
            std::string chunk;
            const auto state = i == 1 ? child.readStdout(chunk) : child.readStderr(chunk);
            capture.take(chunk);
            if (state == ChildProcess::ReadState::EndOfFile) {
                capture.open = false;
                if (i == 1)
                    child.closeStdout();
                else
                    child.closeStderr();
            }
        }
    }
    if (timedOut)
        child.kill(SIGKILL);
    child.closePipes();
    if (timedOut) {
        result.exit = child.wait(-1);
        result.exit.timedOut = true;
    } else if (limited) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        result.exit = child.wait(static_cast<int>(std::max<long long>(left, 0)));
    } else {
        result.exit = child.wait(-1);
    }
    out.lines.finish();
    err.lines.finish();
    return result;
}

} // namespace dice
