// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/worker/evaluator.h"

#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/common/utf8.h"
#include "core/eval/native_evaluator.h"
#include "core/worker/evaluation_request.h"
#include "core/worker/worker_process.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <locale>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

namespace dice {

namespace {

void addFlag(EvaluationResult& r, const std::string& code, const std::string& message) {
    for (auto& flag : r.flags) {
        if (flag.code == code) {
            flag.message += "; " + message;
            return;
        }
    }
    r.flags.push_back({code, message});
}

// What the trip to the worker and back had to repair or leave out, beside the verdict: the
// candidate that was judged is then not byte for byte the one that was given, or something other
// than the answer came down the pipe.
void addTransportFlags(EvaluationResult& r, const std::string& source, const Utf8Repair& repair,
                       std::size_t otherReplaced, const WorkerReply& reply) {
    std::string text;
    auto append = [&text](const std::string& part) { text += (text.empty() ? "" : "; ") + part; };
    if (repair.replaced > 0) {
        const auto line =
            1 + std::count(source.begin(),
                           source.begin() + static_cast<std::ptrdiff_t>(repair.firstOffset), '\n');
        append("the candidate held " + std::to_string(repair.replaced) +
               " byte sequence(s) that are not UTF-8, the first on line " + std::to_string(line));
    }
    if (otherReplaced + reply.requestUtf8Replaced > 0)
        append("the rest of the request held " +
               std::to_string(otherReplaced + reply.requestUtf8Replaced) +
               " byte sequence(s) that are not UTF-8");
    if (reply.replyUtf8Replaced > 0)
        append("the worker's reply held " + std::to_string(reply.replyUtf8Replaced) +
               " byte sequence(s) that are not UTF-8");
    if (!text.empty())
        addFlag(r, "invalid_utf8", text + "; each was replaced by U+FFFD");
    if (reply.ignoredLines > 0)
        addFlag(r, "stray_replies",
                std::to_string(reply.ignoredLines) +
                    " line(s) from the worker answered no request in flight and were ignored; "
                    "the first: " +
                    reply.firstIgnoredLine);
}

// The folder of a task's parameter files, which the sandboxed worker must be allowed to read;
// empty for a task that has none.
std::string parameterFolder(const Task& task) {
    const auto fromFile = [](const TensorSpec& spec) {
        return spec.init.kind == InitSpec::Kind::File;
    };
    if (task.path.empty() ||
        (std::none_of(task.inputs.begin(), task.inputs.end(), fromFile) &&
         std::none_of(task.parameters.begin(), task.parameters.end(), fromFile)))
        return {};
    std::error_code ec;
    const auto folder =
        std::filesystem::weakly_canonical(std::filesystem::absolute(task.path, ec), ec)
            .parent_path();
    return ec ? std::string() : folder.string();
}

} // namespace

struct Evaluator::Impl {
    // A worker's compile pool, as a batch request asks for it.
    struct Compilers {
        int threads = 1;
        int lookahead = 0; // 0: the worker's own default
    };
    struct Worker {
        std::unique_ptr<WorkerProcess> process;
        std::mutex mutex;
        std::string lastStage;
        int device = 0;
        // The folders of parameter files this worker is started to read (dice-evald --read).
        std::set<std::string> readable;
        // The share of its GPU's memory it runs with and starts again with; 0: its usual share.
        double share = 0;
    };

    long sharing(int device) const {
        return static_cast<long>(
            std::count(options.devices.begin(), options.devices.end(), device));
    }
    // Workers on one GPU split its memory: each caching allocator keeps what it has used, so
    // without a share of its own the first ones leave the others out of memory.
    double memoryShare(int device) const {
        return NativeEvaluator::kDefaultGpuMemoryShare /
               static_cast<double>(std::max(1L, sharing(device)));
    }

