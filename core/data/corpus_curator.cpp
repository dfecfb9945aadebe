// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/corpus_curator.h"

#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/common/json_depth.h"
#include "core/data/corpus_writer.h"
#include "core/eval/candidate.h"
#include "core/tasks/task.h"
#include "core/worker/evaluator.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace dice {

namespace fs = std::filesystem;

CurationOptions::CurationOptions() {
    check.preset = "small";
    check.correctnessTrials = 2;
    check.timing = false;
    check.checkSmallPreset = false;
    timing.preset = "bench";
    timing.timingTrials = 20;
}

void decideKept(std::vector<CuratedTask>& tasks, double threshold, CurationReport& report) {
    report.threshold = threshold;
    report.histogram.assign(6, 0);
    report.verified = report.timed = report.kept = 0;
    std::map<std::string, std::vector<double>> measured;
    for (const auto& t : tasks) {
        if (t.verdict != Verdict::Correct)
            continue;
        ++report.verified;
        if (!t.timed || t.speedup <= 0)
            continue;
        ++report.timed;
        measured[t.family].push_back(t.speedup);
        const double s = t.speedup;
        const int bin = s < 0.5 ? 0 : s < 1.0 ? 1 : s < 1.5 ? 2 : s < 2.0 ? 3 : s < 3.0 ? 4 : 5;
        ++report.histogram[static_cast<std::size_t>(bin)];
    }
    std::map<std::string, double> familyMedian;
    for (auto& [family, values] : measured) {
        std::sort(values.begin(), values.end());
        const std::size_t n = values.size();
        familyMedian[family] = n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
    }
    for (auto& t : tasks) {
        t.kept = false;
        if (t.verdict != Verdict::Correct)
            continue;
        if (!t.timed || t.speedup <= 0) {
            const auto it = familyMedian.find(t.family);
            if (it == familyMedian.end())
                continue;
            t.speedup = it->second;
            t.speedupEstimated = true;
        }
        t.kept = t.speedup >= threshold;
        report.kept += t.kept ? 1 : 0;
    }
}

namespace {

// A verdict's message with the evaluator's flags, which say what it saw (a fallback verdict names
// the foreign kernels there, for instance).
std::string explained(const EvaluationResult& r) {
    std::string text = r.message;
    if (r.verdict == Verdict::Correct)
        return text;
    for (const auto& flag : r.flags)
        text += "; " + flag.code + ": " + flag.message;
    return text;
}

// Verdicts and measured speedups of an earlier curation of the same corpus (its curation.json or
// a result file of `dice data curate --report`); returns the GPU time that curation took.
double reuseMeasurements(const std::string& path, std::vector<CuratedTask>& tasks) {
    nlohmann::json report;
    try {
        const std::string text = readTextFile(path, limits::kCorpus);
        // Its "curation" is copied out below, which recurses once per level of nesting.
        constexpr std::size_t kMaxDepth = 64;
        if (jsonNestingDepth(text, kMaxDepth) > kMaxDepth)
            throw FileError(path, "nests arrays and objects deeper than " +
                                      std::to_string(kMaxDepth) + " levels");
        report = nlohmann::json::parse(text);
        if (report.contains("curation"))
            report = report["curation"];
        std::map<std::string, const nlohmann::json*> byTask;
        for (const auto& entry : report.at("tasks"))
            byTask[entry.at("task").get<std::string>()] = &entry;
        for (auto& t : tasks) {
            const auto found = byTask.find(t.task);
            if (found == byTask.end())
                throw Error("has no entry for the task " + t.task +
                            " (it was made from another corpus)");
            const auto& entry = *found->second;
            const auto verdict = parseVerdict(entry.at("verdict").get<std::string>());
            if (!verdict)
                throw Error("task " + t.task + ": unknown verdict");
            t.verdict = *verdict;
            t.message = entry.value("message", "");
            t.timed = entry.at("timed").get<bool>();
            t.speedup = t.timed ? entry.at("speedup").get<double>() : 0.0;
        }
        return report.value("evaluation_seconds", 0.0);
    } catch (const FileError&) {
        throw;
    } catch (const std::exception& e) {
        throw FileError(path, e.what());
    }
}

// Checks every task's solution on the GPU and times the representative subset; fills verdicts,
// messages and measured speedups, and returns the wall time of the GPU work.
double measureOnGpu(const CurationOptions& options, const fs::path& root, const TaskSuite& suite,
                    std::vector<CuratedTask>& tasks) {
    std::vector<std::string> sources(tasks.size());
    for (std::size_t i = 0; i < tasks.size(); ++i)
        sources[i] = readCandidateFile((root / "solutions" / (tasks[i].task + ".dice")).string());

    EvaluatorOptions evaluatorOptions;
    evaluatorOptions.devices = options.devices;
    evaluatorOptions.workerExecutable = options.workerExecutable;
    EvaluatorOptions checkOptions = evaluatorOptions;
    checkOptions.devices.clear();
    for (int device : options.devices)
        checkOptions.devices.insert(checkOptions.devices.end(),
                                    std::max(1, options.checkWorkersPerDevice), device);
    const auto started = std::chrono::steady_clock::now();
    std::size_t done = 0;
    const auto report = [&](const std::string& what) {
        if (options.progress)
            options.progress(++done, tasks.size(), what);
    };

    // Every candidate once, for correctness, many at a time over the workers.
    std::vector<Evaluator::Job> checks;
    for (std::size_t i = 0; i < tasks.size(); ++i)
        checks.push_back(
            {suite.find(tasks[i].task), sources[i], tasks[i].task + ".dice", options.check});
    std::vector<EvaluationResult> checked;
    {
        // Its workers end with the pass, before the timing's take the GPU alone.
        Evaluator checker(checkOptions);
        checked = checker.evaluateAll(
            checks, [&](std::size_t i, const EvaluationResult&) { report(tasks[i].task); });
    }
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        tasks[i].verdict = checked[i].verdict;
        tasks[i].message = explained(checked[i]);
    }

