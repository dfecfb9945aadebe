// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/worker/worker_protocol.h"

#include <atomic>
#include <functional>
#include <map>
#include <string>

namespace dice {

// The request handling of dice-evald, apart from its process and pipes so that tests can drive it
// directly. Each handler gets the request and a function that writes a message (progress lines and
// the final reply) to the caller.
class WorkerService {
public:
    using Emit = std::function<void(const nlohmann::json&)>;
    using Handler = std::function<void(const protocol::Request&, const Emit&)>;

    WorkerService();

    void addHandler(const std::string& type, Handler handler);
    // Handles one line. Returns false when the request was "shutdown" or a handler asked the
    // worker to exit. A line with bytes that are not UTF-8 is read with U+FFFD in their place,
    // and the final reply says how many were replaced ("utf8_replaced").
    bool handleLine(const std::string& line, const Emit& send);
    // Reads request lines from the descriptor `input` and handles each until the input ends or a
    // request asks the worker to exit. No more than protocol::kMaxLineBytes of a line is held: a
    // longer one gets an error reply as soon as it passes the limit, and its rest is skipped.
    // While a request is handled, a watch on `input` calls the owner-gone action as soon as no
    // one holds its other end: an owner that was killed (or ended by a time limit) does not leave
    // its workers judging the rest of a batch on a GPU others need.
    void serve(int input, const Emit& send);
    // What the watch does when the owner is gone mid-request; the default ends the process at once
    // (a thread may be waiting on a hung kernel).
    void setOwnerGoneAction(std::function<void()> action) { m_ownerGone = std::move(action); }

    // Merged into the reply to "hello" (for example what the sandbox applied).
    void setHelloInfo(const std::string& key, nlohmann::json value);
    // Makes handleLine return false after the current request: a kernel fault leaves the CUDA
    // context unusable, and only a new process gets a fresh one.
    void requestExit() { m_exit = true; }

private:
    std::map<std::string, Handler> m_handlers;
    nlohmann::json m_helloInfo = nlohmann::json::object();
    bool m_exit = false;
    std::function<void()> m_ownerGone;
    // A handler is running (serve's watch reads it from its own thread).
    std::atomic<bool> m_busy{false};
};

} // namespace dice
