// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/worker/worker_process.h"

#include "core/common/error.h"
#include "core/worker/worker_protocol.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace dice {

std::string toString(WorkerReply::Status status) {
    switch (status) {
    case WorkerReply::Status::Ok:
        return "ok";
    case WorkerReply::Status::Error:
        return "error";
    case WorkerReply::Status::Timeout:
        return "timeout";
    case WorkerReply::Status::Crashed:
        return "crashed";
    case WorkerReply::Status::NotStarted:
        return "not started";
    }
    return "error";
}

namespace {

constexpr std::size_t kStderrKeep = 16 * 1024;

void setCloseOnExec(int fd) {
    fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
}

void setNonBlocking(int fd) {
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

bool writeAll(int fd, const std::string& data) {
    size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) {
                pollfd p{fd, POLLOUT, 0};
                ::poll(&p, 1, 1000);
                continue;
            }
            return false;
        }
        done += static_cast<size_t>(n);
    }
    return true;
}

} // namespace

WorkerProcess::WorkerProcess(std::string executable, std::vector<std::string> arguments)
    : m_executable(std::move(executable))
    , m_arguments(std::move(arguments)) {
    // A worker that dies must not kill its owner through a write to a closed pipe.
    signal(SIGPIPE, SIG_IGN);
}

WorkerProcess::~WorkerProcess() {
    stop();
}

bool WorkerProcess::start(std::string* error) {
    if (m_pid > 0)
        return true;
    int in[2], out[2], err[2];
    if (pipe(in) != 0 || pipe(out) != 0 || pipe(err) != 0) {
        if (error)
            *error = std::string("cannot create pipes: ") + std::strerror(errno);
        return false;
    }
    std::vector<std::string> args;
    args.push_back(m_executable);
    for (const auto& a : m_arguments)
        args.push_back(a);
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    const pid_t pid = fork();
    if (pid < 0) {
        if (error)
            *error = std::string("cannot start the worker: ") + std::strerror(errno);
        for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]})
            ::close(fd);
        return false;
    }
    if (pid == 0) {
        // Only async-signal-safe calls from here to exec.
        ::dup2(in[0], 0);
        ::dup2(out[1], 1);
        ::dup2(err[1], 2);
        for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]})
            ::close(fd);
        ::execv(argv[0], argv.data());
        const char message[] = "dice-evald: exec failed\n";
        [[maybe_unused]] const ssize_t written = ::write(2, message, sizeof(message) - 1);
        ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    m_in = in[1];
    m_out = out[0];
    m_err = err[0];
    for (int fd : {m_in, m_out, m_err})
        setCloseOnExec(fd);
    setNonBlocking(m_out);
    setNonBlocking(m_err);
    m_pid = pid;
    m_outBuffer.clear();
    ++m_starts;
    return true;
}

void WorkerProcess::closePipes() {
    for (int* fd : {&m_in, &m_out, &m_err}) {
        if (*fd >= 0)
            ::close(*fd);
        *fd = -1;
    }
}

std::string WorkerProcess::reapDescription() {
    if (m_pid <= 0)
        return "the worker is not running";
    int status = 0;
    pid_t done = 0;
    for (int i = 0; i < 100; ++i) {
        done = ::waitpid(m_pid, &status, WNOHANG);
        if (done != 0)
            break;
        ::usleep(10000);
    }
    if (done == 0) {
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, &status, 0);
    }
    m_pid = -1;
    // Drain what is left of stderr for the report.
    if (m_err >= 0)
        readAvailable(m_err, m_stderr);
    closePipes();
    if (WIFSIGNALED(status))
        return std::string("the worker was killed by signal ") + std::to_string(WTERMSIG(status)) +
               " (" + strsignal(WTERMSIG(status)) + ")";
    if (WIFEXITED(status))
        return "the worker exited with status " + std::to_string(WEXITSTATUS(status));
    return "the worker stopped";
}

void WorkerProcess::kill() {
    if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        reapDescription();
    }
}

void WorkerProcess::stop() {
    if (m_pid <= 0)
        return;
    const std::string line = protocol::makeRequest(m_nextId++, "shutdown").dump() + "\n";
    writeAll(m_in, line);
    ::close(m_in);
    m_in = -1;
    for (int i = 0; i < 100; ++i) {
        int status = 0;
        if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
            m_pid = -1;
            closePipes();
            return;
        }
        ::usleep(10000);
    }
    kill();
}