    std::vector<std::string> arguments(const Worker& w) const {
        std::vector<std::string> args = {"--device", std::to_string(w.device)};
        if (sharing(w.device) > 1 || w.share > 0) {
            std::ostringstream share;
            share.imbue(std::locale::classic());
            share << std::setprecision(17) << (w.share > 0 ? w.share : memoryShare(w.device));
            args.insert(args.end(), {"--gpu-memory-share", share.str()});
        }
        if (options.cpuThreadsPerWorker > 0)
            args.insert(args.end(), {"--cpu-threads", std::to_string(options.cpuThreadsPerWorker)});
        if (options.spareWorkers)
            args.push_back("--warm");
        if (!options.sandbox)
            args.push_back("--no-sandbox");
        for (const std::string& folder : w.readable)
            args.insert(args.end(), {"--read", folder});
        return args;
    }
    EvaluatorOptions options;
    std::vector<std::unique_ptr<Worker>> workers;
    std::mutex doneMutex;

    Worker& pick() {
        // The first free worker; else wait for the first.
        for (auto& w : workers) {
            if (w->mutex.try_lock()) {
                w->mutex.unlock();
                return *w;
            }
        }
        return *workers.front();
    }

    EvaluationResult run(Worker& w, const std::string& type, const Task& task,
                         const std::string& source, const std::string& name,
                         const EvalOptions& options, const ProgressFn& progress, std::string* ptx) {
        std::lock_guard<std::mutex> lock(w.mutex);
        // Repaired here rather than on the way out, so that the flag can name the line.
        std::string sentSource = source;
        const Utf8Repair sourceRepair = repairUtf8(sentSource);
        std::string sentName = name;
        const std::size_t nameReplaced = repairUtf8(sentName).replaced;
        const auto start = std::chrono::steady_clock::now();
        const bool compileOnly = type == "compile";
        w.lastStage = "start";
        // A sandboxed worker reads only the folders it was started with: one that needs a new
        // folder is started again with it.
        const std::string folder = parameterFolder(task);
        const bool widened = !folder.empty() && w.readable.insert(folder).second;
        if (widened) {
            w.process->setArguments(arguments(w));
            w.process->stop();
        }
        const int startsBefore = w.process->starts();
        if (!w.process->running()) {
            // Loading LibTorch and CUDA is not the candidate's time: start the worker first (a
            // fresh one where the last ended while idle).
            const WorkerReply hello =
                w.process->call("hello", nlohmann::json::object(), this->options.runTimeoutMs);
            if (hello.status != WorkerReply::Status::Ok) {
                EvaluationResult failed;
                failed.task = task.name;
                failed.level = task.level;
                failed.preset = options.preset;
                failed.verdict = Verdict::NotRun;
                failed.message = "the evaluation worker could not start: " +
                                 (hello.detail.empty() ? hello.message.dump() : hello.detail);
                failed.workerState = WorkerState::NotStarted;
                return failed;
            }
        }
        const WorkerReply reply = w.process->call(
            type, toJson(EvaluationRequest{task, sentSource, sentName, options}),
            compileOnly ? this->options.compileTimeoutMs : this->options.runTimeoutMs,
            [&](const nlohmann::json& message) {
                w.lastStage = message.value("message", message.value("stage", std::string()));
                // Compiling sends no progress; once it is done, silence means a hung kernel.
                w.process->setIdleTimeout(message.value("stage", std::string()) == "compile"
                                              ? this->options.compileTimeoutMs
                                              : this->options.idleTimeoutMs);
                if (progress)
                    progress(message.value("stage", std::string()), message.value("fraction", 0.0),
                             message.value("message", std::string()));
            },
            // Until the first progress message, a compile's silence is allowed.
            compileOnly ? 0 : this->options.compileTimeoutMs);
        EvaluationResult r;
        r.task = task.name;
        r.level = task.level;
        r.preset = options.preset;
        const bool restartedBefore =
            !widened && w.process->starts() > startsBefore && startsBefore > 0;
        switch (reply.status) {
        case WorkerReply::Status::Ok:
            try {
                r = evaluationFromJson(reply.message.at("evaluation"));
            } catch (const std::exception& e) {
                r.verdict = Verdict::NotRun;
                r.message = std::string("the worker's reply could not be read: ") + e.what();
            }
            if (ptx && reply.message.contains("ptx") && reply.message["ptx"].is_string())
                *ptx = reply.message["ptx"].get<std::string>();
            if (reply.message.value("restart", false)) {
                // The worker exits after a fault; the next request starts a fresh one.
                w.process->stop();
                r.workerState = WorkerState::RestartedAfterFault;
            } else {
                r.workerState = restartedBefore ? WorkerState::StartedAgain : WorkerState::Ok;
            }
            break;
        case WorkerReply::Status::Error:
            r.verdict = Verdict::NotRun;
            r.message = !reply.detail.empty()
                            ? "the request could not be sent: " + reply.detail
                            : "the worker refused the request: " +
                                  reply.message.value("message", std::string("no reason given"));
            r.workerState = WorkerState::Ok;
            break;
        case WorkerReply::Status::Timeout:
            r.verdict = Verdict::Timeout;
            r.message = (compileOnly ? "compiling took too long"
                                     : "no progress during \"" + w.lastStage + "\"") +
                        std::string(": ") + reply.detail;
            r.workerState = WorkerState::RestartedAfterTimeout;
            break;
        case WorkerReply::Status::Crashed:
            r.verdict = Verdict::RuntimeError;
            r.message = "the worker died during \"" + w.lastStage + "\": " + reply.detail;
            r.workerState = WorkerState::RestartedAfterCrash;
            w.process->stop();
            break;
        case WorkerReply::Status::NotStarted:
            r.verdict = Verdict::NotRun;
            r.message = "the evaluation worker could not start: " + reply.detail;
            r.workerState = WorkerState::NotStarted;
            break;
        }
        addTransportFlags(r, source, sourceRepair, nameReplaced, reply);
        r.wallMs =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        return r;
    }

