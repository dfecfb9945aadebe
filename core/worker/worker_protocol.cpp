// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/worker/worker_protocol.h"

#include "core/common/error.h"

namespace dice::protocol {

namespace {

void checkEnvelope(const nlohmann::json& message, const char* what) {
    if (!message.is_object())
        throw Error(std::string(what) + " is not a JSON object");
    if (!message.contains("protocol") || !message["protocol"].is_string() ||
        message["protocol"].get<std::string>() != kName)
        throw Error(std::string(what) + " does not name the protocol \"" + kName + "\"");
    if (!message.contains("version") || !message["version"].is_number_integer())
        throw Error(std::string(what) + " has no protocol version");
    const int version = message["version"].get<int>();
    if (version != kVersion)
        throw Error(std::string(what) + " uses protocol version " + std::to_string(version) +
                    ", this program speaks version " + std::to_string(kVersion));
    if (!message.contains("id") || !message["id"].is_number_integer())
        throw Error(std::string(what) + " has no integer \"id\"");
    if (!message.contains("type") || !message["type"].is_string())
        throw Error(std::string(what) + " has no \"type\"");
}

nlohmann::json envelope(std::int64_t id, const std::string& type) {
    return nlohmann::json{{"protocol", kName}, {"version", kVersion}, {"id", id}, {"type", type}};
}

nlohmann::json parseLine(const std::string& line, const char* what) {
    if (line.size() > kMaxLineBytes)
        throw Error(std::string(what) + " is longer than the protocol allows");
    try {
        return nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
        throw Error(std::string(what) + " is not valid JSON: " + e.what());
    }
}

} // namespace

Request parseRequest(const std::string& line) {
    const nlohmann::json message = parseLine(line, "request");
    checkEnvelope(message, "request");
    Request request;
    request.id = message["id"].get<std::int64_t>();
    request.type = message["type"].get<std::string>();
    request.body = message;
    return request;
}

nlohmann::json makeRequest(std::int64_t id, const std::string& type, nlohmann::json body) {
    nlohmann::json message = envelope(id, type);
    if (body.is_object())
        for (auto it = body.begin(); it != body.end(); ++it)
            if (!message.contains(it.key()))
                message[it.key()] = it.value();
    return message;
}

nlohmann::json makeResult(std::int64_t id, nlohmann::json body) {
    return makeRequest(id, "result", std::move(body));
}

nlohmann::json makeProgress(std::int64_t id, const std::string& stage, double fraction,
                            const std::string& message) {
    nlohmann::json m = envelope(id, "progress");
    m["stage"] = stage;
    m["fraction"] = fraction;
    if (!message.empty())
        m["message"] = message;
    return m;
}

nlohmann::json makeError(std::int64_t id, const std::string& message) {
    nlohmann::json m = envelope(id, "error");
    m["message"] = message;
    return m;
}

nlohmann::json parseReply(const std::string& line) {
    nlohmann::json message = parseLine(line, "worker reply");
    checkEnvelope(message, "worker reply");
    const std::string type = message["type"].get<std::string>();
    if (type != "progress" && type != "result" && type != "error")
        throw Error("worker reply has unknown type \"" + type + "\"");
    return message;
}

} // namespace dice::protocol
