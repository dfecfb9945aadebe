// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/worker/worker_service.h"

#include "core/common/error.h"
#include "core/common/version.h"
#include "core/system/system_info.h"

#include <unistd.h>

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

bool WorkerService::handleLine(const std::string& line, const Emit& send) {
    protocol::Request request;
    try {
        request = protocol::parseRequest(line);
    } catch (const Error& e) {
        // A request we cannot read has no trustworthy id; -1 tells the caller so.
        send(protocol::makeError(-1, e.what()));
        return true;
    }
    if (request.type == "shutdown") {
        send(protocol::makeResult(request.id, {{"shutdown", true}}));
        return false;
    }
    auto found = m_handlers.find(request.type);
    if (found == m_handlers.end()) {
        send(protocol::makeError(request.id, "unknown request type \"" + request.type + "\""));
        return true;
    }
    try {
        found->second(request, send);
    } catch (const std::exception& e) {
        send(protocol::makeError(request.id, e.what()));
    }
    return !m_exit;
}

} // namespace dice
