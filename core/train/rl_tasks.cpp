// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/rl_tasks.h"

#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/common/splitmix.h"
#include "core/data/corpus_writer.h"
#include "core/infill/infill_plan.h"
#include "core/prompts/answer.h"
#include "core/prompts/native_prompts.h"
#include "core/tasks/holes.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

namespace dice {

namespace fs = std::filesystem;

namespace {

// The splits of a corpus's tasks, read from corpus.jsonl; empty when there is none.
std::map<std::string, std::string> corpusSplits(const fs::path& folder) {
    std::map<std::string, std::string> splits;
    const fs::path corpus = folder / "corpus.jsonl";
    std::error_code ec;
    if (!fs::is_regular_file(corpus, ec))
        return splits;
    const std::string text = readTextFile(corpus.string(), limits::kCorpus);
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        if (end > start) {
            const CorpusExample e = corpusExampleFromJson(text.substr(start, end - start));
            splits[e.task] = e.split;
        }
        start = end + 1;
    }
    return splits;
}

} // namespace

RlTaskPool RlTaskPool::load(const RlData& data) {
    const bool builtin = data.tasks == "builtin";
    const fs::path folder =
        builtin ? fs::path(builtinTaskDirectory()).parent_path() : fs::path(data.tasks);
    fs::path tasksFolder = builtin ? fs::path(builtinTaskDirectory()) : folder / "tasks";
    std::error_code ec;
    if (!builtin && !fs::is_directory(tasksFolder, ec))
        tasksFolder = folder; // a plain folder of task files
    const TaskSuite suite = loadTaskSuite(tasksFolder.string());
    const fs::path solutions = folder / "solutions";
    const auto splits = builtin ? std::map<std::string, std::string>() : corpusSplits(folder);
    RlTaskPool pool;
    for (const Task& task : suite.tasks) {
        if (!data.names.empty() &&
            std::find(data.names.begin(), data.names.end(), task.name) == data.names.end())
            continue;
        if (!data.splits.empty()) {
            const auto split = splits.find(task.name);
            if (split == splits.end() || std::find(data.splits.begin(), data.splits.end(),
                                                   split->second) == data.splits.end())
                continue;
        }
        RlTask t;
        t.task = task;
        const fs::path solution = solutions / (task.name + ".dice");
        if (fs::is_regular_file(solution, ec))
            t.solution = readTextFile(solution.string(), limits::kCandidate);
        pool.m_tasks.push_back(std::move(t));
    }
    std::stable_sort(pool.m_tasks.begin(), pool.m_tasks.end(),
                     [](const RlTask& a, const RlTask& b) {
                         return a.task.level != b.task.level ? a.task.level < b.task.level
                                                             : a.task.name < b.task.name;
                     });
    if (data.limit > 0 && static_cast<std::size_t>(data.limit) < pool.m_tasks.size())
        pool.m_tasks.resize(static_cast<std::size_t>(data.limit));
    if (pool.m_tasks.empty())
        throw Error("no task for reinforcement learning in " + tasksFolder.string() +
                    (data.splits.empty() ? std::string() : " with the splits asked for"));
    return pool;
}

std::vector<std::size_t> RlTaskPool::infillable() const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < m_tasks.size(); ++i)
        if (!m_tasks[i].solution.empty() && makeSkeleton(m_tasks[i].solution))
            out.push_back(i);
    return out;
}

RlPrompt RlTaskPool::prompt(std::size_t index, RlPhaseKind kind, std::uint64_t variant) const {
    const RlTask& t = m_tasks.at(index);
    RlPrompt p;
    p.task = index;
    p.kind = kind;
    if (kind == RlPhaseKind::EndToEnd) {
        p.text = nativeGenerationPrompt(t.task);
        return p;
    }
    const auto skeleton = makeSkeleton(t.solution);
    if (!skeleton)
        throw Error("task " + t.task.name + " has no solution with a kernel body to infill");
    const std::size_t target = static_cast<std::size_t>(variant % skeleton->holes.size());
    p.skeleton = skeletonWithOneHole(*skeleton, target);
    p.hole = skeleton->holes[target];
    p.text = nativeInfillPrompt(t.task, p.skeleton, p.hole);
    return p;
}

std::string RlTaskPool::candidate(const RlPrompt& prompt, const std::string& answer) const {
    if (prompt.kind == RlPhaseKind::Infill) {
        const HoleContent content = contentFromAnswer(prompt.skeleton, prompt.hole, answer);
        for (const Hole& hole : findHoles(prompt.skeleton))
            if (hole.name == prompt.hole)
                return fillHole(prompt.skeleton, hole, content.content);
        throw Error("the skeleton of " + m_tasks.at(prompt.task).task.name + " lost its hole");
    }
    const kernelbench::ExtractedCode code = kernelbench::extractFirstCodeBlock(answer);
    return code.found ? code.code : kernelbench::stripModelTokens(answer);
}

std::vector<std::size_t> scheduleStep(RlSchedule schedule, const RlTaskPool& pool,
                                      const std::vector<std::size_t>& candidates, int count,
                                      std::int64_t phaseStep,
                                      const std::map<std::string, RlTaskRecord>& records,
                                      std::uint64_t seed) {
    if (candidates.empty())
        throw Error("no task to schedule");
    const std::size_t n = candidates.size();
    const auto wanted = static_cast<std::size_t>(count);
    std::vector<std::size_t> out;
    if (schedule == RlSchedule::Sequential) {
        const std::size_t start = static_cast<std::size_t>(phaseStep) * wanted % n;
        for (std::size_t k = 0; k < wanted; ++k)
            out.push_back(candidates[(start + k) % n]);
        return out;
    }
    const auto share = [&](std::size_t task) {
        const auto found = records.find(pool.tasks()[task].task.name);
        const int attempts = found == records.end() ? 0 : found->second.attempts;
        const int correct = found == records.end() ? 0 : found->second.correct;
        return (correct + 1.0) / (attempts + 2.0);
    };
    // The easiest level whose tasks are not yet learnt.
    int frontier = 1 << 20;
    std::map<int, std::pair<double, int>> levels;
    for (std::size_t task : candidates) {
        auto& level = levels[pool.tasks()[task].task.level];
        level.first += share(task);
        ++level.second;
    }
    for (const auto& [level, sum] : levels)
        if (sum.first / sum.second < 0.5) {
            frontier = level;
            break;
        }
    std::vector<double> weight(n);
    for (std::size_t k = 0; k < n; ++k) {
        const double p = share(candidates[k]);
        weight[k] = 4 * p * (1 - p) + 0.05;
        if (pool.tasks()[candidates[k]].task.level > frontier)
            weight[k] *= 0.25;
    }
    std::uint64_t drawn = 0;
    std::set<std::size_t> taken;
    while (out.size() < wanted) {
        if (taken.size() == n) // fewer tasks than asked for: they come round again
            taken.clear();
        double total = 0;
        for (std::size_t k = 0; k < n; ++k)
            total += taken.count(k) ? 0 : weight[k];
        const double u = static_cast<double>(
                             splitmix64(seed * 0x9E3779B97F4A7C15ULL +
                                        static_cast<std::uint64_t>(phaseStep) * 65537 + drawn++) >>
                             11) *
                         (1.0 / 9007199254740992.0) * total;
        double acc = 0;
        std::size_t pick = n;
        for (std::size_t k = 0; k < n; ++k) {
            if (taken.count(k))
                continue;
            acc += weight[k];
            pick = k;
            if (acc > u)
                break;
        }
        taken.insert(pick);
        out.push_back(candidates[pick]);
    }
    return out;
}

} // namespace dice
