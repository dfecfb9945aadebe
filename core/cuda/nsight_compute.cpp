// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/nsight_compute.h"

#include "core/common/child_process.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/common/text_tail.h"
#include "core/cuda/nvrtc_compiler.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace dice {

std::string findNcu() {
    if (const char* named = std::getenv("DICE_NCU"); named && *named)
        return ::access(named, X_OK) == 0 ? std::string(named) : std::string();
    std::string path = findExecutable("ncu");
    if (!path.empty())
        return path;
    std::vector<std::string> folders;
    const std::string include = NvrtcCompiler::cudaIncludeDirectory();
    if (!include.empty())
        folders.push_back(
            (std::filesystem::path(include) / ".." / "bin").lexically_normal().string());
    // Nsight Compute's own installer puts each version in a folder of its own; the newest first.
    std::error_code ec;
    std::vector<std::string> versions;
    for (std::filesystem::directory_iterator it("/opt/nvidia/nsight-compute", ec), end;
         !ec && it != end; it.increment(ec))
        versions.push_back(it->path().string());
    std::sort(versions.rbegin(), versions.rend());
    folders.insert(folders.end(), versions.begin(), versions.end());
    return findExecutable("ncu", folders);
}

std::string ncuMissingAdvice() {
    return "Nsight Compute (ncu) was not found. It comes with the CUDA toolkit (the nsight-compute "
           "component) or from NVIDIA's Nsight Compute installer; put ncu on the PATH or name it "
           "in DICE_NCU. Reading counters may also need the driver's profiling permission "
           "(NVreg_RestrictProfilingToAdminUsers=0) or root.";
}

std::vector<std::string> ncuCommand(const std::string& ncu, const std::string& range,
                                    const std::string& logFile,
                                    const std::vector<std::string>& program, int launches) {
    std::string metrics;
    for (const auto& m : ncuMetrics())
        metrics += (metrics.empty() ? "" : ",") + m;
    std::vector<std::string> argv = {ncu,
                                     "--csv",
                                     "--page",
                                     "raw",
                                     "--print-units",
                                     "base",
                                     "--print-kernel-base",
                                     "demangled",
                                     "--clock-control",
                                     "none",
                                     "--target-processes",
                                     "all",
                                     "--nvtx",
                                     "--nvtx-include",
                                     range + "/",
                                     "--launch-count",
                                     std::to_string(launches),
                                     "--metrics",
                                     metrics,
                                     "--log-file",
                                     logFile};
    argv.insert(argv.end(), program.begin(), program.end());
    return argv;
}

std::vector<std::string> profiledEvaluation(const std::string& dice, const std::string& task,
                                            const std::string& candidate, const std::string& preset,
                                            const std::vector<std::string>& more) {
    // Only the preset asked for: the small preset's check would add launches of other sizes,
    // and other kernels where the reference's library picks by size.
    std::vector<std::string> argv = {
        dice,       "eval", task,         candidate, "--in-process", "--no-timing", "--only-preset",
        "--trials", "1",    "--no-store", "--json",  "--preset",     preset};
    argv.insert(argv.end(), more.begin(), more.end());
    return argv;
}

CounterReport collectCounters(const std::vector<std::string>& program, const std::string& keepPages,
                              int timeoutMs) {
    CounterReport report;
    report.tool = findNcu();
    if (report.tool.empty()) {
        report.error = ncuMissingAdvice();
        return report;
    }
    ChildRunOptions quick;
    quick.timeoutMs = 30000;
    const ChildResult version = runChild({{report.tool, "--version"}}, quick);
    if (version.ok()) {
        std::string v = textTail(version.out, 200);
        report.version = v.substr(v.find_last_of('\n') + 1);
    }
    try {
        const TemporaryFolder work("dice-ncu");
        for (const char* range : {kCandidateRange, kReferenceRange}) {
            const std::string log = (std::filesystem::path(work.path()) / range).string() + ".csv";
            ChildRunOptions options;
            options.timeoutMs = timeoutMs;
            const ChildResult run =
                runChild({ncuCommand(report.tool, range, log, program)}, options);
            std::string text;
            if (std::filesystem::exists(log))
                text = readTextFile(log);
            if (!keepPages.empty())
                writeFileAtomically(
                    (std::filesystem::path(keepPages) / (std::string(range) + ".csv")).string(),
                    text);
            if (!run.ok()) {
                const std::string said = textTail(text + "\n" + run.err, 1500);
                report.error = run.exit.started() ? report.tool + " " + run.exit.describe() +
                                                        (said.empty() ? std::string() : ": " + said)
                                                  : run.exit.startError;
                return report;
            }
            if (text.find("ERR_NVGPUCTRPERM") != std::string::npos) {
                report.error = "ncu may not read this GPU's counters (ERR_NVGPUCTRPERM): run as "
                               "root or let users profile (NVreg_RestrictProfilingToAdminUsers=0)";
                return report;
            }
            auto kernels = parseNcuCsv(text);
            if (kernels.empty()) {
                report.error = std::string("ncu profiled no kernel inside the ") +
                               (range == kCandidateRange ? "candidate's" : "reference's") +
                               " calls: " + textTail(text, 600);
                return report;
            }
            (range == kCandidateRange ? report.candidate : report.reference) = std::move(kernels);
        }
    } catch (const Error& e) {
        report.error = e.what();
        report.candidate.clear();
        report.reference.clear();
    }
    return report;
}

} // namespace dice
