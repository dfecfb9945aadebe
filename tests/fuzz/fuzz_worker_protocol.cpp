// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the evaluation worker's protocol (docs/worker-protocol.md), both sides: the
// bytes are a stream as dice-evald reads it (LineReader, fed in uneven pieces), and each line is
// parsed as a request, as a reply, and as an evaluate request's body. Every line ends as a message
// or a dice::Error; nothing else may escape. An accepted message must survive the way out:
// encodeLine() never throws, writes one line, and what it writes parses back to the same id and
// type. Line length and nesting limits hold before any parser sees the line.
#include "core/common/error.h"
#include "core/worker/evaluation_request.h"
#include "core/worker/line_reader.h"
#include "core/worker/worker_protocol.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// Small enough that the fuzzer reaches it; the worker's own limit is 64 MiB.
constexpr std::size_t kLineLimit = 4096;

[[noreturn]] void failure(const char* what, const std::string& detail = {}) {
    std::fprintf(stderr, "%s %s\n", what, detail.c_str());
    std::abort();
}

void roundTrip(const dice::protocol::Message& message, bool request) {
    std::string line;
    try {
        line = dice::protocol::encodeLine(message.body);
    } catch (const std::exception& e) {
        failure("encodeLine threw for an accepted message:", e.what());
    }
    if (line.empty() || line.back() != '\n' || line.find('\n') != line.size() - 1)
        failure("encodeLine did not write exactly one line");
    line.pop_back();
    try {
        const auto back =
            request ? dice::protocol::parseRequest(line) : dice::protocol::parseReply(line);
        if (back.id != message.id || back.type != message.type)
            failure("a message changed its id or type on its way out");
    } catch (const dice::Error& e) {
        failure("an accepted message does not read back:", e.what());
    }
}

void parseLine(const std::string& line) {
    try {
        const auto request = dice::protocol::parseRequest(line);
        roundTrip(request, true);
        if (request.type == "evaluate" || request.type == "compile")
            dice::evaluationRequestFromJson(request.body);
    } catch (const dice::Error&) {
    }
    try {
        roundTrip(dice::protocol::parseReply(line), false);
    } catch (const dice::Error&) {
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    dice::LineReader reader(kLineLimit);
    // Pieces of uneven size, as a pipe delivers them.
    std::size_t offset = 0;
    std::size_t piece = 1;
    while (offset < size) {
        const std::size_t n = std::min(piece, size - offset);
        reader.feed(reinterpret_cast<const char*>(data) + offset, n);
        offset += n;
        piece = piece * 3 % 97 + 1;
        dice::LineReader::Line line;
        while (reader.next(line)) {
            if (line.tooLong) {
                if (!line.text.empty())
                    failure("a line that was too long came with text");
                continue;
            }
            if (line.text.size() > kLineLimit)
                failure("the reader gave a line past its limit");
            parseLine(line.text);
        }
    }
    return 0;
}
