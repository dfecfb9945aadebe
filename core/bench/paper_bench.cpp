// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/bench/paper_bench.h"

#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/cuda/driver_release.h"
#include "core/prompts/answer.h"
#include "core/prompts/kernelbench_prompts.h"
#include "core/store/run_store.h"
#include "core/tasks/task.h"
#include "core/worker/evaluator.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <regex>

namespace dice::kernelbench {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

std::vector<std::string> problemFiles(const std::string& root, int level, int limit) {
    const fs::path dir = fs::path(root) / ("level" + std::to_string(level));
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw FileError(dir.string(), "no such KernelBench level folder");
    std::vector<std::pair<int, std::string>> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (entry.path().extension() != ".py")
            continue;
        const std::string stem = entry.path().stem().string();
        files.emplace_back(std::atoi(stem.c_str()), entry.path().string());
    }
    std::sort(files.begin(), files.end());
    std::vector<std::string> out;
    for (const auto& f : files) {
        if (limit > 0 && static_cast<int>(out.size()) >= limit)
            break;
        out.push_back(f.second);
    }
    return out;
}

EvaluationResult notEvaluated(const std::string& task, int level, Verdict verdict,
                              const std::string& message) {
    EvaluationResult r;
    r.task = task;
    r.level = level;
    r.dialect = "kernelbench";
    r.verdict = verdict;
    r.message = message;
    return r;
}

bool hasTag(const RunRecord& run, const std::string& tag) {
    return std::find(run.tags.begin(), run.tags.end(), tag) != run.tags.end();
}

} // namespace

