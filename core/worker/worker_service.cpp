// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/worker/worker_service.h"

#include "core/common/error.h"
#include "core/common/version.h"
#include "core/system/system_info.h"
#include "core/worker/line_reader.h"

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

namespace dice {

WorkerService::WorkerService() {
    addHandler("hello", [this](const protocol::Request& request, const Emit& send) {
        nlohmann::json requests = nlohmann::json::array({"shutdown"});
        for (const auto& entry : m_handlers)
            requests.push_back(entry.first);
        nlohmann::json body = {
            {"worker", {{"name", protocol::kName}, {"version", kProductVersion}}},
            {"pid", static_cast<long long>(getpid())},
            {"requests", requests}};
        for (auto it = m_helloInfo.begin(); it != m_helloInfo.end(); ++it)
            body[it.key()] = it.value();
        send(protocol::makeResult(request.id, body));
    });
    addHandler("device_info", [](const protocol::Request& request, const Emit& send) {
        send(protocol::makeResult(request.id, {{"system", toJson(collectSystemInfo())}}));
    });
}

void WorkerService::addHandler(const std::string& type, Handler handler) {
    m_handlers[type] = std::move(handler);
}

void WorkerService::setHelloInfo(const std::string& key, nlohmann::json value) {
    m_helloInfo[key] = std::move(value);
}

bool WorkerService::handleLine(const std::string& line, const Emit& plainSend) {
    protocol::Request request;
    try {
        request = protocol::parseRequest(line);
    } catch (const Error& e) {
        // A request we cannot read has no trustworthy id; kUnreadableId tells the caller so.
        plainSend(protocol::makeError(protocol::kUnreadableId, e.what()));
        return true;
    }
    const std::size_t replaced = request.utf8Replaced;
    const Emit send = [&](const nlohmann::json& message) {
        if (replaced == 0 || message.value("type", std::string()) == "progress") {
            plainSend(message);
            return;
        }
        nlohmann::json noted = message;
        noted["utf8_replaced"] = replaced;
        plainSend(noted);
    };
    if (request.type == "shutdown") {
        send(protocol::makeResult(request.id, {{"shutdown", true}}));
        return false;
    }
    auto found = m_handlers.find(request.type);
    if (found == m_handlers.end()) {
        send(protocol::makeError(request.id, "unknown request type \"" + request.type + "\""));
        return true;
    }
    m_busy = true;
    try {
        found->second(request, send);
    } catch (const std::exception& e) {
        send(protocol::makeError(request.id, e.what()));
    }
    m_busy = false;
    return !m_exit;
}

void WorkerService::serve(int input, const Emit& send) {
    // The watch acts only while a handler runs: between requests the end of the input is read
    // as such, and an owner that closes it after "shutdown" gets its reply.
    std::atomic<bool> stop{false};
    std::thread watch([&] {
        while (!stop.load()) {
            pollfd p{input, 0, 0};
            if (::poll(&p, 1, 100) <= 0)
                continue;
            if (p.revents & POLLNVAL)
                return;
            if (m_busy.load()) {
                if (m_ownerGone)
                    m_ownerGone();
                else
                    std::_Exit(3);
                return;
            }
            // The end of the input between requests: the loop below reads it and returns.
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    });
    struct Join {
        std::atomic<bool>& stop;
        std::thread& watch;
        ~Join() {
            stop = true;
            watch.join();
        }
    } join{stop, watch};
    LineReader reader(protocol::kMaxLineBytes);
    std::vector<char> chunk(1 << 16);
    for (;;) {
        const ssize_t n = ::read(input, chunk.data(), chunk.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        reader.feed(chunk.data(), static_cast<std::size_t>(n));
        LineReader::Line line;
        while (reader.next(line)) {
            if (line.tooLong) {
                send(
                    protocol::makeError(protocol::kUnreadableId,
                                        "request line is longer than the " +
                                            std::to_string(protocol::kMaxLineBytes >> 20) +
                                            " MiB the protocol allows; the rest of it is skipped"));
                continue;
            }
            if (line.text.empty())
                continue;
            if (!handleLine(line.text, send))
                return;
        }
    }
}

} // namespace dice