    // Makes sure the worker may read the parameter files of these tasks and is running; false
    // with every job's result set when it cannot start.
    bool readyFor(Worker& w, const std::vector<const Task*>& tasks, std::string* error) {
        bool widened = false;
        for (const Task* task : tasks) {
            const std::string folder = parameterFolder(*task);
            widened = (!folder.empty() && w.readable.insert(folder).second) || widened;
        }
        if (widened) {
            w.process->setArguments(arguments(w));
            w.process->stop();
        }
        if (w.process->running())
            return true;
        const WorkerReply hello =
            w.process->call("hello", nlohmann::json::object(), options.runTimeoutMs);
        if (hello.status == WorkerReply::Status::Ok)
            return true;
        *error = hello.detail.empty() ? hello.message.dump() : hello.detail;
        return false;
    }

    // Evaluates jobs [first, last) on one worker through "evaluate_batch", as many requests as
    // faults and hangs make necessary.
    void runBatch(Worker& w, const std::vector<Job>& jobs, std::size_t first, std::size_t last,
                  const Compilers& compilers, std::vector<EvaluationResult>& results,
                  const std::function<void(std::size_t)>& finished,
                  const std::atomic<bool>* cancel) {
        std::lock_guard<std::mutex> lock(w.mutex);
        runBatchLocked(w, jobs, first, last, compilers, results, finished, cancel);
    }

    // The verdict of a job judged again fully optimised after its build with fewer
    // optimisations went silent (`first`): that verdict stands, flagged, and the worker that went
    // silent was killed, whatever the second build did.
    static void judgedAgain(const Job& job, const EvaluationResult& first, EvaluationResult& r) {
        if (r.workerState == WorkerState::Ok || r.workerState == WorkerState::StartedAgain)
            r.workerState = first.workerState;
        r.flags.push_back(
            {"fully_optimised_again", "built with --Ofast-compile=" + job.options.fastCompile +
                                          ", " + first.message +
                                          "; this verdict is that of its fully optimised build"});
    }

