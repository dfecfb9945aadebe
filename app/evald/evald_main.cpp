// SPDX-License-Identifier: GPL-3.0-or-later
// dice-evald: the evaluation worker. One process per GPU owns the CUDA context; it reads requests
// as JSON lines on stdin and answers on stdout (docs/worker-protocol.md).
#include "core/common/version.h"
#include "core/eval/worker_service.h"

#include <cstring>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--version") == 0) {
            std::cout << "dice-evald " << dice::kProductVersion << " (protocol "
                      << dice::protocol::kName << "/" << dice::protocol::kVersion << ")\n";
            return 0;
        }
        if (std::strcmp(argv[i], "--help") == 0) {
            std::cout << "usage: dice-evald\n\nReads JSON-lines requests on stdin and writes "
                         "replies on stdout.\n";
            return 0;
        }
        std::cerr << "dice-evald: unknown argument " << argv[i] << "\n";
        return 2;
    }
    std::ios::sync_with_stdio(false);
    dice::WorkerService service;
    const auto send = [](const nlohmann::json& message) {
        std::cout << message.dump() << "\n" << std::flush;
    };
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty())
            continue;
        if (!service.handleLine(line, send))
            break;
    }
    return 0;
}
