// SPDX-License-Identifier: GPL-3.0-or-later
// dice-sandbox: runs one program inside the workbench's sandbox (docs/sandbox.md). The process
// confines itself while it has a single thread, reports what it applied, and then becomes the
// program, which inherits every layer. The KernelBench dialect starts the answers it evaluates
// and the problem files it imports this way.
#include "core/common/error.h"
#include "core/system/sandbox.h"

#include <nlohmann/json.hpp>

#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

const char kUsage[] = "usage: dice-sandbox [--report-fd N] --policy JSON -- PROGRAM [ARGUMENT...]\n"
                      "  --policy JSON   what the program may do (docs/sandbox.md)\n"
                      "  --report-fd N   write what was applied, one JSON line, to descriptor N\n";

int usage(const std::string& problem) {
    std::cerr << "dice-sandbox: " << problem << "\n" << kUsage;
    return 2;
}

bool writeAll(int fd, const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

} // namespace

int main(int argc, char** argv) {
    std::string policyText;
    int reportFd = -1;
    int programIndex = -1;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--") {
            programIndex = i + 1;
            break;
        }
        if (arg == "--help") {
            std::cout << kUsage;
            return 0;
        }
        if (arg == "--policy" && i + 1 < argc) {
            policyText = argv[++i];
        } else if (arg == "--report-fd" && i + 1 < argc) {
            char* end = nullptr;
            const long fd = std::strtol(argv[++i], &end, 10);
            if (end == argv[i] || *end != '\0' || fd < 3 || fd > 65535)
                return usage("--report-fd needs a descriptor number of 3 or more");
            reportFd = static_cast<int>(fd);
        } else {
            return usage("unknown argument " + arg);
        }
    }
    if (policyText.empty())
        return usage("no --policy");
    if (programIndex < 0 || programIndex >= argc)
        return usage("no program after --");

    dice::SandboxPolicy policy;
    try {
        policy = dice::sandboxPolicyFromJson(nlohmann::json::parse(policyText));
    } catch (const nlohmann::json::exception& e) {
        return usage(std::string("the policy is not JSON: ") + e.what());
    } catch (const dice::Error& e) {
        return usage(e.what());
    }
    // The program ends with the one that started it: a worker killed for a timeout takes its
    // answer's process with it. Kept across exec.
    const pid_t parent = ::getppid();
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent)
        return usage("the starting process is gone");
    const bool requireAll = policy.requireAll;
    const dice::SandboxPlan plan(std::move(policy));
    const dice::SandboxOutcome outcome = plan.apply();
    nlohmann::json report = plan.describe(outcome);
    const std::vector<std::string> missing = plan.missingLayers(outcome);
    std::string refusal;
    if (requireAll && !missing.empty()) {
        for (const std::string& layer : missing)
            refusal += (refusal.empty() ? "" : ", ") + layer;
        refusal = "not run: the sandbox could not apply " + refusal +
                  " (docs/sandbox.md says how to allow a partial sandbox)";
        report["refused"] = refusal;
    }
    if (reportFd >= 0) {
        const bool written = writeAll(reportFd, report.dump() + "\n");
        ::close(reportFd);
        if (!written) {
            std::cerr << "dice-sandbox: cannot write the report: " << std::strerror(errno) << "\n";
            return 126;
        }
    }
    if (!refusal.empty()) {
        std::cerr << "dice-sandbox: " << refusal << "\n" << report.dump(2) << "\n";
        return 125;
    }
    ::execvp(argv[programIndex], argv + programIndex);
    std::cerr << "dice-sandbox: cannot run " << argv[programIndex] << ": " << std::strerror(errno)
              << "\n";
    return 127;
}