    void runBatchLocked(Worker& w, const std::vector<Job>& jobs, std::size_t first,
                        std::size_t last, const Compilers& compilers,
                        std::vector<EvaluationResult>& results,
                        const std::function<void(std::size_t)>& finished,
                        const std::atomic<bool>* cancel) {
        // A build with fewer optimisations may run far slower than the kernel it is (register
        // arrays in local memory: on the H100, correct matrix products took over a second a
        // call and timed out), so its silence is no hang: the job heads the next request, fully
        // optimised, and that verdict stands. Heading the request, its compile overlaps the
        // rest's instead of holding the worker alone. By index, the silent build's verdict.
        std::map<std::size_t, EvaluationResult> silentFast;
        const auto optionsOf = [&](std::size_t i) {
            EvalOptions o = jobs[i].options;
            if (silentFast.count(i) != 0)
                o.fastCompile.clear();
            return o;
        };
        std::size_t pos = first;
        while (pos < last) {
            if (cancel && cancel->load()) {
                for (; pos < last; ++pos) {
                    results[pos].task = jobs[pos].task->name;
                    results[pos].message = "cancelled before it ran";
                }
                return;
            }
            std::vector<const Task*> tasks;
            for (std::size_t i = pos; i < last; ++i)
                tasks.push_back(jobs[i].task);
            const int startsBefore = w.process->starts();
            std::string error;
            if (!readyFor(w, tasks, &error)) {
                for (; pos < last; ++pos) {
                    results[pos] = notRun(*jobs[pos].task, jobs[pos].options,
                                          "the evaluation worker could not start: " + error);
                    results[pos].workerState = WorkerState::NotStarted;
                    finished(pos);
                }
                return;
            }
            const bool fresh = w.process->starts() > startsBefore && startsBefore > 0;
            nlohmann::json items = nlohmann::json::array();
            std::vector<Utf8Repair> repairs;
            for (std::size_t i = pos; i < last; ++i) {
                std::string source = jobs[i].source;
                repairs.push_back(repairUtf8(source));
                items.push_back(toJson(
                    EvaluationRequest{*jobs[i].task, source, jobs[i].candidateName, optionsOf(i)}));
            }
            std::size_t got = 0;
            w.lastStage = "compile";
            const long long budget =
                static_cast<long long>(options.runTimeoutMs) * static_cast<long long>(last - pos);
            nlohmann::json body = {{"items", items}, {"compile_threads", compilers.threads}};
            if (compilers.lookahead > 0)
                body["lookahead"] = compilers.lookahead;
            const WorkerReply reply = w.process->call(
                "evaluate_batch", body,
                static_cast<int>(std::min<long long>(budget, std::numeric_limits<int>::max())),
                [&](const nlohmann::json& message) {
                    const std::string stage = message.value("stage", std::string());
                    w.lastStage = message.value("message", stage);
                    if (message.contains("item") && message["item"].is_number_unsigned() &&
                        message["item"].get<std::size_t>() == got && pos + got < last) {
                        EvaluationResult& r = results[pos + got];
                        try {
                            r = evaluationFromJson(message.at("evaluation"));
                        } catch (const std::exception& e) {
                            r = notRun(*jobs[pos + got].task, jobs[pos + got].options,
                                       std::string("the worker's reply could not be read: ") +
                                           e.what());
                        }
                        r.workerState =
                            fresh && got == 0 ? WorkerState::StartedAgain : WorkerState::Ok;
                        addTransportFlags(r, jobs[pos + got].source, repairs[got], 0,
                                          WorkerReply{});
                        if (const auto silent = silentFast.find(pos + got);
                            silent != silentFast.end())
                            judgedAgain(jobs[pos + got], silent->second, r);
                        finished(pos + got);
                        ++got;
                        // The next candidate may still be compiling.
                        w.process->setIdleTimeout(options.compileTimeoutMs);
                        return;
                    }
                    w.process->setIdleTimeout(stage == "compile" ? options.compileTimeoutMs
                                                                 : options.idleTimeoutMs);
                },
                options.compileTimeoutMs);
            const std::size_t at = pos + got;
            switch (reply.status) {
            case WorkerReply::Status::Ok:
                if (reply.message.value("restart", false) && got > 0) {
                    w.process->stop();
                    results[at - 1].workerState = WorkerState::RestartedAfterFault;
                }
                if (got == 0) {
                    // A worker that evaluated nothing and did not fail: never loop on it.
                    for (; pos < last; ++pos) {
                        results[pos] = notRun(*jobs[pos].task, jobs[pos].options,
                                              "the worker evaluated nothing of the batch");
                        finished(pos);
                    }
                    return;
                }
                pos = at;
                break;
            case WorkerReply::Status::Timeout:
            case WorkerReply::Status::Crashed: {
                const bool timeout = reply.status == WorkerReply::Status::Timeout;
                EvaluationResult& r = results[at];
                r = notRun(*jobs[at].task, jobs[at].options, "");
                r.verdict = timeout ? Verdict::Timeout : Verdict::RuntimeError;
                r.message = (timeout ? "no progress during \"" + w.lastStage + "\": "
                                     : "the worker died during \"" + w.lastStage + "\": ") +
                            reply.detail;
                r.workerState =
                    timeout ? WorkerState::RestartedAfterTimeout : WorkerState::RestartedAfterCrash;
                w.process->stop();
                if (const auto silent = silentFast.find(at); silent != silentFast.end()) {
                    judgedAgain(jobs[at], silent->second, r);
                } else if (timeout && !jobs[at].options.fastCompile.empty()) {
                    silentFast.emplace(at, r);
                    pos = at;
                    break;
                }
                finished(at);
                pos = at + 1;
                break;
            }
            case WorkerReply::Status::Error:
            case WorkerReply::Status::NotStarted: {
                const std::string why =
                    reply.detail.empty() ? reply.message.value("message", std::string("no reason"))
                                         : reply.detail;
                for (pos = at; pos < last; ++pos) {
                    results[pos] = notRun(*jobs[pos].task, jobs[pos].options,
                                          "the worker refused the batch: " + why);
                    finished(pos);
                }
                return;
            }
            }
        }
    }

