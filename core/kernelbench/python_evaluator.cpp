// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/kernelbench/python_evaluator.h"

#include "core/common/child_process.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/system/sandbox.h"
#include "core/worker/worker_process.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace dice::kernelbench {

KernelBenchOptions paperOptions() {
    KernelBenchOptions options;
    options.atol = 1e-2;
    options.rtol = 1e-2;
    return options;
}

struct PythonEvaluator::Impl {
    Config config;
    bool chosen = false;
    PythonInfo info;
    std::vector<PythonInfo> tried;
    std::unique_ptr<WorkerProcess> worker;

    void choose() {
        if (chosen)
            return;
        if (!config.python.empty()) {
            info = probePython(config.python);
            tried.push_back(info);
            if (!info.error.empty())
                throw Error("python " + config.python +
                            " cannot run the KernelBench worker: " + info.error);
        } else if (auto best = findPython(PythonNeed::CudaTorch, &tried)) {
            info = *best;
        } else {
            std::vector<PythonInfo> any;
            auto fallback = findPython(PythonNeed::Any, &any);
            if (!fallback)
                throw Error(explainMissingPython(tried, PythonNeed::Any));
            info = *fallback;
        }
        chosen = true;
        const std::string script = config.workerScript.empty()
                                       ? pythonScript("kernelbench_worker.py")
                                       : config.workerScript;
        // The worker is the trusted side; every answer it evaluates runs in a process of its
        // own inside this sandbox (docs/sandbox.md).
        worker = std::make_unique<WorkerProcess>(
            info.executable,
            std::vector<std::string>{script, "--sandbox-program", sandboxProgram()});
        worker->setEnvironment(config.environment);
    }

    WorkerReply call(const std::string& type, const nlohmann::json& body, int timeoutMs,
                     const WorkerProcess::ProgressFn& onProgress = {}) {
        choose();
        return worker->call(type, body, timeoutMs, onProgress);
    }
};

PythonEvaluator::PythonEvaluator()
    : PythonEvaluator(Config{}) {}

PythonEvaluator::PythonEvaluator(Config config)
    : m_impl(std::make_unique<Impl>()) {
    m_impl->config = std::move(config);
}

PythonEvaluator::~PythonEvaluator() = default;

const PythonInfo& PythonEvaluator::python() {
    m_impl->choose();
    return m_impl->info;
}

bool PythonEvaluator::canEvaluate() {
    try {
        return python().canEvaluate();
    } catch (const Error&) {
        return false;
    }
}

std::string PythonEvaluator::unavailableReason() {
    try {
        if (python().canEvaluate())
            return {};
    } catch (const Error& e) {
        return e.what();
    }
    return explainMissingPython(m_impl->tried, PythonNeed::CudaTorch);
}

int PythonEvaluator::workerStarts() const {
    return m_impl->worker ? m_impl->worker->starts() : 0;
}

int PythonEvaluator::workerProcessId() const {
    return m_impl->worker && m_impl->worker->running() ? static_cast<int>(m_impl->worker->pid())
                                                       : -1;
}

std::vector<StaticFinding> PythonEvaluator::check(const std::string& candidateSource,
                                                  int timeoutMs) {
    const WorkerReply reply = m_impl->call("check", {{"source", candidateSource}}, timeoutMs);
    if (reply.status != WorkerReply::Status::Ok) {
        const std::string detail = reply.status == WorkerReply::Status::Error
                                       ? reply.message.value("message", std::string())
                                       : reply.detail;
        throw Error("the KernelBench worker could not check the candidate (" +
                    toString(reply.status) + "): " + detail);
    }
    std::vector<StaticFinding> findings;
    const auto list = reply.message.value("findings", nlohmann::json::array());
    if (!list.is_array())
        throw Error("the KernelBench worker's findings are not a list");
    for (const auto& f : list) {
        if (!f.is_object())
            throw Error("the KernelBench worker sent a finding that is not an object");
        findings.push_back({f.value("code", std::string()), f.value("severity", std::string()),
                            f.value("message", std::string()), f.value("line", 0)});
    }
    return findings;
}