bool WorkerProcess::readAvailable(int fd, std::string& buffer) {
    char chunk[65536];
    for (;;) {
        const ssize_t n = ::read(fd, chunk, sizeof(chunk));
        if (n > 0) {
            buffer.append(chunk, static_cast<size_t>(n));
            if (&buffer == &m_stderr && m_stderr.size() > kStderrKeep)
                m_stderr.erase(0, m_stderr.size() - kStderrKeep);
            continue;
        }
        if (n == 0)
            return false; // end of file
        if (errno == EINTR)
            continue;
        return true; // EAGAIN: nothing more for now
    }
}

WorkerReply WorkerProcess::call(const std::string& type, const nlohmann::json& body, int timeoutMs,
                                const ProgressFn& onProgress, int idleTimeoutMs) {
    WorkerReply reply;
    if (m_pid <= 0) {
        std::string error;
        if (!start(&error)) {
            reply.status = WorkerReply::Status::NotStarted;
            reply.detail = error;
            return reply;
        }
    }
    const std::int64_t id = m_nextId++;
    const std::string line = protocol::makeRequest(id, type, body).dump() + "\n";
    if (!writeAll(m_in, line)) {
        reply.status = WorkerReply::Status::Crashed;
        reply.detail = reapDescription();
        return reply;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    auto lastHeard = std::chrono::steady_clock::now();
    m_idleTimeoutMs = idleTimeoutMs;
    for (;;) {
        // Complete lines already buffered come first.
        for (;;) {
            const size_t newline = m_outBuffer.find('\n');
            if (newline == std::string::npos)
                break;
            const std::string text = m_outBuffer.substr(0, newline);
            m_outBuffer.erase(0, newline + 1);
            if (text.empty())
                continue;
            nlohmann::json message;
            try {
                message = protocol::parseReply(text);
            } catch (const Error& e) {
                // A worker that speaks garbage is not to be trusted with the next request.
                kill();
                reply.status = WorkerReply::Status::Crashed;
                reply.detail = std::string("the worker wrote an unreadable line: ") + e.what();
                return reply;
            }
            if (message["id"].get<std::int64_t>() != id)
                continue; // a stale answer to an earlier, abandoned request
            const std::string kind = message["type"].get<std::string>();
            lastHeard = std::chrono::steady_clock::now();
            if (kind == "progress") {
                if (onProgress)
                    onProgress(message);
                continue;
            }
            reply.status = kind == "result" ? WorkerReply::Status::Ok : WorkerReply::Status::Error;
            reply.message = std::move(message);
            return reply;
        }
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) {
            kill();
            reply.status = WorkerReply::Status::Timeout;
            reply.detail = "no answer within " + std::to_string(timeoutMs) +
                           " ms; the worker was killed and will be restarted";
            return reply;
        }
        const auto idleDeadline = lastHeard + std::chrono::milliseconds(m_idleTimeoutMs);
        if (m_idleTimeoutMs > 0 && now >= idleDeadline) {
            kill();
            reply.status = WorkerReply::Status::Timeout;
            reply.detail = "no progress for " + std::to_string(m_idleTimeoutMs) +
                           " ms; the worker was killed and will be restarted";
            return reply;
        }
        const auto next = m_idleTimeoutMs > 0 ? std::min(deadline, idleDeadline) : deadline;
        const int wait = static_cast<int>(
            std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count());
        pollfd fds[2] = {{m_out, POLLIN, 0}, {m_err, POLLIN, 0}};
        const int ready = ::poll(fds, 2, std::min(wait, 1000));
        if (ready < 0 && errno != EINTR) {
            kill();
            reply.status = WorkerReply::Status::Crashed;
            reply.detail = std::string("poll failed: ") + std::strerror(errno);
            return reply;
        }
        if (fds[1].revents)
            readAvailable(m_err, m_stderr);
        if (fds[0].revents) {
            const bool open = readAvailable(m_out, m_outBuffer);
            if (!open && m_outBuffer.find('\n') == std::string::npos) {
                reply.status = WorkerReply::Status::Crashed;
                reply.detail = reapDescription();
                return reply;
            }
        }
    }
}

} // namespace dice
