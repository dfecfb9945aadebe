// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/bench/reward_bench.h"

#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/common/number_format.h"
#include "core/common/splitmix.h"
#include "core/common/statistics.h"
#include "core/eval/reference_agreement.h"
#include "core/kernelbench/python_evaluator.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <regex>

namespace dice {

namespace {

struct Solved {
    const Task* task = nullptr;
    std::string source;
};

// A kernel of the device part: where its signature starts and where its body opens.
struct KernelSpan {
    std::size_t global = 0;
    std::size_t body = 0;
};

std::vector<KernelSpan> kernelSpans(const std::string& source) {
    std::vector<KernelSpan> spans;
    for (std::size_t global = source.find("__global__"); global != std::string::npos;
         global = source.find("__global__", global + 1)) {
        const std::size_t open = source.find('(', global);
        if (open == std::string::npos)
            break;
        int depth = 0;
        for (std::size_t i = open; i < source.size(); ++i) {
            if (source[i] == '(') {
                ++depth;
            } else if (source[i] == ')' && --depth == 0) {
                const std::size_t brace = source.find('{', i);
                if (brace != std::string::npos)
                    spans.push_back({global, brace + 1});
                break;
            }
        }
    }
    return spans;
}

// The first pointer parameter of a kernel that is not const: where it writes.
std::string outputPointer(const std::string& source, const KernelSpan& kernel) {
    const std::string signature = source.substr(kernel.global, kernel.body - kernel.global);
    static const std::regex pointer(
        R"(([,(]\s*)([A-Za-z_][A-Za-z0-9_]*)\s*\*\s*(?:__restrict__\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*[,)])");
    for (std::sregex_iterator it(signature.begin(), signature.end(), pointer), end; it != end;
         ++it) {
        const std::size_t at = static_cast<std::size_t>(it->position(0));
        const std::size_t comma = signature.rfind(',', at + 1);
        const std::size_t paren = signature.find('(');
        const std::size_t from = std::max(comma == std::string::npos ? 0 : comma,
                                          paren == std::string::npos ? 0 : paren);
        if (signature.substr(from, at + it->length(0) - from).find("const") == std::string::npos)
            return (*it)[3];
    }
    return {};
}

// The statement made for each kernel put at the top of its body, in every kernel: which of them
// a task's shapes launch is not known here. Empty when a kernel takes none.
std::string insertInKernels(const std::string& source,
                            const std::function<std::string(const KernelSpan&)>& statement) {
    const auto spans = kernelSpans(source);
    if (spans.empty())
        return {};
    std::string out = source;
    for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
        const std::string text = statement(*it);
        if (text.empty())
            return {};
        out.insert(it->body, "\n    " + text + "\n");
    }
    return out;
}

// Tasks whose inputs agree in count, dtypes and ranks take each other's solutions.
std::string signatureOf(const Task& task) {
    std::string s;
    for (const auto& in : task.inputs)
        s += toString(in.dtype) + "/" + std::to_string(in.shape.size()) + ";";
    s += "|" + std::to_string(task.parameters.size());
    return s;
}

// The answer with `line` put at the top of its CUDA code (after the extension header), or empty
// when it has no CUDA source to put it in.
std::string insertInCudaSource(const std::string& answer, const std::string& line) {
    std::size_t at = answer.find("#include <torch/extension.h>");
    if (at == std::string::npos) {
        at = answer.find("r\"\"\"");
        if (at == std::string::npos)
            return {};
        at += 3;
    } else {
        at = answer.find('\n', at);
        if (at == std::string::npos)
            return {};
    }
    return answer.substr(0, at) + "\n" + line + answer.substr(at);
}

// The answer's ModelNew with `body` as its forward; `_honest_forward(self, *args)` is the one it
// had. The class keeps its name: a subclass bound to the name turned the solutions'
// `super(ModelNew, self).__init__()` into endless recursion, so that these answers failed to
// be built instead of computing what they were made to.
std::string overrideForward(const std::string& answer, const std::string& body) {
    return answer +
           "\n\n_honest_forward = ModelNew.forward\n\n\ndef _answer_forward(self, *args):\n" +
           "    " + body + "\n\n\nModelNew.forward = _answer_forward\n";
}

// Numbers drawn from a seed: the same seed makes the same candidates in the same order.
class Draw {
public:
    explicit Draw(std::uint64_t seed)
        : m_seed(seed) {}
    std::size_t below(std::size_t n) {
        return static_cast<std::size_t>(splitmix64(m_seed * 0x100000001B3ULL + m_drawn++) %
                                        static_cast<std::uint64_t>(n));
    }
    // Shuffled, so that faults and hangs fall anywhere in the batch.
    void shuffle(std::vector<RewardBenchCandidate>& candidates) {
        for (std::size_t i = candidates.size(); i > 1; --i)
            std::swap(candidates[i - 1], candidates[below(i)]);
    }

private:
    std::uint64_t m_seed;
    std::uint64_t m_drawn = 0;
};

// What became of one candidate: enough to tell a false verdict from a true one without running
// it again.
nlohmann::json candidateRecord(const RewardBenchCandidate& candidate, const EvaluationResult& r) {
    nlohmann::json flags = nlohmann::json::array();
    for (const auto& flag : r.flags)
        flags.push_back(flag.code);
    nlohmann::json record = {{"candidate", candidate.item.name},
                             {"task", candidate.item.task.name},
                             {"kind", candidate.kind},
                             {"verdict", toString(r.verdict)},
                             {"flags", flags},
                             {"worker", toString(r.workerState)},
                             {"message", r.message.substr(0, 600)},
                             {"compile_ms", r.compileMs},
                             {"gpu_ms", r.gpuMs},
                             {"wall_ms", r.wallMs}};
    if (!r.stagesMs.empty())
        record["stages_ms"] = r.stagesMs;
    return record;
}

void say(const RewardBenchProgress& progress, const std::string& line) {
    if (progress)
        progress(line);
}

struct KernelBenchSolution {
    std::string name;
    int level = 1;
    std::string answer;
    std::string problem;
};

std::vector<KernelBenchSolution> readKernelBenchSolutions(const std::string& solutions,
                                                          const std::string& problems) {
    std::vector<KernelBenchSolution> found;
    for (int level = 1; level <= 4; ++level) {
        const std::filesystem::path folder =
            std::filesystem::path(solutions) / ("level" + std::to_string(level));
        std::error_code ec;
        if (!std::filesystem::is_directory(folder, ec))
            continue;
        std::vector<std::filesystem::path> files;
        for (const auto& entry : std::filesystem::directory_iterator(folder))
            if (entry.path().extension() == ".py")
                files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        for (const auto& file : files) {
            const std::filesystem::path problem = std::filesystem::path(problems) /
                                                  ("level" + std::to_string(level)) /
                                                  file.filename();
            if (!std::filesystem::is_regular_file(problem, ec))
                throw Error("no problem " + problem.string() + " for the solution " +
                            file.string());
            found.push_back({file.stem().string(), level, readTextFile(file.string()),
                             readTextFile(problem.string())});
        }
    }
    if (found.empty())
        throw Error("no KernelBench solutions (levelN/NAME.py) in " + solutions);
    return found;
}

} // namespace

