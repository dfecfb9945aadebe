// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/reward/reward_service.h"

#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/kernelbench/python_evaluator.h"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

namespace dice {

struct RewardService::Impl {
    RewardServiceOptions options;
    Evaluator evaluator;
    std::unique_ptr<kernelbench::PythonEvaluator> python;
    std::optional<TemporaryFolder> buildFolder;

    explicit Impl(RewardServiceOptions o)
        : options(std::move(o))
        , evaluator(options.evaluator) {}

    std::string kernelBenchBuildDirectory() {
        if (!options.kernelBenchBuildDirectory.empty())
            return options.kernelBenchBuildDirectory;
        if (!buildFolder)
            buildFolder.emplace("dice-reward-builds");
        return buildFolder->path();
    }

    kernelbench::KernelBenchOptions kernelBenchOptions() {
        kernelbench::KernelBenchOptions k;
        const RewardOptions& r = options.reward;
        k.correctnessTrials = r.correctnessTrials;
        k.atol = r.tolerance;
        k.rtol = r.tolerance;
        k.timing = r.mode == JudgeMode::Timed;
        k.warmups = r.warmups;
        k.timingTrials = r.timingTrials;
        k.timeoutMs = options.kernelBenchTimeoutMs;
        k.device = options.evaluator.devices.empty() ? 0 : options.evaluator.devices.front();
        k.buildDirectory = kernelBenchBuildDirectory();
        return k;
    }
};

RewardService::RewardService(RewardServiceOptions options)
    : m_impl(std::make_unique<Impl>(std::move(options))) {}

RewardService::~RewardService() = default;

const RewardServiceOptions& RewardService::options() const {
    return m_impl->options;
}

std::string RewardService::warmUp() {
    std::string problems;
    for (std::size_t i = 0; i < m_impl->evaluator.workerCount(); ++i) {
        try {
            m_impl->evaluator.hello(i);
        } catch (const Error& e) {
            problems += (problems.empty() ? "" : "; ") + std::string(e.what());
        }
    }
    return problems;
}

int RewardService::workerStarts() const {
    return m_impl->evaluator.starts();
}

int RewardService::spareTakeovers() const {
    return m_impl->evaluator.spareTakeovers();
}

std::vector<Judged> RewardService::judge(const std::vector<RewardItem>& items,
                                         const Progress& progress,
                                         const std::atomic<bool>* cancel) {
    std::vector<Judged> judged(items.size());
    std::mutex mutex;
    std::size_t done = 0;
    const auto finish = [&](std::size_t index, const EvaluationResult& result) {
        std::lock_guard<std::mutex> lock(mutex);
        judged[index].evaluation = result;
        judged[index].reward = scoreEvaluation(result, m_impl->options.reward);
        ++done;
        if (progress)
            progress(done, items.size(), index, judged[index]);
    };

    std::vector<Evaluator::Job> native;
    std::vector<std::size_t> nativeIndex;
    std::vector<std::size_t> kernelBenchIndex;
    const EvalOptions evalOptions = judgeOptions(m_impl->options.reward);
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (items[i].dialect == "native") {
            native.push_back({&items[i].task, items[i].source, items[i].name, evalOptions});
            nativeIndex.push_back(i);
        } else if (items[i].dialect == "kernelbench") {
            kernelBenchIndex.push_back(i);
        } else {
            throw Error("candidate " + std::to_string(i) + ": unknown dialect \"" +
                        items[i].dialect + "\" (native or kernelbench)");
        }
    }

    if (!native.empty()) {
        const auto results = m_impl->evaluator.evaluateBatch(
            native, m_impl->options.batch,
            [&](std::size_t j, const EvaluationResult& r) { finish(nativeIndex[j], r); }, cancel);
        // Cancelled jobs are not reported through the callback.
        for (std::size_t j = 0; j < results.size(); ++j)
            if (judged[nativeIndex[j]].evaluation.task.empty())
                finish(nativeIndex[j], results[j]);
    }

    if (!kernelBenchIndex.empty()) {
        if (!m_impl->python)
            m_impl->python = std::make_unique<kernelbench::PythonEvaluator>();
        kernelbench::PythonEvaluator& python = *m_impl->python;
        const kernelbench::KernelBenchOptions options = m_impl->kernelBenchOptions();
        // The builds run in the background; without timing, an answer is judged as soon as its
        // build is done, while the later ones build (about a minute each, on every core asked
        // for). With timing, every build ends first: builds beside a timed call would load the
        // CPU that launches its kernels.
        std::vector<bool> ready(kernelBenchIndex.size(), true);
        std::mutex readyMutex;
        std::condition_variable readyChanged;
        std::thread builds;
        // Joined on every way out: the thread refers to this frame.
        struct Joiner {
            std::thread& thread;
            ~Joiner() {
                if (thread.joinable())
                    thread.join();
            }
        } joiner{builds};
        if (python.canEvaluate()) {
            std::vector<std::string> sources;
            for (std::size_t i : kernelBenchIndex)
                sources.push_back(items[i].source);
            ready.assign(ready.size(), false);
            const auto built = [&](std::size_t k, const kernelbench::PythonEvaluator::Prebuilt&) {
                {
                    std::lock_guard<std::mutex> lock(readyMutex);
                    ready[k] = true;
                }
                readyChanged.notify_all();
            };
            builds = std::thread([&, sources = std::move(sources)] {
                try {
                    python.prebuild(sources, options.buildDirectory,
                                    m_impl->options.kernelBenchBuildThreads, options.timeoutMs,
                                    built);
                } catch (const std::exception&) {
                    // An answer that was not built is built by its own evaluation.
                }
                {
                    std::lock_guard<std::mutex> lock(readyMutex);
                    ready.assign(ready.size(), true);
                }
                readyChanged.notify_all();
            });
            if (options.timing)
                builds.join();
        }
        for (std::size_t k = 0; k < kernelBenchIndex.size(); ++k) {
            const std::size_t i = kernelBenchIndex[k];
            {
                std::unique_lock<std::mutex> lock(readyMutex);
                readyChanged.wait(lock, [&] { return ready[k]; });
            }
            const RewardItem& item = items[i];
            EvaluationResult r;
            if (cancel && cancel->load()) {
                r.task = item.task.name;
                r.dialect = "kernelbench";
                r.message = "cancelled before it ran";
            } else {
                try {
                    r = python.evaluate(
                        {item.task.name, item.task.level, item.reference, item.source}, options);
                } catch (const Error& e) {
                    r.task = item.task.name;
                    r.dialect = "kernelbench";
                    r.verdict = Verdict::NotRun;
                    r.message = e.what();
                }
            }
            finish(i, r);
        }
    }
    return judged;
}

nlohmann::json toJson(const Judged& judged) {
    return {{"evaluation", toJson(judged.evaluation)}, {"reward", toJson(judged.reward)}};
}

} // namespace dice
