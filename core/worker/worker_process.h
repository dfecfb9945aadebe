// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/common/child_process.h"

#include <nlohmann/json.hpp>

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
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
    std::string detail;     // for Timeout, Crashed, NotStarted: what happened, in plain words
};

std::string toString(WorkerReply::Status status);

// Owns one worker process (dice-evald) and its pipes. Requests are sent one at a time; a worker
// that times out or dies is reaped, and the next call starts a fresh one, so a kernel that hangs
// or faults costs one verdict and nothing more. Not thread-safe: one owner thread drives it.
class WorkerProcess {
public:
    WorkerProcess(std::string executable, std::vector<std::string> arguments = {});
    ~WorkerProcess();
    WorkerProcess(const WorkerProcess&) = delete;
    WorkerProcess& operator=(const WorkerProcess&) = delete;

    bool start(std::string* error);
    // Whether the worker is alive: one that died since the last call is reaped here, so the next
    // call starts a fresh one instead of blaming its request for the death.
    bool running() { return m_child.running(); }
    // Asks the worker to exit, then kills it if it does not within a second.
    void stop();
    // Kills the worker at once (SIGKILL) and reaps it.
    void kill();

    using ProgressFn = std::function<void(const nlohmann::json&)>;
    // Sends a request of `type` with `body` and waits up to timeoutMs for its result or error,
    // passing progress messages to onProgress. Starts the worker if it is not running. With
    // idleTimeoutMs > 0 the worker is also given up when it sends nothing (not even progress)
    // for that long: a hung kernel stops the progress long before the whole limit.
    WorkerReply call(const std::string& type, const nlohmann::json& body, int timeoutMs,
                     const ProgressFn& onProgress = {}, int idleTimeoutMs = 0);
    // Changes the idle limit of the call in progress (from its progress callback): a request
    // may stay silent longer in one stage, such as a compile, than in another.
    void setIdleTimeout(int idleTimeoutMs) { m_idleTimeoutMs = idleTimeoutMs; }

    int starts() const { return m_starts; }
    pid_t pid() const { return m_child.pid(); }
    // The last lines the worker wrote to stderr (for error reports).
    std::string stderrTail() const { return m_stderr; }

private:
    std::string reapDescription();
    void readStderr();

    std::string m_executable;
    std::vector<std::string> m_arguments;
    ChildProcess m_child;
    std::string m_outBuffer;
    std::string m_stderr;
    std::int64_t m_nextId = 1;
    int m_starts = 0;
    int m_idleTimeoutMs = 0;
};

} // namespace dice