std::string kernelBenchTaskName(int level, const std::string& file) {
    const std::string stem = fs::path(file).stem().string();
    static const std::regex numbered(R"(^(\d+)_?(.*)$)");
    std::smatch m;
    int number = 0;
    std::string words = stem;
    if (std::regex_match(stem, m, numbered)) {
        number = std::stoi(m[1].str());
        words = m[2].str();
    }
    std::string slug;
    bool gap = false;
    for (char c : words) {
        const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if ((lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9')) {
            if (gap && !slug.empty())
                slug += '_';
            slug += lower;
            gap = false;
        } else {
            gap = true;
        }
    }
    if (slug.empty())
        slug = "problem";
    char prefix[32];
    std::snprintf(prefix, sizeof prefix, "kb_l%d_%03d_", level, number);
    return (prefix + slug).substr(0, 96);
}

PaperBenchReport runPaperBench(const PaperBenchOptions& options,
                               const std::function<void(const PaperBenchProblem&)>& onProblem) {
    PaperBenchReport report;
    report.preset = options.preset.name;
    std::vector<std::pair<int, std::string>> work;
    for (int level : options.levels)
        for (const auto& file : problemFiles(options.problems, level, options.limit))
            work.emplace_back(level, file);

    RunStore store(options.store.empty() ? RunStore::defaultPath() : options.store);
    const std::string modelName = fs::path(options.model).filename().empty()
                                      ? fs::path(options.model).parent_path().filename().string()
                                      : fs::path(options.model).filename().string();
    report.model = modelName;
    // One tag names the model and the decoding; runs under it are this table's, and resume.
    const std::string benchTag = "kernelbench-table:" + modelName + ":" + options.preset.name +
                                 ":seed" + std::to_string(options.seed);

    std::unique_ptr<ModelSession> session;
    std::unique_ptr<PythonEvaluator> python;
    std::unique_ptr<Evaluator> native;
    std::optional<TaskSuite> tasks;
    const PromptExamples examples = loadPromptExamples();
    const std::string driver = nvidiaDriverRelease();

    for (const auto& [level, file] : work) {
        PaperBenchProblem p;
        p.level = level;
        p.file = file;
        p.task = kernelBenchTaskName(level, file);
        RunQuery query;
        query.task = p.task;
        for (const auto& run : store.list(query)) {
            if (!hasTag(run, benchTag))
                continue;
            p.resumed = true;
            p.runId = run.id;
            p.result = evaluationFromJson(run.result);
            p.dialect = run.options.value("answer_dialect", std::string());
            p.answerTokens = run.options.value("answer_tokens", std::int64_t{0});
            p.generationMs = run.options.value("generation_ms", 0.0);
            break;
        }
        if (!p.resumed) {
            if (options.cancel && options.cancel->load()) {
                report.cancelled = true;
                break;
            }
            if (!session)
                session = ModelSession::open(options.model, options.session);
            const std::string problem = readTextFile(file, limits::kKernelBenchSource);
            SamplerOptions sampler = options.preset.sampler;
            sampler.seed = options.seed;
            sampler.cancel = options.cancel;
            const auto prompt = session->encodePrompt(
                endToEndPrompt(problem, examples, PromptStyle::Evaluation), false);
            const auto started = std::chrono::steady_clock::now();
            const TextGeneration answer =
                session->generate(prompt, sampler, {}, options.preset.stopAtEndToken);
            p.generationMs = millisecondsSince(started);
            report.generationMs += p.generationMs;
            p.answerTokens = static_cast<std::int64_t>(answer.result.tokens.size());
            if (answer.result.reason == FinishReason::Cancelled) {
                report.cancelled = true;
                break;
            }
            const auto evalStarted = std::chrono::steady_clock::now();
            const ExtractedCode code = extractFirstCodeBlock(answer.text);
            const DialectGuess dialect = detectDialect(code.found ? code.code : answer.text);
            const std::string candidate = code.found ? code.code : std::string();
            if (!code.found) {
                p.dialect = "none";
                p.result = notEvaluated(p.task, level, Verdict::InvalidCandidate,
                                        "the answer holds no fenced code block");
            } else if (dialect.dialect == Dialect::KernelBench) {
                p.dialect = "kernelbench";
                if (!python)
                    python = std::make_unique<PythonEvaluator>();
                if (!python->canEvaluate()) {
                    p.result = notEvaluated(p.task, level, Verdict::NotRun,
                                            "the KernelBench dialect cannot be evaluated here: " +
                                                python->unavailableReason());
                } else {
                    KernelBenchJob job;
                    job.task = p.task;
                    job.level = level;
                    job.referenceSource = problem;
                    job.candidateSource = candidate;
                    p.result = python->evaluate(job, options.evaluation);
                }
            } else if (dialect.dialect == Dialect::Native) {
                p.dialect = "native";
                if (!tasks && !options.tasks.empty())
                    tasks = loadTaskSuite(options.tasks);
                const Task* task = tasks ? tasks->find(p.task) : nullptr;
                if (!task) {
                    p.result = notEvaluated(
                        p.task, level, Verdict::NotRun,
                        "a native answer is evaluated against the imported task; import the "
                        "problems with 'dice import kernelbench' and pass their folder");
                } else {
                    if (!native)
                        native = std::make_unique<Evaluator>();
                    EvalOptions eval;
                    eval.tolerance = options.evaluation.atol;
                    eval.correctnessTrials = options.evaluation.correctnessTrials;
                    eval.warmups = options.evaluation.warmups;
                    eval.timingTrials = options.evaluation.timingTrials;
                    p.result = native->evaluate(*task, candidate, "answer.dice", eval);
                }
            } else {
                p.dialect = "none";
                p.result = notEvaluated(p.task, level, Verdict::InvalidCandidate,
                                        "the code is in neither dialect: " + dialect.reason);
            }
            p.result.task = p.task;
            p.result.level = level;
            report.evaluationMs += millisecondsSince(evalStarted);
            json runOptions = {{"preset", toJson(options.preset)},
                               {"model", modelName},
                               {"seed", options.seed},
                               {"answer_dialect", p.dialect},
                               {"answer_tokens", p.answerTokens},
                               {"generation_ms", p.generationMs},
                               {"answer", answer.text},
                               {"problem", fs::path(file).filename().string()}};
            p.runId = store.add(RunStore::recordOf(
                p.result, candidate, runOptions, driver,
                {"kernelbench-table", benchTag, "level" + std::to_string(level)}));
        }
        report.problems.push_back(p);
        if (onProblem)
            onProblem(report.problems.back());
    }

    std::vector<TaskOutcome> outcomes;
    for (const auto& p : report.problems)
        outcomes.push_back({p.task, p.level, p.result});
    report.metrics = computeMetrics(outcomes);
    return report;
}

json toJson(const PaperBenchReport& report) {
    json problems = json::array();
    for (const auto& p : report.problems)
        problems.push_back({{"level", p.level},
                            {"task", p.task},
                            {"file", fs::path(p.file).filename().string()},
                            {"resumed", p.resumed},
                            {"answer_dialect", p.dialect},
                            {"answer_tokens", p.answerTokens},
                            {"generation_ms", p.generationMs},
                            {"run", p.runId},
                            {"verdict", toString(p.result.verdict)},
                            {"speedup", p.result.speedup},
                            {"message", p.result.message}});
    return {{"model", report.model},
            {"preset", report.preset},
            {"cancelled", report.cancelled},
            {"generation_ms", report.generationMs},
            {"evaluation_ms", report.evaluationMs},
            {"metrics", toJson(report.metrics)},
            {"problems", problems}};
}

} // namespace dice::kernelbench