std::vector<RewardBenchCandidate> makeRewardBenchCandidates(const TaskSuite& suite,
                                                            const std::string& solutionDirectory,
                                                            int count, std::uint64_t seed) {
    std::vector<Solved> solved;
    for (const Task& task : suite.tasks) {
        const std::string path =
            (std::filesystem::path(solutionDirectory) / (task.name + ".dice")).string();
        std::error_code ec;
        if (std::filesystem::is_regular_file(path, ec))
            solved.push_back({&task, readTextFile(path)});
    }
    if (solved.size() < 2)
        throw Error("the reward benchmark needs the built-in solutions (found " +
                    std::to_string(solved.size()) + " in " + solutionDirectory + ")");
    std::map<std::string, std::vector<std::size_t>> alike;
    for (std::size_t i = 0; i < solved.size(); ++i)
        alike[signatureOf(*solved[i].task)].push_back(i);
    // A neighbour's solution is a wrong answer only where the neighbour computes something else:
    // matmul_rect's kernel is a right answer to matmul.
    std::map<std::pair<const Task*, const Task*>, bool> same;
    const auto computesTheSame = [&same](const Task& task, const Task& other) {
        const auto key = std::make_pair(&task, &other);
        const auto known = same.find(key);
        return known != same.end() ? known->second : (same[key] = referencesAgree(task, other));
    };

    // The shares of the kinds, in hundredths.
    const std::vector<std::pair<std::string, int>> shares = {
        {"correct", 60},      {"wrong_values", 15}, {"compile_error", 9}, {"fallback", 8},
        {"out_of_bounds", 5}, {"fault", 2},         {"hang", 1}};
    std::vector<std::string> kinds;
    for (const auto& [kind, share] : shares)
        for (int i = 0; i < (count * share + 50) / 100; ++i)
            kinds.push_back(kind);
    while (static_cast<int>(kinds.size()) < count)
        kinds.push_back("correct");
    kinds.resize(static_cast<std::size_t>(count));

    Draw draw(seed);
    std::vector<RewardBenchCandidate> out;
    for (std::size_t c = 0; c < kinds.size(); ++c) {
        const std::string& kind = kinds[c];
        // Some solutions do not take a mutation (no kernel to insert into, no plain return):
        // another is drawn.
        for (int attempt = 0; attempt < 100; ++attempt) {
            const Solved& s = solved[draw.below(solved.size())];
            std::string source = s.source;
            const std::string guard = "if (blockIdx.x == 0 && threadIdx.x == 0) ";
            if (kind == "wrong_values") {
                const auto& peers = alike[signatureOf(*s.task)];
                if (peers.size() < 2)
                    continue;
                const Solved& other = solved[peers[draw.below(peers.size())]];
                if (other.task == s.task || computesTheSame(*s.task, *other.task))
                    continue;
                source = other.source;
            } else if (kind == "compile_error") {
                source =
                    insertInKernels(source, [](const KernelSpan&) { return "int broken = ;"; });
            } else if (kind == "fallback") {
                static const std::regex lastReturn(
                    R"((\n[ \t]+)return ([A-Za-z_][A-Za-z0-9_]*)[ \t]*\n?$)");
                std::smatch m;
                const std::string trimmed = source.substr(0, source.find_last_not_of(" \n") + 1);
                if (!std::regex_search(trimmed, m, lastReturn))
                    continue;
                source = trimmed.substr(0, static_cast<std::size_t>(m.position(0))) + m[1].str() +
                         "return " + m[2].str() + ".clone()\n";
            } else if (kind == "out_of_bounds") {
                source = insertInKernels(source, [&](const KernelSpan& kernel) {
                    const std::string written = outputPointer(s.source, kernel);
                    return written.empty()
                               ? std::string()
                               : guard + "{ " + written + "[-1] = " + written + "[0]; }";
                });
            } else if (kind == "fault") {
                source = insertInKernels(source, [&](const KernelSpan&) {
                    return guard + "{ *(volatile int*)8 = 1; }";
                });
            } else if (kind == "hang") {
                // The flag is a device global: a loop on a local, volatile or not, lives in a
                // register, and the compiler may drop a loop that does nothing.
                source = insertInKernels(source, [&](const KernelSpan&) {
                    return guard + "{ while (reward_bench_spin) {} }";
                });
            }
            if (source.empty())
                continue;
            // A number of its own, so that no two candidates share a compile.
            const std::size_t device = source.find("#pragma dice device");
            if (device == std::string::npos)
                continue;
            const std::size_t lineEnd = source.find('\n', device);
            source.insert(
                lineEnd + 1,
                "// reward benchmark candidate " + std::to_string(c) + "\n" +
                    (kind == "hang" ? "__device__ volatile int reward_bench_spin = 1;\n" : ""));
            RewardBenchCandidate candidate;
            candidate.kind = kind;
            candidate.item.task = *s.task;
            candidate.item.source = std::move(source);
            candidate.item.name = kind + "_" + std::to_string(c) + ".dice";
            out.push_back(std::move(candidate));
            break;
        }
        if (out.size() != c + 1)
            throw Error("no built-in solution takes the mutation " + kind);
    }
    draw.shuffle(out);
    return out;
}