std::vector<PythonEvaluator::Prebuilt>
PythonEvaluator::prebuild(const std::vector<std::string>& candidateSources,
                          const std::string& buildDirectory, int threads, int timeoutMs,
                          const std::function<void(std::size_t, const Prebuilt&)>& done) {
    std::vector<Prebuilt> built(candidateSources.size());
    m_impl->choose();
    const std::string python = m_impl->info.executable;
    const std::string script = m_impl->config.workerScript.empty()
                                   ? pythonScript("kernelbench_worker.py")
                                   : m_impl->config.workerScript;
    const TemporaryFolder sources("dice-prebuild");
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (;;) {
            const std::size_t i = next++;
            if (i >= candidateSources.size())
                return;
            const auto started = std::chrono::steady_clock::now();
            const std::string file = sources.path() + "/answer" + std::to_string(i) + ".py";
            writeFileAtomically(file, candidateSources[i]);
            ChildRunOptions limit;
            limit.timeoutMs = timeoutMs;
            const ChildResult run =
                runChild({{python, script, "--sandbox-program", sandboxProgram(), "--prebuild",
                           file, "--build-dir", buildDirectory}},
                         limit);
            Prebuilt& b = built[i];
            b.milliseconds = std::chrono::duration<double, std::milli>(
                                 std::chrono::steady_clock::now() - started)
                                 .count();
            try {
                const auto lastLine = run.out.find_last_not_of('\n');
                const auto lineStart = run.out.rfind('\n', lastLine);
                const nlohmann::json report = nlohmann::json::parse(
                    lastLine == std::string::npos
                        ? std::string("null")
                        : run.out.substr(lineStart == std::string::npos ? 0 : lineStart + 1));
                b.ok = report.is_object() && report.value("ok", false) && run.exit.exited() &&
                       run.exit.exitCode == 0;
                b.message = report.is_object() ? report.value("message", std::string()) : "";
            } catch (const nlohmann::json::exception&) {
                b.message = "the build ended without a report (" + run.exit.describe() + ")";
            }
            if (done)
                done(i, b);
        }
    };
    std::vector<std::thread> pool;
    for (int t = 0; t < std::max(1, threads); ++t)
        pool.emplace_back(work);
    for (auto& t : pool)
        t.join();
    return built;
}

EvaluationResult PythonEvaluator::evaluate(const KernelBenchJob& job,
                                           const KernelBenchOptions& options,
                                           const Progress& progress) {
    const auto started = std::chrono::steady_clock::now();
    EvaluationResult result;
    result.task = job.task;
    result.level = job.level;
    result.dialect = "kernelbench";
    result.preset = "bench";
    const auto elapsed = [&] {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    };
    try {
        m_impl->choose();
    } catch (const Error& e) {
        result.verdict = Verdict::NotRun;
        result.message = e.what();
        result.workerState = WorkerState::Unavailable;
        result.wallMs = elapsed();
        return result;
    }
    const nlohmann::json body = {{"task", job.task},
                                 {"level", job.level},
                                 {"reference", job.referenceSource},
                                 {"candidate", job.candidateSource},
                                 {"options",
                                  {{"correctness_trials", options.correctnessTrials},
                                   {"atol", options.atol},
                                   {"rtol", options.rtol},
                                   {"warmups", options.warmups},
                                   {"timing_trials", options.timingTrials},
                                   {"timing", options.timing},
                                   {"seed", options.seed},
                                   {"excessive_speedup", options.excessiveSpeedup},
                                   {"device", options.device},
                                   {"build_dir", options.buildDirectory}}}};
    WorkerProcess::ProgressFn onProgress;
    if (progress)
        onProgress = [&progress](const nlohmann::json& message) {
            progress(message.value("stage", std::string()), message.value("fraction", 0.0),
                     message.value("message", std::string()));
        };
    const WorkerReply reply = m_impl->call("evaluate", body, options.timeoutMs, onProgress);
    switch (reply.status) {
    case WorkerReply::Status::Ok: {
        if (!reply.message.contains("evaluation"))
            throw Error("the KernelBench worker's result has no \"evaluation\"");
        result = evaluationFromJson(reply.message["evaluation"]);
        result.dialect = "kernelbench";
        if (reply.message.value("exit_after_reply", false)) {
            // The worker's CUDA context is gone; the next evaluation gets a fresh process.
            m_impl->worker->stop();
            result.workerState = WorkerState::RestartedAfterFault;
        }
        break;
    }
    case WorkerReply::Status::Error:
        throw Error("KernelBench problem " + job.task + ": " +
                    reply.message.value("message", std::string("the worker refused the request")));
    case WorkerReply::Status::Timeout:
        result.verdict = Verdict::Timeout;
        result.message = "no result within " + std::to_string(options.timeoutMs / 1000) +
                         " s (load_inline's compile included)";
        result.workerState = WorkerState::RestartedAfterTimeout;
        break;
    case WorkerReply::Status::Crashed:
        result.verdict = Verdict::RuntimeError;
        result.message = "the KernelBench worker died while evaluating: " + reply.detail;
        result.workerState = WorkerState::RestartedAfterCrash;
        break;
    case WorkerReply::Status::NotStarted:
        throw Error("the KernelBench worker cannot be started: " + reply.detail);
    }
    result.task = job.task;
    result.level = job.level;
    result.wallMs = elapsed();
    return result;
}

} // namespace dice::kernelbench
