// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/worker_protocol.h"

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
    // Handles one line. Returns false when the request was "shutdown".
    bool handleLine(const std::string& line, const Emit& send);

private:
    std::map<std::string, Handler> m_handlers;
};

} // namespace dice
