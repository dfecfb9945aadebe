// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/worker/worker_process.h"

#include "core/common/error.h"
#include "core/common/utf8.h"
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
    , m_arguments(std::move(arguments))
    , m_reader(protocol::kMaxLineBytes) {}

WorkerProcess::~WorkerProcess() {
    stop();
    if (m_spare)
        stopChild(*m_spare);
}

ChildCommand WorkerProcess::command() const {
    ChildCommand command;
    command.argv.push_back(m_executable);
    command.argv.insert(command.argv.end(), m_arguments.begin(), m_arguments.end());
    command.environment = m_environment;
    return command;
}

namespace {

// The worker stays in our process group, so that a terminal's Ctrl+C ends it with us even while
// it runs a hung kernel.
ChildStart workerStart() {
    ChildStart how;
    how.ownGroup = false;
    return how;
}

} // namespace

void WorkerProcess::keepSpare(bool keep) {
    m_keepSpare = keep;
    if (!keep && m_spare) {
        stopChild(*m_spare);
        m_spare.reset();
    }
}

void WorkerProcess::startSpare() {
    if (m_spare)
        stopChild(*m_spare);
    m_spare = std::make_unique<ChildProcess>();
    const ChildCommand spare = command();
    std::string error;
    // A spare that cannot start is no loss: the next start tries the usual way and says why.
    if (!m_spare->start(spare, workerStart(), &error)) {
        m_spare.reset();
        return;
    }
    m_spareArgv = spare.argv;
    m_spareEnvironment = spare.environment;
}

bool WorkerProcess::start(std::string* error) {
    if (m_child->pid() > 0)
        return true;
    const ChildCommand next = command();
    if (m_spare && m_spare->running() && m_spareArgv == next.argv &&
        m_spareEnvironment == next.environment) {
        m_child->closePipes();
        std::swap(m_child, m_spare);
        m_spare.reset();
        ++m_spareTakeovers;
    } else if (!m_child->start(next, workerStart(), error)) {
        return false;
    }
    m_reader = LineReader(protocol::kMaxLineBytes);
    ++m_starts;
    if (m_keepSpare)
        startSpare();
    return true;
}

void WorkerProcess::readStderr() {
    m_child->readStderr(m_stderr);
    if (m_stderr.size() > kStderrKeep)
        m_stderr.erase(0, m_stderr.size() - kStderrKeep);
}

bool WorkerProcess::readReplies() {
    std::string chunk;
    const bool open = m_child->readStdout(chunk) == ChildProcess::ReadState::Open;
    m_reader.feed(chunk.data(), chunk.size());
    return open;
}

std::string WorkerProcess::reapDescription() {
    if (m_child->pid() <= 0)
        return "the worker is not running";
    const ChildExit end = m_child->wait(kExitGraceMs);
    // What is left of stderr goes into the report.
    readStderr();
    m_child->closePipes();
    if (end.signal != 0)
        return std::string("the worker was killed by signal ") + std::to_string(end.signal) + " (" +
               strsignal(end.signal) + ")";
    if (end.exitCode >= 0)
        return "the worker exited with status " + std::to_string(end.exitCode);
    return "the worker stopped";
}

void WorkerProcess::kill() {
    if (m_child->pid() > 0) {
        m_child->kill(SIGKILL);
        reapDescription();
    }
}

void WorkerProcess::stopChild(ChildProcess& child) {
    if (child.pid() <= 0) {
        child.closePipes();
        return;
    }
    child.write(protocol::encodeLine(protocol::makeRequest(protocol::newRequestId(), "shutdown")));
    child.closeStdin();
    child.wait(kExitGraceMs);
    child.closePipes();
}

void WorkerProcess::stop() {
    stopChild(*m_child);
}

bool WorkerProcess::send(const std::string& line, WorkerReply& reply, bool& unread) {
    std::size_t written = 0;
    if (m_child->write(line, &written))
        return true;
    // Bytes still in the pipe were never read: a worker that took none of them ended before
    // this request reached it.
    unread = written == m_child->stdinUnread();
    reply.status = WorkerReply::Status::Crashed;
    reply.detail = reapDescription();
    return false;
}

