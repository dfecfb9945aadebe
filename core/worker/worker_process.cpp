// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/worker/worker_process.h"

#include "core/common/error.h"
#include "core/worker/worker_protocol.h"

#include <poll.h>
#include <signal.h>

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
constexpr int kExitGraceMs = 1000;

} // namespace

WorkerProcess::WorkerProcess(std::string executable, std::vector<std::string> arguments)
    : m_executable(std::move(executable))
    , m_arguments(std::move(arguments)) {}

WorkerProcess::~WorkerProcess() {
    stop();
}

bool WorkerProcess::start(std::string* error) {
    if (m_child.pid() > 0)
        return true;
    ChildCommand command;
    command.argv.push_back(m_executable);
    command.argv.insert(command.argv.end(), m_arguments.begin(), m_arguments.end());
    // The worker stays in our process group, so that a terminal's Ctrl+C ends it with us even
    // while it runs a hung kernel.
    ChildStart how;
    how.ownGroup = false;
    if (!m_child.start(command, how, error))
        return false;
    m_outBuffer.clear();
    ++m_starts;
    return true;
}

void WorkerProcess::readStderr() {
    m_child.readStderr(m_stderr);
    if (m_stderr.size() > kStderrKeep)
        m_stderr.erase(0, m_stderr.size() - kStderrKeep);
}

std::string WorkerProcess::reapDescription() {
    if (m_child.pid() <= 0)
        return "the worker is not running";
    const ChildExit end = m_child.wait(kExitGraceMs);
    // What is left of stderr goes into the report.
    readStderr();
    m_child.closePipes();
    if (end.signal != 0)
        return std::string("the worker was killed by signal ") + std::to_string(end.signal) + " (" +
               strsignal(end.signal) + ")";
    if (end.exitCode >= 0)
        return "the worker exited with status " + std::to_string(end.exitCode);
    return "the worker stopped";
}

void WorkerProcess::kill() {
    if (m_child.pid() > 0) {
        m_child.kill(SIGKILL);
        reapDescription();
    }
}

void WorkerProcess::stop() {
    if (m_child.pid() <= 0) {
        m_child.closePipes();
        return;
    }
    m_child.write(protocol::makeRequest(m_nextId++, "shutdown").dump() + "\n");
    m_child.closeStdin();
    m_child.wait(kExitGraceMs);
    m_child.closePipes();
}

WorkerReply WorkerProcess::call(const std::string& type, const nlohmann::json& body, int timeoutMs,
                                const ProgressFn& onProgress, int idleTimeoutMs) {
    WorkerReply reply;
    if (m_child.pid() <= 0) {
        std::string error;
        if (!start(&error)) {
            reply.status = WorkerReply::Status::NotStarted;
            reply.detail = error;
            return reply;
        }
    }
    const std::int64_t id = m_nextId++;
    const std::string line = protocol::makeRequest(id, type, body).dump() + "\n";
    if (!m_child.write(line)) {
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
        pollfd fds[2] = {{m_child.stdoutFd(), POLLIN, 0}, {m_child.stderrFd(), POLLIN, 0}};
        const int ready = ::poll(fds, 2, std::min(wait, 1000));
        if (ready < 0 && errno != EINTR) {
            kill();
            reply.status = WorkerReply::Status::Crashed;
            reply.detail = std::string("poll failed: ") + std::strerror(errno);
            return reply;
        }
        if (fds[1].revents)
            readStderr();
        if (fds[0].revents) {
            const bool open = m_child.readStdout(m_outBuffer) == ChildProcess::ReadState::Open;
            if (!open && m_outBuffer.find('\n') == std::string::npos) {
                reply.status = WorkerReply::Status::Crashed;
                reply.detail = reapDescription();
                return reply;
            }
        }
    }
}

} // namespace dice