    // Sets a worker's share of its GPU's memory (0: its usual share), which a running worker
    // takes at once, giving back what it holds cached, and a worker started again (after a fault
    // or a hang) starts with. The caller holds the worker's mutex.
    void applyShare(Worker& w, double share) {
        w.share = share;
        w.process->setArguments(arguments(w));
        if (w.process->running())
            w.process->call("memory_share", {{"share", share > 0 ? share : memoryShare(w.device)}},
                            options.runTimeoutMs);
    }

    void setShare(Worker& w, double share) {
        std::lock_guard<std::mutex> lock(w.mutex);
        applyShare(w, share);
    }

    // Judges again, on `device`, the jobs that ran out of memory while all its workers shared
    // it, with more memory each round: every worker gives its cache back, then half of them
    // (rounded down, at least one) hold the memory of the others as well and share the jobs;
    // those that run out again go to the next round, with half as many workers, down to one
    // worker with the memory the GPU's single worker would have. Its verdict stands, out of
    // memory or not.
    void judgeWithMoreMemory(const std::vector<Job>& jobs, std::vector<std::size_t> indices,
                             int device, const Compilers& compilers,
                             std::vector<EvaluationResult>& results,
                             const std::atomic<bool>* cancel) {
        std::sort(indices.begin(), indices.end());
        std::vector<Worker*> onGpu;
        for (auto& w : workers)
            if (w->device == device)
                onGpu.push_back(w.get());
        if (onGpu.empty())
            return;
        for (Worker* w : onGpu)
            setShare(*w, 0);
        const double full = NativeEvaluator::kDefaultGpuMemoryShare;
        const long crowd = sharing(device);
        std::size_t count = onGpu.size();
        while (!indices.empty() && count > 1) {
            count = std::max<std::size_t>(1, count / 2);
            const double share = full / static_cast<double>(count);
            std::vector<EvaluationResult> before(jobs.size());
            for (std::size_t i : indices)
                before[i] = results[i];
            // The round's jobs go out in requests of several, as in the first pass, so that the
            // workers compile the next ones while their GPU runs the current one.
            std::vector<Job> round;
            for (std::size_t i : indices)
                round.push_back(jobs[i]);
            std::vector<EvaluationResult> judged(round.size());
            const std::size_t chunk = static_cast<std::size_t>(std::max(1, 2 * compilers.threads));
            std::atomic<std::size_t> next{0};
            const auto judge = [&](Worker& w) {
                for (;;) {
                    const std::size_t first = next.fetch_add(chunk);
                    // A cancelled batch keeps the verdicts it has.
                    if (first >= round.size() || (cancel && cancel->load()))
                        break;
                    const std::size_t last = std::min(round.size(), first + chunk);
                    {
                        std::lock_guard<std::mutex> lock(w.mutex);
                        applyShare(w, share);
                    }
                    runBatch(
                        w, round, first, last, compilers, judged, [](std::size_t) {}, nullptr);
                    for (std::size_t k = first; k < last; ++k) {
                        const std::size_t i = indices[k];
                        results[i] = judged[k];
                        results[i].flags.push_back(
                            {"judged_with_more_memory",
                             "held back while " + std::to_string(crowd - 1) +
                                 " other worker(s) shared the GPU (" + before[i].message +
                                 "); this verdict is from a run with " +
                                 std::to_string(static_cast<int>(std::lround(share * 100))) +
                                 "% of the GPU's memory" +
                                 (count > 1 ? ", beside " + std::to_string(count - 1) +
                                                  " other worker(s) with as much"
                                            : std::string(", the GPU to itself"))});
                    }
                }
                setShare(w, 0);
            };
            std::vector<std::thread> threads;
            for (std::size_t w = 0; w < count; ++w)
                threads.emplace_back(judge, std::ref(*onGpu[w]));
            for (auto& t : threads)
                t.join();
            if (cancel && cancel->load())
                return;
            std::vector<std::size_t> again;
            if (count > 1)
                for (std::size_t i : indices)
                    if (results[i].outOfMemory) {
                        results[i] = before[i];
                        again.push_back(i);
                    }
            indices = std::move(again);
        }
    }