WorkerReply WorkerProcess::call(const std::string& type, const nlohmann::json& body, int timeoutMs,
                                const ProgressFn& onProgress, int idleTimeoutMs) {
    WorkerReply reply;
    const std::int64_t id = protocol::newRequestId();
    nlohmann::json request = protocol::makeRequest(id, type, body);
    reply.requestUtf8Replaced = protocol::repairUtf8(request);
    const std::string line = protocol::encodeLine(request);
    if (line.size() - 1 > protocol::kMaxLineBytes) {
        reply.status = WorkerReply::Status::Error;
        reply.detail = "the request is " + std::to_string(line.size() - 1) +
                       " bytes long, more than the " +
                       std::to_string(protocol::kMaxLineBytes >> 20) +
                       " MiB the protocol allows; it was not sent";
        reply.message = protocol::makeError(id, reply.detail);
        return reply;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    for (;;) {
        if (!running()) {
            std::string error;
            if (!start(&error)) {
                reply.status = WorkerReply::Status::NotStarted;
                reply.detail = error;
                return reply;
            }
        }
        bool unread = false;
        if (send(line, reply, unread)) {
            m_idleTimeoutMs = idleTimeoutMs;
            if (await(id, line.size(), deadline, timeoutMs, onProgress, reply, unread))
                return reply;
        }
        // Once only: a worker that dies again before it reads the request is not a passing
        // accident.
        if (!unread || reply.resent)
            return reply;
        reply.resent = true;
    }
}

bool WorkerProcess::await(std::int64_t id, std::size_t lineBytes,
                          std::chrono::steady_clock::time_point deadline, int timeoutMs,
                          const ProgressFn& onProgress, WorkerReply& reply, bool& unread) {
    auto lastHeard = std::chrono::steady_clock::now();
    bool heard = false;
    for (;;) {
        // Complete lines already read come first.
        LineReader::Line text;
        while (m_reader.next(text)) {
            if (text.tooLong) {
                kill();
                reply.status = WorkerReply::Status::Crashed;
                reply.detail = "the worker wrote a line longer than the " +
                               std::to_string(protocol::kMaxLineBytes >> 20) +
                               " MiB the protocol allows";
                return true;
            }
            if (text.text.empty())
                continue;
            protocol::Message message;
            try {
                message = protocol::parseReply(text.text);
            } catch (const Error& e) {
                // A worker that speaks garbage is not to be trusted with the next request.
                kill();
                reply.status = WorkerReply::Status::Crashed;
                reply.detail = std::string("the worker wrote an unreadable line: ") + e.what();
                return true;
            }
            reply.replyUtf8Replaced += message.utf8Replaced;
            // An error about a line the worker could not read can only be about the one request
            // in flight.
            const bool unreadable =
                message.id == protocol::kUnreadableId && message.type == "error";
            if (message.id != id && !unreadable) {
                if (reply.ignoredLines++ == 0) {
                    reply.firstIgnoredLine = text.text.substr(0, 200);
                    repairUtf8(reply.firstIgnoredLine);
                }
                continue;
            }
            heard = true;
            lastHeard = std::chrono::steady_clock::now();
            if (message.type == "progress") {
                if (onProgress)
                    onProgress(message.body);
                continue;
            }
            reply.status =
                message.type == "result" ? WorkerReply::Status::Ok : WorkerReply::Status::Error;
            reply.message = std::move(message.body);
            return true;
        }
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) {
            kill();
            reply.status = WorkerReply::Status::Timeout;
            reply.detail = "no answer within " + std::to_string(timeoutMs) +
                           " ms; the worker was killed and will be restarted";
            return true;
        }
        const auto idleDeadline = lastHeard + std::chrono::milliseconds(m_idleTimeoutMs);
        if (m_idleTimeoutMs > 0 && now >= idleDeadline) {
            kill();
            reply.status = WorkerReply::Status::Timeout;
            reply.detail = "no progress for " + std::to_string(m_idleTimeoutMs) +
                           " ms; the worker was killed and will be restarted";
            return true;
        }
        const auto next = m_idleTimeoutMs > 0 ? std::min(deadline, idleDeadline) : deadline;
        const int wait = static_cast<int>(
            std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count());
        pollfd fds[2] = {{m_child->stdoutFd(), POLLIN, 0}, {m_child->stderrFd(), POLLIN, 0}};
        const int ready = ::poll(fds, 2, std::min(wait, 1000));
        if (ready < 0 && errno != EINTR) {
            kill();
            reply.status = WorkerReply::Status::Crashed;
            reply.detail = std::string("poll failed: ") + std::strerror(errno);
            return true;
        }
        if (fds[1].revents)
            readStderr();
        if (fds[0].revents && !readReplies() && !m_reader.ready()) {
            // The pipe still holds what the worker never read: when that is the whole request,
            // the worker ended before the request reached it.
            unread = !heard && m_child->stdinUnread() == lineBytes;
            reply.status = WorkerReply::Status::Crashed;
            reply.detail = reapDescription();
            return !unread;
        }
    }
}

} // namespace dice
