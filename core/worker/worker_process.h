// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/common/child_process.h"
#include "core/worker/line_reader.h"

#include <nlohmann/json.hpp>

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dice {

// The answer to one request sent to a worker process.
struct WorkerReply {
    enum class Status {
        Ok,      // a "result" message
        Error,   // an "error" message: the worker is fine, the request was not
        Timeout, // no answer in time: the worker was killed
        Crashed, // the worker died while working (a fault, a kill, an exit)
        NotStarted
    };
    Status status = Status::NotStarted;
    nlohmann::json message; // the result or error message as received
    std::string detail;     // for Timeout, Crashed, NotStarted, and an Error of the request's own
                            // making: what happened, in plain words
    // The worker ended before it read a byte of the request, and a fresh one was sent it.
    bool resent = false;
    // Ill-formed UTF-8 sequences replaced by U+FFFD: in the request before it was sent, and in
    // the replies as they were read.
    std::size_t requestUtf8Replaced = 0;
    std::size_t replyUtf8Replaced = 0;
    // Lines that answered no request in flight (another id): ignored, counted, the first kept.
    std::size_t ignoredLines = 0;
    std::string firstIgnoredLine;
};

std::string toString(WorkerReply::Status status);

// Owns one worker process (dice-evald) and its pipes. Requests are sent one at a time, each with a
// random id, and only replies with that id are taken. A worker that times out or dies during a
// request is reaped, and the next call starts a fresh one, so a kernel that hangs or faults costs
// one verdict and nothing more; a worker that ended before it read a byte of a request costs
// nothing: a fresh one gets the request. Not thread-safe: one owner thread drives it.
class WorkerProcess {
public:
    WorkerProcess(std::string executable, std::vector<std::string> arguments = {});
    ~WorkerProcess();
    WorkerProcess(const WorkerProcess&) = delete;
    WorkerProcess& operator=(const WorkerProcess&) = delete;

    bool start(std::string* error);
    // With a spare, every start also starts the next worker, which loads its libraries (and,
    // with dice-evald --warm, its GPU) while this one works; the next start takes it over when
    // it is still alive and was started with the arguments and environment of now. A restart
    // after a fault or a hang then costs no load time. The spare is stopped with this object.
    void keepSpare(bool keep);
    // The spare's process id; -1 when there is none.
    pid_t sparePid() const { return m_spare ? m_spare->pid() : -1; }
    // How many starts took over the spare.
    int spareTakeovers() const { return m_spareTakeovers; }
    // The arguments of the next start; a running worker keeps those it was started with.
    void setArguments(std::vector<std::string> arguments) { m_arguments = std::move(arguments); }
    // Variables set in the worker's environment over this process's, from its next start: a
    // caller with threads may not change its own environment (setenv is not safe beside another
    // thread's getenv).
    void setEnvironment(std::vector<std::pair<std::string, std::string>> variables) {
        m_environment = std::move(variables);
    }
    // Whether the worker is alive: one that died since the last call is reaped here, so the next
    // call starts a fresh one instead of blaming its request for the death.
    bool running() { return m_child->running(); }
    // Asks the worker to exit, then kills it if it does not within a second.
    void stop();
    // Kills the worker at once (SIGKILL) and reaps it.
    void kill();

    using ProgressFn = std::function<void(const nlohmann::json&)>;
    // Sends a request of `type` with `body` and waits up to timeoutMs for its result or error,
    // passing progress messages to onProgress. Starts the worker if it is not running, and sends
    // the request once more, to a fresh worker, when the worker ended before it read a byte of
    // it. A request longer than protocol::kMaxLineBytes is not sent (an Error). With
    // idleTimeoutMs > 0 the worker is also given up when it sends nothing (not even progress)
    // for that long: a hung kernel stops the progress long before the whole limit.
    WorkerReply call(const std::string& type, const nlohmann::json& body, int timeoutMs,
                     const ProgressFn& onProgress = {}, int idleTimeoutMs = 0);
    // Changes the idle limit of the call in progress (from its progress callback): a request
    // may stay silent longer in one stage, such as a compile, than in another.
    void setIdleTimeout(int idleTimeoutMs) { m_idleTimeoutMs = idleTimeoutMs; }

    int starts() const { return m_starts; }
    pid_t pid() const { return m_child->pid(); }
    // The last lines the worker wrote to stderr (for error reports).
    std::string stderrTail() const { return m_stderr; }

private:
    ChildCommand command() const;
    // Starts the spare afresh from the current arguments; a failure leaves none.
    void startSpare();
    // Asks a child to exit and kills it when it does not within the grace period.
    static void stopChild(ChildProcess& child);
    std::string reapDescription();
    void readStderr();
    // Reads what the worker wrote to stdout into m_reader; false at end of file.
    bool readReplies();
    // Writes one request line to a live worker; false with the reply filled in when it could not.
    // `unread` is set when the worker ended without reading a byte of it.
    bool send(const std::string& line, WorkerReply& reply, bool& unread);
    // Waits for the reply to request `id` until `deadline`; true when `reply` holds the end of
    // the call, false when the worker ended without reading a byte of the request.
    bool await(std::int64_t id, std::size_t lineBytes,
               std::chrono::steady_clock::time_point deadline, int timeoutMs,
               const ProgressFn& onProgress, WorkerReply& reply, bool& unread);

    std::string m_executable;
    std::vector<std::string> m_arguments;
    std::vector<std::pair<std::string, std::string>> m_environment;
    std::unique_ptr<ChildProcess> m_child = std::make_unique<ChildProcess>();
    bool m_keepSpare = false;
    std::unique_ptr<ChildProcess> m_spare;
    // What the spare was started with: it stands in only for the same command.
    std::vector<std::string> m_spareArgv;
    std::vector<std::pair<std::string, std::string>> m_spareEnvironment;
    int m_spareTakeovers = 0;
    LineReader m_reader;
    std::string m_stderr;
    int m_starts = 0;
    int m_idleTimeoutMs = 0;
};

} // namespace dice