    static EvaluationResult notRun(const Task& task, const EvalOptions& options,
                                   const std::string& message) {
        EvaluationResult r;
        r.task = task.name;
        r.level = task.level;
        r.preset = options.preset;
        r.verdict = Verdict::NotRun;
        r.message = message;
        return r;
    }
};

Evaluator::Evaluator(EvaluatorOptions options)
    : m_impl(std::make_unique<Impl>()) {
    if (options.workerExecutable.empty())
        options.workerExecutable =
            (std::filesystem::path(executableDirectory()) / "dice-evald").string();
    if (options.devices.empty())
        options.devices = {0};
    m_impl->options = options;
    for (int device : options.devices) {
        auto w = std::make_unique<Impl::Worker>();
        w->device = device;
        w->process =
            std::make_unique<WorkerProcess>(options.workerExecutable, m_impl->arguments(*w));
        w->process->keepSpare(options.spareWorkers);
        m_impl->workers.push_back(std::move(w));
    }
}

Evaluator::~Evaluator() = default;

EvaluationResult Evaluator::evaluate(const Task& task, const std::string& source,
                                     const std::string& candidateName, const EvalOptions& options,
                                     const ProgressFn& progress) {
    return m_impl->run(m_impl->pick(), "evaluate", task, source, candidateName, options, progress,
                       nullptr);
}

EvaluationResult Evaluator::compile(const Task& task, const std::string& source,
                                    const std::string& candidateName, const EvalOptions& options,
                                    std::string* ptx) {
    return m_impl->run(m_impl->pick(), "compile", task, source, candidateName, options, {}, ptx);
}

std::vector<EvaluationResult>
Evaluator::evaluateAll(const std::vector<Job>& jobs,
                       const std::function<void(std::size_t, const EvaluationResult&)>& done,
                       const std::atomic<bool>* cancel) {
    std::vector<EvaluationResult> results(jobs.size());
    std::atomic<std::size_t> next{0};
    auto drain = [&](Impl::Worker& w) {
        for (;;) {
            const std::size_t i = next++;
            if (i >= jobs.size())
                return;
            const Job& job = jobs[i];
            if (cancel && cancel->load()) {
                results[i].task = job.task->name;
                results[i].message = "cancelled before it ran";
                continue;
            }
            results[i] = m_impl->run(w, "evaluate", *job.task, job.source, job.candidateName,
                                     job.options, {}, nullptr);
            if (done) {
                std::lock_guard<std::mutex> lock(m_impl->doneMutex);
                done(i, results[i]);
            }
        }
    };
    if (m_impl->workers.size() == 1) {
        drain(*m_impl->workers.front());
        return results;
    }
    std::vector<std::thread> threads;
    for (auto& w : m_impl->workers)
        threads.emplace_back(drain, std::ref(*w));
    for (auto& t : threads)
        t.join();
    return results;
}

std::vector<EvaluationResult>
Evaluator::evaluateBatch(const std::vector<Job>& jobs, const BatchOptions& batch,
                         const std::function<void(std::size_t, const EvaluationResult&)>& done,
                         const std::atomic<bool>* cancel) {
    if (!batch.longestFirst)
        return evaluateInOrder(jobs, batch, done, cancel);
    // The source's length stands for its compile time: the long ones are the tiled templates.
    std::vector<std::size_t> order(jobs.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return jobs[a].source.size() > jobs[b].source.size();
    });
    std::vector<Job> sorted;
    sorted.reserve(jobs.size());
    for (std::size_t i : order)
        sorted.push_back(jobs[i]);
    std::vector<EvaluationResult> byLength = evaluateInOrder(
        sorted, batch,
        [&](std::size_t k, const EvaluationResult& r) {
            if (done)
                done(order[k], r);
        },
        cancel);
    std::vector<EvaluationResult> results(jobs.size());
    for (std::size_t k = 0; k < order.size(); ++k)
        results[order[k]] = std::move(byLength[k]);
    return results;
}

