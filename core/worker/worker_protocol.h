// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

// The evaluation worker (dice-evald) speaks JSON lines on stdin and stdout: one request per line
// in, any number of "progress" lines and then exactly one "result" or "error" line out per
// request. Every message carries the protocol name and version and the request id it answers.
// docs/worker-protocol.md describes each request.
namespace dice::protocol {

inline constexpr const char kName[] = "dice-evald";
inline constexpr int kVersion = 1;
// Requests longer than this are refused: a candidate's source is far smaller.
inline constexpr std::size_t kMaxLineBytes = 64 * 1024 * 1024;

struct Request {
    std::int64_t id = 0;
    std::string type;
    nlohmann::json body; // the whole message
};

// Parses and validates one request line; throws dice::Error with a message that says what is
// wrong (not JSON, wrong protocol or version, missing id or type).
Request parseRequest(const std::string& line);

nlohmann::json makeRequest(std::int64_t id, const std::string& type,
                           nlohmann::json body = nlohmann::json::object());
nlohmann::json makeResult(std::int64_t id, nlohmann::json body = nlohmann::json::object());
nlohmann::json makeProgress(std::int64_t id, const std::string& stage, double fraction,
                            const std::string& message = {});
nlohmann::json makeError(std::int64_t id, const std::string& message);

// Validates one reply line from a worker: JSON object, our protocol and version, an integer id,
// type progress, result or error. Throws dice::Error otherwise.
nlohmann::json parseReply(const std::string& line);

} // namespace dice::protocol