    // The timed subset: every timeEvery-th verified variant of a family, the first one always.
    std::map<std::string, int> seen;
    std::vector<std::size_t> timedIndex;
    std::vector<Evaluator::Job> timings;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        if (tasks[i].verdict != Verdict::Correct)
            continue;
        const int n = seen[tasks[i].family]++;
        if (n % std::max(1, options.timeEvery) != 0)
            continue;
        timedIndex.push_back(i);
        timings.push_back(
            {suite.find(tasks[i].task), sources[i], tasks[i].task + ".dice", options.timing});
    }
    done = 0;
    Evaluator evaluator(evaluatorOptions);
    const auto timed = evaluator.evaluateAll(timings, [&](std::size_t i, const EvaluationResult&) {
        report(tasks[timedIndex[i]].task);
    });
    for (std::size_t k = 0; k < timedIndex.size(); ++k) {
        CuratedTask& t = tasks[timedIndex[k]];
        t.timed = true;
        t.speedup = timed[k].verdict == Verdict::Correct ? timed[k].speedup : 0.0;
        if (timed[k].verdict != Verdict::Correct) {
            t.verdict = timed[k].verdict;
            t.message = explained(timed[k]);
        }
    }

    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

} // namespace

CurationReport curateCorpus(const CurationOptions& options) {
    const fs::path root(options.corpus);
    const std::string corpusFile = (root / "corpus.jsonl").string();
    std::error_code ec;
    if (!fs::is_regular_file(corpusFile, ec))
        throw FileError(corpusFile, "not found: curation needs a corpus made by dice data synth");
    const TaskSuite suite = loadTaskSuite((root / "tasks").string());
    if (!suite.problems.empty())
        throw FileError(suite.problems.front().path, suite.problems.front().message);

    // Families and corpus order come from the examples.
    std::vector<CorpusExample> examples;
    {
        std::istringstream in(readTextFile(corpusFile, limits::kCorpus));
        std::size_t line = 0;
        for (std::string text; std::getline(in, text);) {
            ++line;
            if (text.empty())
                continue;
            try {
                examples.push_back(corpusExampleFromJson(text));
            } catch (const std::exception& e) {
                throw FileError(corpusFile, "line " + std::to_string(line) + ": " + e.what());
            }
        }
    }
    std::vector<CuratedTask> tasks;
    std::map<std::string, std::size_t> index;
    for (const auto& e : examples) {
        if (index.count(e.task))
            continue;
        if (!suite.find(e.task))
            throw FileError(corpusFile, "names the task " + e.task + ", which tasks/ lacks");
        index[e.task] = tasks.size();
        CuratedTask t;
        t.task = e.task;
        t.family = e.family;
        t.level = e.level;
        tasks.push_back(t);
    }

    CurationReport out;
    out.evaluationSeconds = options.measurements.empty()
                                ? measureOnGpu(options, root, suite, tasks)
                                : reuseMeasurements(options.measurements, tasks);
    decideKept(tasks, options.threshold, out);
    if (out.verified == 0 && !tasks.empty() && tasks.front().verdict == Verdict::NotRun)
        out.note = "nothing could be verified: " + tasks.front().message;

    // The curated corpus: the kept tasks' examples, task files and solutions.
    const fs::path target(options.output);
    fs::create_directories(target / "tasks", ec);
    fs::create_directories(target / "solutions", ec);
    if (ec)
        throw FileError(target.string(), "cannot create: " + ec.message());
    std::string lines;
    for (const auto& e : examples) {
        if (!tasks[index[e.task]].kept)
            continue;
        lines += toJsonLine(e) + "\n";
        ++out.keptExamples;
    }
    writeFileAtomically((target / "corpus.jsonl").string(), lines);
    for (const auto& t : tasks) {
        if (!t.kept)
            continue;
        fs::copy_file(root / "tasks" / (t.task + ".json"), target / "tasks" / (t.task + ".json"),
                      fs::copy_options::overwrite_existing, ec);
        fs::copy_file(root / "solutions" / (t.task + ".dice"),
                      target / "solutions" / (t.task + ".dice"),
                      fs::copy_options::overwrite_existing, ec);
    }
    out.tasks = std::move(tasks);
    writeFileAtomically((target / "curation.json").string(), toJson(out).dump(1) + "\n");
    return out;
}

nlohmann::json toJson(const CurationReport& r) {
    nlohmann::json tasks = nlohmann::json::array();
    for (const auto& t : r.tasks)
        tasks.push_back({{"task", t.task},
                         {"family", t.family},
                         {"level", t.level},
                         {"verdict", toString(t.verdict)},
                         {"message", t.message},
                         {"timed", t.timed},
                         {"speedup", t.speedup},
                         {"speedup_estimated", t.speedupEstimated},
                         {"kept", t.kept}});
    return {
        {"threshold", r.threshold},
        {"tasks_total", r.tasks.size()},
        {"verified", r.verified},
        {"timed", r.timed},
        {"kept", r.kept},
        {"kept_examples", r.keptExamples},
        {"evaluation_seconds", r.evaluationSeconds},
        {"speedup_histogram",
         {{"bins", {"<0.5", "0.5-1", "1-1.5", "1.5-2", "2-3", ">=3"}}, {"counts", r.histogram}}},
        {"note", r.note},
        {"tasks", tasks}};
}

} // namespace dice
