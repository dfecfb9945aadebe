// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

// The evaluation worker (dice-evald) speaks JSON lines on stdin and stdout: one request per line
// in, any number of "progress" lines and then exactly one "result" or "error" line out per
// request. Every message carries the protocol name and version and the request id it answers.
// docs/worker-protocol.md describes each request.
namespace dice::protocol {

inline constexpr const char kName[] = "dice-evald";
inline constexpr int kVersion = 1;
// Lines longer than this are refused as they arrive: a candidate's source is far smaller.
inline constexpr std::size_t kMaxLineBytes = 64 * 1024 * 1024;
// Messages nest a few levels (a task's tensors hold objects); deeper nesting is refused before
// any parser sees it.
inline constexpr std::size_t kMaxDepth = 64;
// The id of an error about a line that could not be read: it answers no request by id.
inline constexpr std::int64_t kUnreadableId = -1;

// One message read from a line: a request on the worker's side, a reply on its owner's.
struct Message {
    std::int64_t id = 0;
    std::string type;
    nlohmann::json body; // the whole message
    // Ill-formed UTF-8 sequences the line held; each was replaced by U+FFFD before parsing.
    std::size_t utf8Replaced = 0;
};
using Request = Message;

// Parses and validates one request line; throws dice::Error with a message that says what is
// wrong (too long, nested too deeply, not JSON, wrong protocol or version, an id or a version
// that is not an integer in range, no type). Never throws for bytes that are not UTF-8.
Request parseRequest(const std::string& line);

// Validates one reply line from a worker: JSON object, our protocol and version, an integer id
// (kUnreadableId or a request's), type progress, result or error. Throws dice::Error otherwise.
Message parseReply(const std::string& line);

// An id for a request: 63 random bits, so that nothing that runs inside a worker can guess the id
// of the next request and answer it in advance.
std::int64_t newRequestId();

nlohmann::json makeRequest(std::int64_t id, const std::string& type,
                           nlohmann::json body = nlohmann::json::object());
nlohmann::json makeResult(std::int64_t id, nlohmann::json body = nlohmann::json::object());
nlohmann::json makeProgress(std::int64_t id, const std::string& stage, double fraction,
                            const std::string& message = {});
nlohmann::json makeError(std::int64_t id, const std::string& message);

// Replaces ill-formed UTF-8 in every string and key of `message` by U+FFFD; returns how many
// sequences were replaced.
std::size_t repairUtf8(nlohmann::json& message);
// The message as one protocol line, newline included. Never throws for text that is not UTF-8:
// such bytes go out as U+FFFD.
std::string encodeLine(const nlohmann::json& message);

} // namespace dice::protocol
