// SPDX-License-Identifier: GPL-3.0-or-later
// dice-evald: the evaluation worker. One process per GPU owns the CUDA context; it reads requests
// as JSON lines on stdin and answers on stdout (docs/worker-protocol.md).
#include "core/common/large_stack.h"
#include "core/common/version.h"
#include "core/eval/native_evaluator.h"
#include "core/worker/evaluation_handlers.h"
#include "core/worker/memory_cap.h"
#include "core/worker/sandbox.h"
#include "core/worker/worker_service.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

// `text` as a whole number from low to high, into `out`; false for anything else.
bool wholeNumber(const char* text, long low, long high, int& out) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || value < low || value > high)
        return false;
    out = static_cast<int>(value);
    return true;
}

} // namespace

int main(int argc, char** argv) {
    bool sandbox = true;
    int device = 0;
    double memoryShare = dice::NativeEvaluator::kDefaultGpuMemoryShare;
    int cpuThreads = 0;
    bool warm = false;
    std::vector<std::string> readable;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--version") == 0) {
            std::cout << "dice-evald " << dice::kProductVersion << " (protocol "
                      << dice::protocol::kName << "/" << dice::protocol::kVersion << ")\n";
            return 0;
        }
        if (std::strcmp(argv[i], "--help") == 0) {
            std::cout
                << "usage: dice-evald [--device N] [--gpu-memory-share X] [--read FOLDER]...\n"
                   "                  [--cpu-threads N] [--warm] [--no-sandbox]\n\n"
                   "Reads JSON-lines requests on stdin and writes replies on stdout.\n"
                   "--device N     the GPU this worker owns (default 0)\n"
                   "--gpu-memory-share X\n"
                   "               the share of the GPU's memory its tensors may hold\n"
                   "               (default 0.8; workers that share a GPU split it)\n"
                   "--read FOLDER  a folder the sandboxed worker may read besides the "
                   "system's\n               (where tasks keep their parameter files)\n"
                   "--cpu-threads N\n"
                   "               LibTorch's CPU threads (default: LibTorch's own count)\n"
                   "--warm         set up the GPU before reading the first request\n"
                   "               (a spare worker, ready when the one at work ends)\n"
                   "--no-sandbox   run unconfined (docs/sandbox.md)\n";
            return 0;
        }
        if (std::strcmp(argv[i], "--no-sandbox") == 0) {
            sandbox = false;
            continue;
        }
        if (std::strcmp(argv[i], "--warm") == 0) {
            warm = true;
            continue;
        }
        if (std::strcmp(argv[i], "--read") == 0 && i + 1 < argc) {
            if (argv[++i][0] != '/') {
                std::cerr << "dice-evald: --read needs an absolute path\n";
                return 2;
            }
            readable.emplace_back(argv[i]);
            continue;
        }
        if (std::strcmp(argv[i], "--gpu-memory-share") == 0 && i + 1 < argc) {
            char* end = nullptr;
            const double value = std::strtod(argv[++i], &end);
            if (end == argv[i] || *end != '\0' || !(value > 0.0 && value <= 1.0)) {
                std::cerr << "dice-evald: --gpu-memory-share needs a number above 0 and at most "
                             "1\n";
                return 2;
            }
            memoryShare = value;
            continue;
        }
        if (std::strcmp(argv[i], "--cpu-threads") == 0 && i + 1 < argc) {
            if (!wholeNumber(argv[++i], 1, 4096, cpuThreads)) {
                std::cerr << "dice-evald: --cpu-threads needs a count from 1 to 4096\n";
                return 2;
            }
            continue;
        }
        if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            if (!wholeNumber(argv[++i], 0, 1024, device)) {
                std::cerr << "dice-evald: --device needs a GPU index\n";
                return 2;
            }
            continue;
        }
        std::cerr << "dice-evald: unknown argument " << argv[i] << "\n";
        return 2;
    }
    if (const char* off = std::getenv("DICE_EVALD_NO_SANDBOX"); off && *off && *off != '0')
        sandbox = false;
    // Before any thread exists: a process with threads cannot enter a new user namespace.
    const nlohmann::json applied =
        sandbox ? dice::applyWorkerSandbox(readable)
                : nlohmann::json{{"state", "switched off (--no-sandbox or DICE_EVALD_NO_SANDBOX)"}};
    const nlohmann::json memory = dice::applyWorkerMemoryCap();

    // The protocol gets its own descriptor; whatever else writes to stdout (a library, a
    // candidate's print) lands on stderr and cannot corrupt a reply.
    const int protocolFd = dup(STDOUT_FILENO);
    if (protocolFd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        std::perror("dice-evald: dup");
        return 1;
    }
    FILE* protocolOut = fdopen(protocolFd, "w");
    if (!protocolOut) {
        std::perror("dice-evald: fdopen");
        return 1;
    }

    // Every request is handled on one thread with a large stack: parsers and compilers that
    // recurse once per level of nesting meet candidates written to exhaust a default stack.
    try {
        dice::runOnLargeStack([&] {
            dice::WorkerService service;
            dice::NativeEvaluator evaluator(device, memoryShare);
            service.setHelloInfo("cpu_threads", dice::NativeEvaluator::setCpuThreads(cpuThreads));
            if (warm)
                service.setHelloInfo("gpu", evaluator.prepareGpu());
            dice::addEvaluationHandlers(service, evaluator);
            service.setHelloInfo("sandbox", applied);
            service.setHelloInfo("memory", memory);
            service.setHelloInfo("device_index", device);
            service.setHelloInfo("gpu_memory_share", memoryShare);
            service.serve(STDIN_FILENO, [protocolOut](const nlohmann::json& message) {
                const std::string line = dice::protocol::encodeLine(message);
                std::fwrite(line.data(), 1, line.size(), protocolOut);
                std::fflush(protocolOut);
            });
        });
    } catch (const std::exception& e) {
        std::cerr << "dice-evald: " << e.what() << "\n";
        std::fflush(protocolOut);
        std::_Exit(1);
    }
    std::fflush(protocolOut);
    // A lost CUDA context can hang in its destructors; nothing is left to clean up.
    std::_Exit(0);
}