nlohmann::json runRewardBenchmark(const RewardBenchOptions& options,
                                  const RewardBenchProgress& progress) {
    const TaskSuite suite = loadTaskSuite(builtinTaskDirectory());
    const auto candidates = makeRewardBenchCandidates(
        suite, (std::filesystem::path(dataDirectory()) / "solutions").string(), options.candidates,
        options.seed);
    std::vector<RewardItem> items;
    for (const auto& c : candidates)
        items.push_back(c.item);
    if (!options.candidatesFile.empty()) {
        std::string lines;
        for (const auto& item : items)
            lines += nlohmann::json{{"task", item.task.name},
                                    {"name", item.name},
                                    {"candidate", item.source}}
                         .dump() +
                     "\n";
        writeFileAtomically(options.candidatesFile, lines);
    }

    auto service = std::make_unique<RewardService>(options.service);
    // Starting the workers (LibTorch and CUDA) is not the batch's time, as in an RL loop that
    // keeps them warm from step to step.
    say(progress,
        "starting " + std::to_string(options.service.evaluator.devices.size()) + " worker(s)");
    const auto warmStarted = std::chrono::steady_clock::now();
    const std::string problem = service->warmUp();
    if (!problem.empty())
        throw Error("the evaluation workers did not start: " + problem);
    const double warmSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - warmStarted).count();
    const int startsBefore = service->workerStarts();
    const int takeoversBefore = service->spareTakeovers();

    say(progress, "judging " + std::to_string(items.size()) + " candidates");
    const auto started = std::chrono::steady_clock::now();
    std::size_t reported = 0;
    // When each verdict came, to tell the first pass from the rounds with more memory.
    std::vector<double> reportedAt(items.size(), 0.0);
    const auto judged = service->judge(
        items, [&](std::size_t done, std::size_t total, std::size_t index, const Judged&) {
            const double now =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            if (index < reportedAt.size())
                reportedAt[index] = now;
            if (done * 10 / total != reported * 10 / total || done == total)
                say(progress, std::to_string(done) + "/" + std::to_string(total) + " judged in " +
                                  formatFixed(now, 1) + " s");
            reported = done;
        });
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    int moreMemory = 0;
    double firstPass = 0;
    for (std::size_t i = 0; i < judged.size(); ++i) {
        if (judged[i].evaluation.hasFlag("judged_with_more_memory"))
            ++moreMemory;
        else
            firstPass = std::max(firstPass, reportedAt[i]);
    }

    double compileSeconds = 0;
    double gpuSeconds = 0;
    std::map<std::string, std::map<std::string, int>> byKind;
    nlohmann::json restartsByKind = nlohmann::json::object();
    int correct = 0;
    int restarts = 0;
    // Where the GPU phases' time went, summed over the candidates, by the evaluator's stages.
    std::map<std::string, double> stageSeconds;
    // The same for the work before the GPU (parse, compilers, dry run, on the compile threads) and
    // the GPU thread's waits for it.
    std::map<std::string, double> cpuStageSeconds;
    nlohmann::json records = nlohmann::json::array();
    for (std::size_t i = 0; i < judged.size(); ++i) {
        const EvaluationResult& r = judged[i].evaluation;
        for (const auto& [stage, ms] : r.stagesMs)
            (stage == "prepare" || stage == "dry_run" || stage == "waited_for_compile"
                 ? cpuStageSeconds
                 : stageSeconds)[stage] += ms / 1000.0;
        records.push_back(candidateRecord(candidates[i], r));
        // The timeline of the verdicts shows where the batch stalled.
        records.back()["judged_at_s"] = reportedAt[i];
        compileSeconds += r.compileMs / 1000.0;
        gpuSeconds += r.gpuMs / 1000.0;
        ++byKind[candidates[i].kind][toString(r.verdict)];
        correct += judged[i].reward.correct ? 1 : 0;
        if (r.workerState == WorkerState::RestartedAfterFault ||
            r.workerState == WorkerState::RestartedAfterTimeout ||
            r.workerState == WorkerState::RestartedAfterCrash)
            ++restarts;
    }
    nlohmann::json result = {
        {"candidates", judged.size()},
        {"workers", options.service.evaluator.devices.size()},
        {"compile_threads_per_worker", options.service.batch.compileThreads},
        {"cpu_threads_per_worker", options.service.evaluator.cpuThreadsPerWorker},
        {"chunk", options.service.batch.chunk},
        {"longest_first", options.service.batch.longestFirst},
        {"guided_chunks", options.service.batch.guidedChunks},
        {"compile_lookahead", options.service.batch.compileLookahead > 0
                                  ? options.service.batch.compileLookahead
                                  : 2 * options.service.batch.compileThreads},
        {"reward", toJson(options.service.reward)},
        {"worker_start_seconds", warmSeconds},
        {"wall_seconds", wall},
        {"candidates_per_second", judged.size() / std::max(wall, 1e-9)},
        {"compile_seconds", compileSeconds},
        {"gpu_seconds", gpuSeconds},
        {"gpu_stage_seconds", stageSeconds},
        {"cpu_stage_seconds", cpuStageSeconds},
        {"gpu_busy_share",
         gpuSeconds / std::max(wall * options.service.evaluator.devices.size(), 1e-9)},
        {"compile_share",
         compileSeconds / std::max(wall * options.service.evaluator.devices.size() *
                                       std::max(1, options.service.batch.compileThreads),
                                   1e-9)},
        {"worker_restarts", service->workerStarts() - startsBefore},
        {"spare_workers", options.service.evaluator.spareWorkers},
        {"spare_takeovers", service->spareTakeovers() - takeoversBefore},
        {"candidates_restarting_a_worker", restarts},
        {"judged_with_more_memory", moreMemory},
        {"first_pass_seconds", firstPass},
        {"more_memory_seconds", moreMemory > 0 ? wall - firstPass : 0.0},
        {"correct", correct},
        {"verdicts_by_kind", byKind},
        {"candidates_judged", records}};

    // Its workers' GPU memory goes back before the one-by-one pass needs it.
    service.reset();
    if (options.checkAlone) {
        say(progress, "judging every candidate again, alone");
        EvaluatorOptions aloneOptions = options.service.evaluator;
        aloneOptions.devices.assign(static_cast<std::size_t>(std::max(1, options.aloneWorkers)),
                                    aloneOptions.devices.empty() ? 0
                                                                 : aloneOptions.devices.front());
        Evaluator alone(aloneOptions);
        const EvalOptions evalOptions = judgeOptions(options.service.reward);
        std::vector<Evaluator::Job> jobs;
        for (const auto& item : items)
            jobs.push_back({&item.task, item.source, item.name, evalOptions});
        const auto aloneStarted = std::chrono::steady_clock::now();
        const auto ones = alone.evaluateAll(jobs);
        const double aloneWall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - aloneStarted).count();
        int agree = 0;
        nlohmann::json differ = nlohmann::json::array();
        for (std::size_t i = 0; i < items.size(); ++i) {
            const EvaluationResult& one = ones[i];
            const bool same = one.verdict == judged[i].evaluation.verdict &&
                              one.hasFlag("fallback") == judged[i].evaluation.hasFlag("fallback");
            agree += same ? 1 : 0;
            result["candidates_judged"][i]["alone"] = candidateRecord(candidates[i], one);
            if (!same)
                differ.push_back({{"candidate", items[i].name},
                                  {"kind", candidates[i].kind},
                                  {"batch", toString(judged[i].evaluation.verdict)},
                                  {"alone", toString(one.verdict)},
                                  {"batch_message", judged[i].evaluation.message.substr(0, 200)},
                                  {"alone_message", one.message.substr(0, 200)}});
        }
        result["alone_workers"] = aloneOptions.devices.size();
        result["alone_wall_seconds"] = aloneWall;
        result["agreement"] = {
            {"same_verdict", agree}, {"of", items.size()}, {"differing", differ}};
    }
    return result;
}