std::vector<EvaluationResult>
Evaluator::evaluateInOrder(const std::vector<Job>& jobs, const BatchOptions& batch,
                           const std::function<void(std::size_t, const EvaluationResult&)>& done,
                           const std::atomic<bool>* cancel) {
    std::vector<EvaluationResult> results(jobs.size());
    const std::size_t chunk = std::max<std::size_t>(1, batch.chunk);
    const Impl::Compilers compilers{batch.compileThreads, batch.compileLookahead};
    std::atomic<std::size_t> next{0};
    bool shared = false;
    for (const auto& w : m_impl->workers)
        shared = shared || m_impl->sharing(w->device) > 1;
    // Out of memory beside other workers: held back, by the GPU it ran on, until it has been
    // judged again alone there.
    std::map<int, std::vector<std::size_t>> crowded;
    // By GPU, the tasks (and presets) a candidate of which ran out of memory there beside other
    // workers: their inputs and the reference's output alone take that memory, so their other
    // candidates would too. Those wait for the GPU's rounds with more memory at once, instead of
    // each costing a compile and a failed run first (on the H100, 234 of an RL step's 1,024
    // candidates did).
    std::set<std::pair<int, std::string>> tooBig;
    const auto taskKey = [&](int device, std::size_t i) {
        return std::make_pair(device, jobs[i].task->name + '\n' + jobs[i].options.preset);
    };
    // By GPU, the tasks (and presets) a candidate of which ran there beside other workers, to a
    // verdict on its values, without running out of memory.
    std::set<std::pair<int, std::string>> fits;
    // The next request's jobs [first, last) for a worker on `device`: `chunk` of them, or with
    // guided chunks half of an even share of those left (never fewer than `chunk`), so that a
    // worker's requests start long, and few times drain its compilers, and end short, so that
    // the workers finish together. A long request of workers that share a GPU would hold back a
    // task that runs out of memory beside the others only from the next request on (on the
    // H100, the bench preset's elementwise tasks did with four workers): it ends before the
    // second candidate of a task not yet seen to fit on that GPU, so that one candidate finds
    // out first.
    const std::size_t workerCount = std::max<std::size_t>(1, m_impl->workers.size());
    const auto take = [&](int device, std::size_t& first, std::size_t& last) {
        std::size_t at = next.load();
        for (;;) {
            if (at >= jobs.size())
                return false;
            std::size_t size = chunk;
            if (batch.guidedChunks)
                size = std::max(size, (jobs.size() - at + 2 * workerCount - 1) / (2 * workerCount));
            std::size_t end = std::min(jobs.size(), at + size);
            if (batch.guidedChunks && shared) {
                std::lock_guard<std::mutex> lock(m_impl->doneMutex);
                std::set<std::string> unknown;
                for (std::size_t k = at; k < end; ++k) {
                    const auto key = taskKey(device, k);
                    if (fits.count(key) != 0 || tooBig.count(key) != 0)
                        continue;
                    if (!unknown.insert(key.second).second) {
                        end = k;
                        break;
                    }
                }
            }
            if (next.compare_exchange_weak(at, end)) {
                first = at;
                last = end;
                return true;
            }
        }
    };
    auto drain = [&](Impl::Worker& w) {
        const auto finished = [&](std::size_t i) {
            std::lock_guard<std::mutex> lock(m_impl->doneMutex);
            if (shared && results[i].outOfMemory) {
                crowded[w.device].push_back(i);
                tooBig.insert(taskKey(w.device, i));
                return;
            }
            if (results[i].verdict == Verdict::Correct || results[i].verdict == Verdict::Incorrect)
                fits.insert(taskKey(w.device, i));
            if (done)
                done(i, results[i]);
        };
        std::size_t first = 0;
        std::size_t last = 0;
        while (take(w.device, first, last)) {
            std::vector<bool> held(last - first, false);
            if (shared) {
                std::lock_guard<std::mutex> lock(m_impl->doneMutex);
                for (std::size_t i = first; i < last; ++i)
                    if (tooBig.count(taskKey(w.device, i)) != 0) {
                        held[i - first] = true;
                        results[i] = Impl::notRun(
                            *jobs[i].task, jobs[i].options,
                            "not run beside other workers: a candidate of the same task ran out of "
                            "memory on this GPU");
                        results[i].outOfMemory = true;
                        crowded[w.device].push_back(i);
                    }
            }
            // The rest go in requests of consecutive jobs, as many as the held ones leave.
            for (std::size_t begin = first; begin < last;) {
                if (held[begin - first]) {
                    ++begin;
                    continue;
                }
                std::size_t end = begin;
                while (end < last && !held[end - first])
                    ++end;
                m_impl->runBatch(w, jobs, begin, end, compilers, results, finished, cancel);
                begin = end;
            }
        }
    };
    std::vector<std::thread> threads;
    for (auto& w : m_impl->workers)
        threads.emplace_back(drain, std::ref(*w));
    for (auto& t : threads)
        t.join();
    if (!crowded.empty()) {
        // The GPUs judge theirs at the same time.
        std::vector<std::thread> again;
        for (const auto& [device, indices] : crowded)
            again.emplace_back([&, device = device, indices = indices] {
                m_impl->judgeWithMoreMemory(jobs, indices, device, compilers, results, cancel);
            });
        for (auto& t : again)
            t.join();
        std::vector<std::size_t> all;
        for (const auto& entry : crowded)
            all.insert(all.end(), entry.second.begin(), entry.second.end());
        std::sort(all.begin(), all.end());
        if (done)
            for (std::size_t i : all)
                done(i, results[i]);
    }
    return results;
}

nlohmann::json Evaluator::hello(std::size_t worker) {
    if (worker >= m_impl->workers.size())
        throw Error("no worker " + std::to_string(worker));
    auto& w = *m_impl->workers[worker];
    std::lock_guard<std::mutex> lock(w.mutex);
    // Starting a worker loads LibTorch and CUDA: give it the generous limit.
    const WorkerReply reply =
        w.process->call("hello", nlohmann::json::object(), m_impl->options.runTimeoutMs);
    if (reply.status != WorkerReply::Status::Ok)
        throw Error("the evaluation worker did not answer hello: " +
                    (reply.detail.empty() ? reply.message.dump() : reply.detail));
    return reply.message;
}

std::size_t Evaluator::workerCount() const {
    return m_impl->workers.size();
}

int Evaluator::starts() const {
    int total = 0;
    for (const auto& w : m_impl->workers)
        total += w->process->starts();
    return total;
}

int Evaluator::spareTakeovers() const {
    int total = 0;
    for (const auto& w : m_impl->workers)
        total += w->process->spareTakeovers();
    return total;
}

} // namespace dice
