// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/suite/suite_evaluation.h"

#include "core/common/error.h"
#include "core/common/number_format.h"
#include "core/eval/candidate.h"
#include "core/tasks/task.h"
#include "core/worker/evaluator.h"

#include <filesystem>
#include <iomanip>
#include <sstream>

namespace dice {

std::vector<std::string> SuiteEvaluation::missing() const {
    std::vector<std::string> names;
    for (const auto& o : outcomes)
        if (!o.result)
            names.push_back(o.task);
    return names;
}

SuiteEvaluation evaluateSuite(Evaluator& evaluator, const TaskSuite& suite,
                              const SuiteEvaluationOptions& options,
                              const SuiteProgressFn& progress, const std::atomic<bool>* cancel) {
    if (options.repeats < 1)
        throw Error("a suite is evaluated at least once, not " + std::to_string(options.repeats) +
                    " times");
    SuiteEvaluation evaluation;
    std::vector<Evaluator::Job> jobs;
    std::vector<std::size_t> jobTask;
    for (std::size_t i = 0; i < suite.tasks.size(); ++i) {
        const Task& t = suite.tasks[i];
        evaluation.outcomes.push_back({t.name, t.level, std::nullopt});
        const auto path = std::filesystem::path(options.candidateDirectory) / (t.name + ".dice");
        std::error_code ec;
        // Anything of that name is read, so that a FIFO or a folder is an error, not a task
        // without a candidate.
        if (!std::filesystem::exists(path, ec))
            continue;
        Evaluator::Job job;
        job.task = &t;
        job.source = readCandidateFile(path.string());
        job.candidateName = path.filename().string();
        job.options = options.eval;
        jobs.push_back(job);
        jobTask.push_back(i);
    }
    const std::size_t perRound = jobs.size();
    for (int round = 1; round < options.repeats; ++round)
        for (std::size_t k = 0; k < perRound; ++k) {
            jobs.push_back(jobs[k]);
            jobTask.push_back(jobTask[k]);
        }
    std::size_t finished = 0;
    const auto results = evaluator.evaluateAll(
        jobs,
        [&](std::size_t, const EvaluationResult& r) {
            ++finished;
            if (progress)
                progress(r, finished, jobs.size());
        },
        cancel);
    for (std::size_t k = 0; k < results.size(); ++k) {
        SuiteRun run;
        run.task = jobTask[k];
        run.round = static_cast<int>(k / perRound);
        run.source = jobs[k].source;
        run.result = results[k];
        if (run.round == 0)
            evaluation.outcomes[run.task].result = run.result;
        evaluation.runs.push_back(std::move(run));
    }
    evaluation.metrics = computeMetrics(evaluation.outcomes);
    return evaluation;
}

std::string formatSuiteEvaluation(const SuiteEvaluation& evaluation) {
    std::ostringstream out;
    out << std::left << std::setw(28) << "task" << std::setw(7) << "level" << std::setw(18)
        << "verdict" << std::setw(10) << "speedup"
        << "flags\n";
    for (const auto& o : evaluation.outcomes) {
        out << std::left << std::setw(28) << o.task << std::setw(7) << o.level;
        if (!o.result) {
            out << "no candidate\n";
            continue;
        }
        std::string flags;
        for (const auto& f : o.result->flags)
            flags += (flags.empty() ? "" : ",") + f.code;
        out << std::setw(18) << toString(o.result->verdict) << std::setw(10)
            << (o.result->speedup > 0 ? formatFixed(o.result->speedup, 2) + "x" : "-") << flags
            << "\n";
    }
    out << "\n" << formatMetricsTable(evaluation.metrics);
    return out.str();
}

} // namespace dice