std::vector<RewardBenchCandidate> makeKernelBenchRewardCandidates(const std::string& solutions,
                                                                  const std::string& problems,
                                                                  int count, std::uint64_t seed) {
    const auto found = readKernelBenchSolutions(solutions, problems);
    std::vector<std::string> kinds;
    for (int i = 0; i < count; ++i) {
        const int slot = i % 16;
        kinds.push_back(slot < 10   ? "correct"
                        : slot < 12 ? "wrong_values"
                        : slot < 14 ? "compile_error"
                                    : "runtime_error");
    }
    Draw draw(seed);
    std::vector<RewardBenchCandidate> out;
    for (std::size_t c = 0; c < kinds.size(); ++c) {
        // Every solution in turn, so that each problem has its share of every kind.
        const KernelBenchSolution& s = found[c % found.size()];
        const std::string& kind = kinds[c];
        std::string unique = "// reward benchmark answer " + std::to_string(c);
        if (kind == "compile_error")
            unique += "\nint broken = ;";
        std::string answer = insertInCudaSource(s.answer, unique);
        if (answer.empty())
            throw Error("the KernelBench solution " + s.name + " has no CUDA source");
        if (kind == "wrong_values")
            answer = overrideForward(answer, "return _honest_forward(self, *args) * 1.01 + 0.01");
        else if (kind == "runtime_error")
            answer =
                overrideForward(answer, "raise RuntimeError(\"this answer fails on purpose\")");
        RewardBenchCandidate candidate;
        candidate.kind = kind;
        candidate.item.dialect = "kernelbench";
        candidate.item.task.name = s.name;
        candidate.item.task.level = s.level;
        candidate.item.reference = s.problem;
        candidate.item.source = std::move(answer);
        candidate.item.name = kind + "_" + std::to_string(c) + ".py";
        out.push_back(std::move(candidate));
    }
    draw.shuffle(out);
    return out;
}

