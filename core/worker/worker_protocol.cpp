// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/worker/worker_protocol.h"

#include "core/common/error.h"
#include "core/common/json_depth.h"
#include "core/common/utf8.h"

#include <limits>
#include <optional>
#include <random>
#include <vector>

namespace dice::protocol {

namespace {

constexpr std::int64_t kMaxId = std::numeric_limits<std::int64_t>::max();

// The value of an integer that lies in [low, high]. nlohmann converts with a cast, so reading
// 4294967297 as an int gives 1 and 2^64 - 1 as an int64 gives -1: the range is checked on the
// number as it was written.
std::optional<std::int64_t> integerIn(const nlohmann::json& value, std::int64_t low,
                                      std::int64_t high) {
    if (value.is_number_unsigned()) {
        const auto v = value.get<std::uint64_t>();
        if (high < 0 || v > static_cast<std::uint64_t>(high) ||
            (low > 0 && v < static_cast<std::uint64_t>(low)))
            return std::nullopt;
        return static_cast<std::int64_t>(v);
    }
    if (value.is_number_integer()) {
        const auto v = value.get<std::int64_t>();
        if (v < low || v > high)
            return std::nullopt;
        return v;
    }
    return std::nullopt;
}

void checkEnvelope(const nlohmann::json& message, const char* what, std::int64_t lowestId) {
    if (!message.is_object())
        throw Error(std::string(what) + " is not a JSON object");
    if (!message.contains("protocol") || !message["protocol"].is_string() ||
        message["protocol"].get<std::string>() != kName)
        throw Error(std::string(what) + " does not name the protocol \"" + kName + "\"");
    if (!message.contains("version") || !message["version"].is_number_integer())
        throw Error(std::string(what) + " has no integer protocol version");
    if (integerIn(message["version"], kVersion, kVersion) != kVersion)
        throw Error(std::string(what) + " uses protocol version " + message["version"].dump() +
                    ", this program speaks version " + std::to_string(kVersion));
    if (!message.contains("id") || !integerIn(message["id"], lowestId, kMaxId))
        throw Error(std::string(what) + " has no integer \"id\" from " + std::to_string(lowestId) +
                    " to " + std::to_string(kMaxId));
    if (!message.contains("type") || !message["type"].is_string())
        throw Error(std::string(what) + " has no \"type\"");
}

nlohmann::json envelope(std::int64_t id, const std::string& type) {
    return nlohmann::json{{"protocol", kName}, {"version", kVersion}, {"id", id}, {"type", type}};
}

Message parseLine(const std::string& line, const char* what, std::int64_t lowestId) {
    if (line.size() > kMaxLineBytes)
        throw Error(std::string(what) + " is longer than the " +
                    std::to_string(kMaxLineBytes >> 20) + " MiB the protocol allows");
    Message parsed;
    std::string repaired;
    const std::string* text = &line;
    if (firstInvalidUtf8(line) != std::string_view::npos) {
        repaired = line;
        parsed.utf8Replaced = dice::repairUtf8(repaired).replaced;
        text = &repaired;
    }
    if (jsonNestingDepth(*text, kMaxDepth) > kMaxDepth)
        throw Error(std::string(what) + " nests arrays and objects deeper than " +
                    std::to_string(kMaxDepth) + " levels");
    try {
        parsed.body = nlohmann::json::parse(*text);
    } catch (const nlohmann::json::exception& e) {
        throw Error(std::string(what) + " is not valid JSON: " + e.what());
    }
    checkEnvelope(parsed.body, what, lowestId);
    parsed.id = parsed.body["id"].get<std::int64_t>();
    parsed.type = parsed.body["type"].get<std::string>();
    return parsed;
}

} // namespace

Request parseRequest(const std::string& line) {
    return parseLine(line, "request", 0);
}

Message parseReply(const std::string& line) {
    Message reply = parseLine(line, "worker reply", kUnreadableId);
    if (reply.type != "progress" && reply.type != "result" && reply.type != "error")
        throw Error("worker reply has unknown type \"" + reply.type + "\"");
    return reply;
}

std::int64_t newRequestId() {
    // std::random_device reads the kernel's random source; a seeded generator would let a
    // candidate that sees a few ids predict the rest.
    static std::random_device source;
    for (;;) {
        const std::uint64_t bits =
            (static_cast<std::uint64_t>(source()) << 32) ^ static_cast<std::uint64_t>(source());
        const auto id = static_cast<std::int64_t>(bits & static_cast<std::uint64_t>(kMaxId));
        if (id != 0)
            return id;
    }
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

std::size_t repairUtf8(nlohmann::json& message) {
    std::size_t replaced = 0;
    // A stack of its own: the message may nest more deeply than recursion would be safe for.
    std::vector<nlohmann::json*> pending = {&message};
    while (!pending.empty()) {
        nlohmann::json* value = pending.back();
        pending.pop_back();
        if (value->is_string()) {
            replaced += dice::repairUtf8(value->get_ref<std::string&>()).replaced;
        } else if (value->is_array()) {
            for (auto& element : *value)
                pending.push_back(&element);
        } else if (value->is_object()) {
            std::vector<std::string> badKeys;
            for (auto it = value->begin(); it != value->end(); ++it)
                if (firstInvalidUtf8(it.key()) != std::string_view::npos)
                    badKeys.push_back(it.key());
            for (const std::string& key : badKeys) {
                std::string repairedKey = key;
                replaced += dice::repairUtf8(repairedKey).replaced;
                nlohmann::json moved = std::move((*value)[key]);
                value->erase(key);
                (*value)[repairedKey] = std::move(moved);
            }
            for (auto& element : *value)
                pending.push_back(&element);
        }
    }
    return replaced;
}

std::string encodeLine(const nlohmann::json& message) {
    return message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace dice::protocol