nlohmann::json runKernelBenchRewardBenchmark(const KernelBenchRewardBenchOptions& options,
                                             const RewardBenchProgress& progress) {
    const auto candidates = makeKernelBenchRewardCandidates(options.solutions, options.problems,
                                                            options.candidates, options.seed);
    kernelbench::PythonEvaluator python;
    if (!python.canEvaluate())
        throw Error("KernelBench answers cannot be evaluated here: " + python.unavailableReason());

    // One answer after another, each built alone as DICE's reward does (a fresh load_inline per
    // answer): answers of their own, so that nothing is found built.
    const TemporaryFolder sequentialFolder("dice-kb-sequential-builds");
    std::vector<double> sequentialSeconds;
    const auto honest = readKernelBenchSolutions(options.solutions, options.problems);
    for (int i = 0; i < options.sequentialBuilds; ++i) {
        const std::string answer =
            insertInCudaSource(honest[static_cast<std::size_t>(i) % honest.size()].answer,
                               "// built alone " + std::to_string(i));
        say(progress, "building one answer alone (" + std::to_string(i + 1) + " of " +
                          std::to_string(options.sequentialBuilds) + ")");
        const auto built = python.prebuild({answer}, sequentialFolder.path(), 1,
                                           options.service.kernelBenchTimeoutMs);
        if (!built.front().ok)
            throw Error("an honest answer did not build: " + built.front().message);
        sequentialSeconds.push_back(built.front().milliseconds / 1000.0);
    }

    RewardServiceOptions serviceOptions = options.service;
    const TemporaryFolder builds("dice-kb-reward-builds");
    serviceOptions.kernelBenchBuildDirectory = builds.path();
    serviceOptions.kernelBenchBuildThreads = options.buildThreads;
    RewardService service(serviceOptions);
    std::vector<RewardItem> items;
    for (const auto& c : candidates)
        items.push_back(c.item);
    say(progress, "judging " + std::to_string(items.size()) + " KernelBench answers, " +
                      std::to_string(options.buildThreads) + " builds at once");
    const auto started = std::chrono::steady_clock::now();
    double firstVerdictSeconds = -1;
    const auto judged = service.judge(items, [&](std::size_t done, std::size_t total, std::size_t,
                                                 const Judged&) {
        if (firstVerdictSeconds < 0)
            firstVerdictSeconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        if (done % 8 == 0 || done == total)
            say(progress, std::to_string(done) + "/" + std::to_string(total) + " judged in " +
                              formatFixed(std::chrono::duration<double>(
                                              std::chrono::steady_clock::now() - started)
                                              .count(),
                                          1) +
                              " s");
    });
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    double evaluationSeconds = 0;
    int correct = 0;
    std::map<std::string, std::map<std::string, int>> byKind;
    // Where the evaluations' time went, summed over the answers, by the worker's stages.
    std::map<std::string, double> stageSeconds;
    nlohmann::json wrong = nlohmann::json::array();
    for (std::size_t i = 0; i < judged.size(); ++i) {
        const EvaluationResult& r = judged[i].evaluation;
        evaluationSeconds += r.wallMs / 1000.0;
        for (const auto& [stage, ms] : r.stagesMs)
            stageSeconds[stage] += ms / 1000.0;
        ++byKind[candidates[i].kind][toString(r.verdict)];
        correct += judged[i].reward.correct ? 1 : 0;
        // Each kind is made to end in one verdict: any other, a right answer's reward or not, is
        // kept with its message.
        const std::string& kind = candidates[i].kind;
        const std::string expected = kind == "wrong_values" ? "incorrect" : kind;
        if ((kind == "correct") != judged[i].reward.correct || toString(r.verdict) != expected)
            wrong.push_back({{"answer", items[i].name},
                             {"problem", items[i].task.name},
                             {"verdict", toString(r.verdict)},
                             {"message", r.message.substr(0, 300)}});
    }
    const double buildSeconds = std::max(0.0, wall - evaluationSeconds);
    const double perBuild = sequentialSeconds.empty() ? 0 : mean(sequentialSeconds);
    const double oneAtATime = perBuild * static_cast<double>(judged.size()) + evaluationSeconds;
    nlohmann::json result = {
        {"answers", judged.size()},
        {"build_threads", options.buildThreads},
        {"reward", toJson(options.service.reward)},
        {"wall_seconds", wall},
        {"build_phase_seconds", buildSeconds},
        {"first_verdict_seconds", firstVerdictSeconds},
        {"evaluation_seconds", evaluationSeconds},
        {"evaluation_stage_seconds", stageSeconds},
        {"evaluation_seconds_per_answer",
         evaluationSeconds / std::max<std::size_t>(1, judged.size())},
        {"answers_per_minute", 60.0 * static_cast<double>(judged.size()) / std::max(wall, 1e-9)},
        {"one_build_alone_seconds", sequentialSeconds},
        {"one_at_a_time_estimate_seconds", oneAtATime},
        {"speedup_over_one_at_a_time", oneAtATime / std::max(wall, 1e-9)},
        {"correct", correct},
        {"verdicts_by_kind", byKind},
        {"verdicts_against_kind", wrong}};
    return result;
}

} // namespace dice
