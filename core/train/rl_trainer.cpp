// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/train/rl_trainer.h"

#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/common/json_depth.h"
#include "core/common/splitmix.h"
#include "core/cuda/cuda_driver.h"
#include "core/diffusion/qwen3_network.h"
#include "core/distributed/communicator.h"
#include "core/distributed/gradient_buckets.h"
#include "core/distributed/rank_environment.h"
#include "core/distributed/sharded_adamw.h"
#include "core/model/device_memory.h"
#include "core/model/qwen3_model.h"
#include "core/reward/reward_service.h"
#include "core/tokenizer/tokenizer.h"
#include "core/train/rl_tasks.h"
#include "core/train/sft_data.h"
#include "core/train/trace_rl.h"
#include "core/train/trace_update.h"
#include "core/train/train_common.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>

#include <unistd.h>

namespace dice {

namespace fs = std::filesystem;

namespace {

using Clock = TrainClock;

// One answer of a step, from its prompt to its reward.
struct Rollout {
    std::size_t prompt = 0; // into the step's prompts
    std::vector<std::int64_t> tokens;
    std::vector<std::int64_t> commitStep;
    std::vector<std::int64_t> tail;
    std::vector<std::int64_t> tailStep;
    FinishReason finish = FinishReason::Length;
    std::string answer;
    std::string candidate;
    Judged judged;
    double advantage = 0;
    bool kept = false;
};

struct StepPrompt {
    RlPrompt prompt;
    std::vector<std::int64_t> ids;
};

ModelPlacement placementOf(const std::string& device) {
    ModelPlacement p;
    p.dtype = ModelDType::Float32;
    if (device.rfind("cuda", 0) == 0) {
        p.device = ModelDevice::Cuda;
        p.deviceIndex = device.size() > 5 ? std::stoi(device.substr(5)) : 0;
    }
    return p;
}

// A model's answer is any sequence of tokens, and a token can end in the middle of a character:
// bytes that are not UTF-8 are written as U+FFFD rather than stopping the run.
std::string textOf(const nlohmann::json& value, int indent = -1) {
    return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

// With no worker to judge them every reward is the same, every group is dropped and the run
// learns nothing while it seems to go on: it stops with the worker's reason instead.
void failIfNothingWasJudged(const std::vector<Judged>& judged) {
    if (judged.empty())
        return;
    for (const Judged& j : judged)
        if (j.evaluation.workerState != WorkerState::NotStarted)
            return;
    throw Error("no candidate could be judged: " + judged.front().evaluation.message);
}

std::string hostName() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0)
        return std::string();
    return name;
}

// What the trainer is doing, for whoever follows the run folder.
class StatusFile {
public:
    // Only one rank writes it (the leader); the others' calls do nothing.
    explicit StatusFile(fs::path path, bool writes = true)
        : m_path(std::move(path))
        , m_writes(writes) {}

    void set(nlohmann::json status, bool force = false) {
        if (!m_writes || (!force && secondsSince(m_last) < 0.5))
            return;
        m_last = Clock::now();
        // Who writes it, so that a reader on this host can tell a running trainer from one that
        // died without a word.
        status["pid"] = static_cast<std::int64_t>(::getpid());
        status["host"] = hostName();
        writeFileAtomically(m_path.string(), textOf(status, 2) + "\n");
    }

private:
    fs::path m_path;
    bool m_writes;
    Clock::time_point m_last{};
};

// Ranks take contiguous shares of a list of n: rank r of size gets [first, end).
std::pair<std::size_t, std::size_t> shareOf(std::size_t n, int rank, int size) {
    return {n * static_cast<std::size_t>(rank) / static_cast<std::size_t>(size),
            n * static_cast<std::size_t>(rank + 1) / static_cast<std::size_t>(size)};
}

// Every rank's records, in rank order: the shares put back together as one list.
std::vector<nlohmann::json> gatherRecords(Communicator* comm,
                                          const std::vector<nlohmann::json>& mine) {
    if (!comm)
        return mine;
    std::vector<nlohmann::json> all;
    for (const std::string& text : comm->allGatherText(textOf(nlohmann::json(mine)))) {
        const nlohmann::json part = nlohmann::json::parse(text);
        for (const auto& record : part)
            all.push_back(record);
    }
    return all;
}

nlohmann::json judgedRecord(const Judged& judged) {
    return {{"evaluation", toJson(judged.evaluation)}, {"reward", toJson(judged.reward)}};
}

Judged judgedFromRecord(const nlohmann::json& record) {
    Judged judged;
    judged.evaluation = evaluationFromJson(record.at("evaluation"));
    judged.reward = rewardBreakdownFromJson(record.at("reward"));
    return judged;
}

RlReport runTraining(const RlConfig& config, const RlHooks& hooks);

} // namespace

RlReport trainRl(const RlConfig& config, const RlHooks& hooks) {
    try {
        return runTraining(config, hooks);
    } catch (const std::exception& e) {
        // The run folder says why its trainer ended, for a reader that did not start it. One
        // rank writes it: the leader.
        bool leader = true;
        try {
            leader = rankEnvironment().rank == 0;
        } catch (const Error&) {
            leader = false;
        }
        if (leader && !config.output.empty() && fs::is_directory(config.output))
            StatusFile(fs::path(config.output) / "status.json")
                .set({{"state", "failed"}, {"error", e.what()}}, true);
        throw;
    }
}

std::string rlModelFolder(const std::string& model) {
    if (model.empty() || model == "embedded")
        return (fs::path(dataDirectory()) / "models" / "dice-nano").string();
    return model;
}

void standardiseGroups(const std::vector<double>& rewards, std::size_t groupSize,
                       std::vector<double>& advantages, std::vector<bool>& kept) {
    advantages.assign(rewards.size(), 0.0);
    kept.assign(rewards.size(), false);
    if (groupSize == 0)
        return;
    for (std::size_t start = 0; start + groupSize <= rewards.size(); start += groupSize) {
        double mean = 0;
        for (std::size_t k = 0; k < groupSize; ++k)
            mean += rewards[start + k];
        mean /= static_cast<double>(groupSize);
        double variance = 0;
        for (std::size_t k = 0; k < groupSize; ++k)
            variance += (rewards[start + k] - mean) * (rewards[start + k] - mean);
        const double std = std::sqrt(variance / static_cast<double>(groupSize));
        if (std < 1e-8)
            continue;
        for (std::size_t k = 0; k < groupSize; ++k) {
            advantages[start + k] = (rewards[start + k] - mean) / std;
            kept[start + k] = true;
        }
    }
}

namespace {

RlReport runTraining(const RlConfig& config, const RlHooks& hooks) {
    const auto begin = Clock::now();
    if (config.output.empty())
        throw Error("the RL run needs an output folder");
    if (config.threads > 0)
        at::set_num_threads(config.threads);

    // Several ranks (docs/distributed.md): each on its own GPU of its host, or each a CPU process.
    const RankEnvironment ranks = rankEnvironment();
    std::string deviceName = config.device;
    if (ranks.present && deviceName.rfind("cuda", 0) == 0)
        deviceName = "cuda:" + std::to_string(ranks.localRank);
    const ModelPlacement placement = placementOf(deviceName);
    const torch::Device device = placement.device == ModelDevice::Cuda
                                     ? torch::Device(torch::kCUDA, placement.deviceIndex)
                                     : torch::Device(torch::kCPU);
    std::unique_ptr<Communicator> comm;
    if (ranks.present)
        comm =
            Communicator::connect(ranks, device, std::chrono::seconds(config.collectiveTimeoutS));
    const int rank = comm ? comm->rank() : 0;
    const int rankCount = comm ? comm->size() : 1;
    // The leader writes the run folder; every rank computes the same step.
    const bool leader = rank == 0;
    const auto log = [&](const std::string& line) {
        if (hooks.log && leader)
            hooks.log(line);
    };

    const fs::path output(config.output);
    std::error_code ec;
    if (leader) {
        fs::create_directories(output / "rollouts", ec);
        fs::create_directories(output / "checkpoints", ec);
        if (ec)
            throw FileError(output.string(), "cannot create the run folder: " + ec.message());
    }
    if (comm) {
        // The run folder is one folder every rank sees: the others read its checkpoints.
        comm->barrier();
        if (!fs::is_directory(output))
            throw FileError(output.string(),
                            "rank " + std::to_string(rank) +
                                " does not see the run folder: the ranks need one folder they "
                                "all see (a shared file system across hosts)");
        log(std::to_string(rankCount) + " ranks (" + comm->backend() + ")");
    }
    StatusFile status(output / "status.json", leader);
    status.set({{"state", "starting"}}, true);

    // The model, and where a resumed run takes up.
    const std::string initial = rlModelFolder(config.model);
    const auto existing = listCheckpoints(output);
    const std::string modelFolder = existing.empty() ? initial : existing.back().folder.string();
    const std::string tokenizerPath = (fs::path(initial) / "tokenizer.json").string();
    const Tokenizer tokenizer = Tokenizer::load(tokenizerPath);
    LoadOptions load;
    load.placement = placement;
    std::unique_ptr<Qwen3Model> model = Qwen3Model::load(modelFolder, load);
    model->setGradientCheckpointing(config.gradientCheckpointing);
    model->setMaskedAttentionChunk(config.attentionChunk);
    const ModelConfig& modelConfig = model->config();
    std::int64_t maskId = 0;
    if (modelConfig.maskTokenId)
        maskId = *modelConfig.maskTokenId;
    else if (const auto mask = tokenizer.tokenId("<|MASK|>"))
        maskId = *mask;
    else
        throw Error(initial + ": the model names no mask token");
    const std::int64_t padId = modelConfig.padTokenId
                                   ? *modelConfig.padTokenId
                                   : tokenizer.tokenId("<|endoftext|>").value_or(0);
    std::vector<std::int64_t> stopIds = model->generationConfig().eosTokenIds;
    for (auto id : modelConfig.eosTokenIds)
        if (std::find(stopIds.begin(), stopIds.end(), id) == stopIds.end())
            stopIds.push_back(id);

    nlohmann::json resolved = toJson(config);
    // The model as the configuration names it ("embedded" stays "embedded"), so that a run folder
    // names no folder of the machine that made it and resumes on another.
    resolved["model"] = config.model.empty() ? std::string("embedded") : config.model;
    if (leader)
        writeFileAtomically((output / "config.json").string(), resolved.dump(2) + "\n");

    std::vector<RlTaskPool> pools;
    for (const auto& phase : config.phases) {
        pools.push_back(RlTaskPool::load(phase.data));
        log(toString(phase.kind) + " phase: " + std::to_string(phase.steps) + " steps over " +
            std::to_string(pools.back().tasks().size()) + " tasks");
    }
    std::unique_ptr<RlTaskPool> evalPool;
    if (!config.evalData.tasks.empty() && config.evalEvery > 0)
        evalPool = std::make_unique<RlTaskPool>(RlTaskPool::load(config.evalData));

    RewardServiceOptions judgeOptions;
    judgeOptions.reward = config.reward;
    judgeOptions.evaluator.devices = config.judgeDevices;
    // A rank judges its share on its own GPU, with as many workers as the configuration asks.
    if (comm && device.is_cuda())
        for (int& d : judgeOptions.evaluator.devices)
            d = static_cast<int>(device.index());
    judgeOptions.evaluator.workerExecutable = hooks.workerExecutable;
    judgeOptions.evaluator.idleTimeoutMs = config.judgeIdleTimeoutS * 1000;
    judgeOptions.batch.compileThreads = config.compileThreads;
    judgeOptions.batch.guidedChunks = config.guidedChunks;
    judgeOptions.batch.compileLookahead = config.compileLookahead;
    // Without a GPU there is nothing for a spare to set up.
    judgeOptions.evaluator.spareWorkers = config.spareWorkers && cu::Driver::instance().available();
    RewardService judge(judgeOptions);
    if (config.reward.mode != JudgeMode::Compile && !cu::Driver::instance().available())
        log("note: there is no GPU to run kernels, so no candidate can be judged correct and "
            "every group's rewards are equal; the reward mode \"compile\" is made for this");

    if (comm) {
        // Every rank starts from the leader's weights, whatever each read.
        at::NoGradGuard noGrad;
        for (auto& p : model->parameters())
            comm->broadcast(p, 0);
    }
    for (auto& p : model->parameters())
        p.requires_grad_(true);
    AdamWSettings adamw;
    adamw.learningRate = config.learningRate;
    adamw.beta1 = config.beta1;
    adamw.beta2 = config.beta2;
    adamw.weightDecay = config.weightDecay;
    adamw.epsilon = config.epsilon;
    ShardedAdamW optimizer(model->parameters(), adamw, comm.get());
    std::unique_ptr<GradientBuckets> buckets;
    if (comm)
        buckets = std::make_unique<GradientBuckets>(model->parameters(), *comm,
                                                    std::int64_t(config.bucketMegabytes) << 20);
    std::int64_t start = 0;
    std::map<std::string, RlTaskRecord> records;
    if (!existing.empty()) {
        const fs::path moments = existing.back().folder / "optimizer.safetensors";
        // Checkpoints of earlier versions kept LibTorch's own optimiser archive, whose moments
        // are keyed by tensor addresses and cannot be split over ranks.
        if (!fs::exists(moments) && fs::exists(existing.back().folder / "optimizer.pt"))
            throw FileError(existing.back().folder.string(),
                            "holds the optimiser state of an earlier version (optimizer.pt), "
                            "which this one cannot resume; start a new run from its weights "
                            "(\"model\": that folder)");
        optimizer.load(moments.string());
        const fs::path stateFile = existing.back().folder / "trainer_state.json";
        // Its records are copied below: a file nested far deeper than the trainer writes is
        // refused first.
        const nlohmann::json state = parseJsonWithin(
            readTextFile(stateFile.string(), limits::kResultFile), 64, stateFile.string());
        if (!state.is_object() || !state.contains("step") || !state["step"].is_number_unsigned())
            throw FileError(stateFile.string(), "has no step");
        start = state["step"].get<std::int64_t>();
        const nlohmann::json saved = state.contains("records") && state["records"].is_object()
                                         ? state["records"]
                                         : nlohmann::json::object();
        for (const auto& [name, r] : saved.items())
            if (r.is_object())
                records[name] = {r.value("attempts", 0), r.value("reward_sum", 0.0),
                                 r.value("correct", 0)};
        log("resuming from " + existing.back().folder.filename().string());
        if (leader)
            for (const char* file : {"metrics.jsonl", "eval.jsonl"})
                if (dropLinesAfterStep(output / file, start) > 0)
                    log(std::string(file) + ": the steps after " + std::to_string(start) +
                        " that the stopped run logged are left out");
    }
    const bool autocast = config.mixedPrecision && load.placement.device == ModelDevice::Cuda;

    // A collective: every rank's moments go into the one file the leader writes.
    const auto saveCheckpoint = [&](std::int64_t step) {
        const fs::path folder = checkpointFolder(output, step);
        if (leader)
            saveModelFolder(*model, folder.string(), tokenizerPath, ModelDType::Float32);
        optimizer.save((folder / "optimizer.safetensors").string());
        if (!leader) {
            comm->barrier();
            return;
        }
        nlohmann::json saved = nlohmann::json::object();
        for (const auto& [name, r] : records)
            saved[name] = {
                {"attempts", r.attempts}, {"reward_sum", r.rewardSum}, {"correct", r.correct}};
        writeFileAtomically((folder / "trainer_state.json").string(),
                            textOf(nlohmann::json{{"step", step}, {"records", saved}}, 2) + "\n");
        pruneCheckpoints(output, config.keepCheckpoints);
        if (comm)
            comm->barrier();
    };

    // With mixed precision on CUDA, rollouts are sampled by a bfloat16 copy of the float32 master
    // weights, refreshed after every update: the decoding engine's cached, graph-replayed passes
    // and fused kernels run in the model's own dtype, not under autocast.
    std::unique_ptr<Qwen3Model> samplingCopy;
    bool samplingCopyStale = false;
    if (autocast)
        samplingCopy = model->copyAs(ModelDType::BFloat16);
    const auto samplingModel = [&]() -> Qwen3Model& {
        if (!samplingCopy)
            return *model;
        if (samplingCopyStale)
            samplingCopy->copyWeightsFrom(*model);
        samplingCopyStale = false;
        return *samplingCopy;
    };

    const auto sampleAll = [&](const std::vector<std::vector<std::int64_t>>& prompts,
                               SamplerOptions options, std::uint64_t seed,
                               const std::function<void(std::size_t)>& progress,
                               std::size_t firstSequence) {
        options.maskId = maskId;
        options.stopIds = stopIds;
        options.vocabLimit = tokenizer.vocabSize();
        options.cancel = hooks.cancel;
        at::NoGradGuard noGrad;
        CachePaging paging;
        paging.pageTokens = config.rolloutPageTokens;
        paging.tokens = config.rolloutCacheTokens;
        Qwen3Network network(samplingModel(), paging);
        // Continuous batching: rolloutBatch rows, each refilled with the next prompt as soon as
        // its sequence finishes, so a step's uneven answers keep the batch full.
        options.maxActive = std::max(1, config.rolloutBatch);
        options.seed = splitmix64(seed);
        options.firstSequence = firstSequence;
        const std::size_t every =
            std::max<std::size_t>(1, static_cast<std::size_t>(options.maxActive) / 4);
        std::size_t done = 0;
        auto results = generate(network, prompts, options, [&](const DecodeStep& e) {
            if (e.kind == DecodeStep::Kind::Finished &&
                (++done % every == 0 || done == prompts.size()))
                progress(done);
        });
        return results;
    };
    const auto answerText = [&](const std::vector<std::int64_t>& tokens) {
        std::vector<std::int64_t> kept;
        for (auto id : tokens)
            if (id != maskId)
                kept.push_back(id);
        return tokenizer.decode(kept, true);
    };

    const auto evaluate = [&](std::int64_t step) {
        std::vector<std::vector<std::int64_t>> prompts;
        std::vector<RlPrompt> asked;
        for (std::size_t i = 0; i < evalPool->tasks().size(); ++i) {
            asked.push_back(evalPool->prompt(i, RlPhaseKind::EndToEnd, 0));
            prompts.push_back(chatPromptIds(tokenizer, asked.back().text));
        }
        // The paper evaluates greedily: static decoding, the most likely token.
        SamplerOptions greedy = config.sampler;
        greedy.temperature = 0;
        greedy.strategy = RemaskStrategy::LowConfidenceStatic;
        greedy.maxTokens = config.evalMaxTokens;
        status.set({{"state", "evaluating"}, {"step", step}}, true);
        // Each rank answers and judges its share of the tasks.
        const auto [first, end] = shareOf(prompts.size(), rank, rankCount);
        const std::vector<std::vector<std::int64_t>> share(prompts.begin() + first,
                                                           prompts.begin() + end);
        const auto results = sampleAll(
            share, greedy, config.seed, [](std::size_t) {}, first);
        std::vector<RewardItem> items;
        for (std::size_t i = 0; i < evalPool->tasks().size(); ++i)
            items.push_back(
                {"native", evalPool->tasks()[i].task, "",
                 i >= first && i < end
                     ? evalPool->candidate(asked[i], answerText(results[i - first].tokens))
                     : std::string(),
                 evalPool->tasks()[i].task.name + ".dice"});
        if (device.is_cuda())
            releaseCachedDeviceMemory();
        const std::vector<RewardItem> mine(items.begin() + first, items.begin() + end);
        std::vector<nlohmann::json> judgedShare;
        for (const Judged& j : judge.judge(mine))
            judgedShare.push_back(judgedRecord(j));
        std::vector<Judged> judged;
        for (const auto& record : gatherRecords(comm.get(), judgedShare))
            judged.push_back(judgedFromRecord(record));
        failIfNothingWasJudged(judged);
        int correct = 0;
        double total = 0;
        nlohmann::json tasks = nlohmann::json::array();
        for (std::size_t i = 0; i < judged.size(); ++i) {
            correct += judged[i].reward.correct ? 1 : 0;
            total += judged[i].reward.value;
            tasks.push_back({{"task", items[i].task.name},
                             {"level", items[i].task.level},
                             {"verdict", toString(judged[i].evaluation.verdict)},
                             {"correct", judged[i].reward.correct},
                             {"reward", judged[i].reward.value}});
        }
        if (!leader)
            return;
        const nlohmann::json line = {
            {"step", step},
            {"tasks", judged.size()},
            {"correct", correct},
            {"exec", judged.empty() ? 0.0 : static_cast<double>(correct) / judged.size()},
            {"mean_reward", judged.empty() ? 0.0 : total / judged.size()},
            {"results", tasks}};
        std::ofstream(output / "eval.jsonl", std::ios::app) << textOf(line) << "\n";
        log("evaluation at step " + std::to_string(step) + ": " + std::to_string(correct) + " of " +
            std::to_string(judged.size()) + " correct");
    };

    RlReport report;
    report.firstStep = start;
    if (start == 0 && evalPool)
        evaluate(0);
    std::ofstream metrics;
    if (leader)
        metrics.open(output / "metrics.jsonl", std::ios::app);
    const std::int64_t total = config.totalSteps();
    std::int64_t step = start;
    for (; step < total; ++step) {
        if (leader)
            for (const char* control : {"STOP", "PAUSE"})
                if (fs::exists(output / control, ec) && report.stopReason.empty())
                    report.stopReason = std::string(control) == "STOP" ? "stopped" : "paused";
        if (hooks.cancel && hooks.cancel->load() && report.stopReason.empty())
            report.stopReason = "cancelled";
        // The ranks stop together: at the first rank's reason, in rank order.
        if (comm)
            for (const std::string& reason : comm->allGatherText(report.stopReason))
                if (!reason.empty()) {
                    report.stopReason = reason;
                    break;
                }
        if (!report.stopReason.empty())
            break;

        // The phase of this step and its place in it.
        std::size_t phase = 0;
        std::int64_t phaseStep = step;
        while (phaseStep >= config.phases[phase].steps) {
            phaseStep -= config.phases[phase].steps;
            ++phase;
        }
        const RlPhaseKind kind = config.phases[phase].kind;
        const RlTaskPool& pool = pools[phase];
        std::vector<std::size_t> candidates;
        if (kind == RlPhaseKind::Infill) {
            candidates = pool.infillable();
        } else {
            candidates.resize(pool.tasks().size());
            std::iota(candidates.begin(), candidates.end(), std::size_t(0));
        }
        if (candidates.empty())
            throw Error("the " + toString(kind) + " phase has no task it can ask");
        const auto picked = scheduleStep(config.schedule, pool, candidates, config.tasksPerStep,
                                         phaseStep, records, config.seed);
        const auto stepStart = Clock::now();
        if (device.is_cuda())
            resetPeakDeviceMemory(device.index());
        nlohmann::json state = {{"state", "sampling"},
                                {"step", step + 1},
                                {"steps", total},
                                {"phase", toString(kind)},
                                {"phase_step", phaseStep + 1}};

        // Prompts: one per picked task, each asked rolloutsPerTask times.
        std::vector<StepPrompt> prompts;
        std::vector<std::vector<std::int64_t>> sampled;
        for (std::size_t k = 0; k < picked.size(); ++k) {
            StepPrompt p;
            p.prompt = pool.prompt(picked[k], kind, splitmix64(config.seed + step * 131 + k));
            p.ids = chatPromptIds(tokenizer, p.prompt.text);
            if (static_cast<std::int64_t>(p.ids.size()) > config.maxPromptTokens) {
                log("step " + std::to_string(step + 1) + ": the prompt of " +
                    pool.tasks()[picked[k]].task.name + " is longer than " +
                    std::to_string(config.maxPromptTokens) + " tokens; left out");
                continue;
            }
            for (int g = 0; g < config.rolloutsPerTask; ++g)
                sampled.push_back(p.ids);
            prompts.push_back(std::move(p));
        }
        const auto group = static_cast<std::size_t>(config.rolloutsPerTask);
        state["rollouts"] = sampled.size();
        // Each rank samples and judges the groups of its share; the sequences keep the random
        // streams of their place in the whole step.
        const auto [firstGroup, endGroup] = shareOf(prompts.size(), rank, rankCount);
        const std::vector<std::vector<std::int64_t>> share(sampled.begin() + firstGroup * group,
                                                           sampled.begin() + endGroup * group);
        const auto generated = sampleAll(
            share, config.sampler, config.seed ^ splitmix64(static_cast<std::uint64_t>(step)),
            [&](std::size_t done) {
                state["sampled"] = done;
                state["seconds"] = secondsSince(stepStart);
                status.set(state);
            },
            firstGroup * group);
        const double sampleSeconds = secondsSince(stepStart);
        bool cancelled = hooks.cancel && hooks.cancel->load();
        if (comm)
            cancelled = comm->any(cancelled);
        if (cancelled) {
            report.stopReason = "cancelled";
            break;
        }
        std::vector<Rollout> rollouts(generated.size());
        std::vector<RewardItem> items;
        const auto finishRollout = [&](Rollout& r) {
            r.answer = answerText(r.tokens);
            r.candidate = pool.candidate(prompts[r.prompt].prompt, r.answer);
            const RlTask& task = pool.tasks()[prompts[r.prompt].prompt.task];
            items.push_back({"native", task.task, "", r.candidate, task.task.name + ".dice"});
        };
        for (std::size_t i = 0; i < generated.size(); ++i) {
            Rollout& r = rollouts[i];
            r.prompt = firstGroup + i / group;
            r.tokens = generated[i].tokens;
            r.commitStep = generated[i].commitStep;
            r.tail = generated[i].tailTokens;
            r.tailStep = generated[i].tailCommitStep;
            r.finish = generated[i].reason;
            finishRollout(r);
        }

        // Judging. The sampler's cache blocks go back to the driver first: the reward service's
        // workers share this GPU, and memory the trainer's allocator keeps unused is memory they
        // run out of (correct kernels came back not run or failed on the H200 without this).
        if (device.is_cuda())
            releaseCachedDeviceMemory();
        const auto judgeStart = Clock::now();
        state["state"] = "judging";
        status.set(state, true);
        auto judged =
            judge.judge(items, [&](std::size_t done, std::size_t, std::size_t, const Judged&) {
                state["judged"] = done;
                state["seconds"] = secondsSince(stepStart);
                status.set(state);
            });
        const double judgeSeconds = secondsSince(judgeStart);
        if (comm) {
            // Every rank gets the whole step: the same groups to standardise, the same records
            // for the schedule, the same rollouts to deal out in the update.
            std::vector<nlohmann::json> mine;
            for (std::size_t i = 0; i < rollouts.size(); ++i) {
                const Rollout& r = rollouts[i];
                mine.push_back({{"tokens", r.tokens},
                                {"commit_step", r.commitStep},
                                {"tail", r.tail},
                                {"tail_step", r.tailStep},
                                {"finish", static_cast<int>(r.finish)},
                                {"judged", judgedRecord(judged[i])}});
            }
            const auto all = gatherRecords(comm.get(), mine);
            rollouts.assign(all.size(), Rollout());
            items.clear();
            judged.clear();
            for (std::size_t i = 0; i < all.size(); ++i) {
                Rollout& r = rollouts[i];
                r.prompt = i / group;
                r.tokens = all[i].at("tokens").get<std::vector<std::int64_t>>();
                r.commitStep = all[i].at("commit_step").get<std::vector<std::int64_t>>();
                r.tail = all[i].at("tail").get<std::vector<std::int64_t>>();
                r.tailStep = all[i].at("tail_step").get<std::vector<std::int64_t>>();
                r.finish = static_cast<FinishReason>(all[i].at("finish").get<int>());
                finishRollout(r);
                judged.push_back(judgedFromRecord(all[i].at("judged")));
            }
        }
        failIfNothingWasJudged(judged);
        std::int64_t sampledTokens = 0;
        for (const Rollout& r : rollouts)
            sampledTokens += static_cast<std::int64_t>(r.tokens.size());
        std::vector<double> rewards;
        int correct = 0;
        int hacks = 0;
        for (std::size_t i = 0; i < rollouts.size(); ++i) {
            rollouts[i].judged = judged[i];
            rewards.push_back(judged[i].reward.value);
            correct += judged[i].reward.correct ? 1 : 0;
            hacks += judged[i].reward.hack ? 1 : 0;
            auto& record = records[items[i].task.name];
            ++record.attempts;
            record.rewardSum += judged[i].reward.value;
            record.correct += judged[i].reward.correct ? 1 : 0;
        }
        std::vector<double> advantages;
        std::vector<bool> kept;
        standardiseGroups(rewards, group, advantages, kept);
        std::vector<TraceRollout> traces;
        for (std::size_t i = 0; i < rollouts.size(); ++i) {
            rollouts[i].advantage = advantages[i];
            rollouts[i].kept = kept[i] && !rollouts[i].tokens.empty();
            if (rollouts[i].kept)
                traces.push_back({prompts[rollouts[i].prompt].ids, rollouts[i].tokens,
                                  rollouts[i].commitStep, advantages[i], rollouts[i].tail,
                                  rollouts[i].tailStep});
        }

        // TraceRL: the old policy's log-probabilities, then one epoch of clipped updates.
        const auto updateStart = Clock::now();
        state["state"] = "updating";
        status.set(state, true);
        TraceUpdateOptions update;
        update.microBatch = config.microBatch;
        update.accumulation = config.accumulation;
        update.clipNorm = config.clipNorm;
        update.loss.clipEpsilon = config.clipEpsilon;
        update.loss.klBeta = config.klBeta;
        update.blockLength = config.sampler.blockLength;
        update.maskId = maskId;
        update.padId = padId;
        update.vocabLimit = tokenizer.vocabSize();
        update.autocast = autocast;
        update.communicator = comm.get();
        update.buckets = buckets.get();
        update.progress = [&](std::size_t done, std::size_t of) {
            state["updated"] = done;
            state["micro_batches"] = of;
            state["seconds"] = secondsSince(stepStart);
            status.set(state);
        };
        TraceUpdateStats u;
        try {
            u = traceRlUpdate(*model, optimizer, traces, update);
            samplingCopyStale = samplingCopyStale || u.optimizerSteps > 0;
        } catch (const Error& e) {
            throw Error("step " + std::to_string(step + 1) + ": " + e.what());
        }
        const double updateSeconds = secondsSince(updateStart);

        // What the step did, for the run folder.
        if (leader) {
            std::ofstream file(output / "rollouts" / (std::to_string(step + 1) + ".jsonl"));
            for (std::size_t i = 0; i < rollouts.size(); ++i) {
                const Rollout& r = rollouts[i];
                const StepPrompt& p = prompts[r.prompt];
                nlohmann::json line = {{"step", step + 1},
                                       {"phase", toString(kind)},
                                       {"task", pool.tasks()[p.prompt.task].task.name},
                                       {"level", pool.tasks()[p.prompt.task].task.level},
                                       {"group", r.prompt},
                                       {"prompt", p.prompt.text},
                                       {"answer", r.answer},
                                       {"candidate", r.candidate},
                                       {"prompt_tokens", p.ids.size()},
                                       {"tokens", r.tokens},
                                       {"commit_step", r.commitStep},
                                       {"finish", toString(r.finish)},
                                       {"verdict", toString(r.judged.evaluation.verdict)},
                                       {"message", r.judged.evaluation.message},
                                       {"reward", toJson(r.judged.reward)},
                                       {"advantage", r.advantage},
                                       {"kept", r.kept}};
                if (kind == RlPhaseKind::Infill)
                    line["hole"] = p.prompt.hole;
                file << textOf(line) << "\n";
            }
        }
        const double meanReward =
            rewards.empty() ? 0.0
                            : std::accumulate(rewards.begin(), rewards.end(), 0.0) / rewards.size();
        double spread = 0;
        for (double r : rewards)
            spread += (r - meanReward) * (r - meanReward);
        spread = rewards.empty() ? 0.0 : std::sqrt(spread / rewards.size());
        // Per level, so that a curriculum's progress shows level by level.
        std::map<int, std::pair<int, int>> byLevel;
        for (std::size_t i = 0; i < rollouts.size(); ++i) {
            auto& [asked, right] = byLevel[items[i].task.level];
            ++asked;
            right += rollouts[i].judged.reward.correct ? 1 : 0;
        }
        nlohmann::json levels = nlohmann::json::object();
        for (const auto& [level, counts] : byLevel)
            levels[std::to_string(level)] = {{"rollouts", counts.first},
                                             {"correct", counts.second}};
        const nlohmann::json line = {
            {"step", step + 1},
            {"phase", toString(kind)},
            {"phase_step", phaseStep + 1},
            {"tasks", prompts.size()},
            {"rollouts", rollouts.size()},
            {"mean_reward", meanReward},
            {"correct", correct},
            {"correct_share",
             rollouts.empty() ? 0.0 : static_cast<double>(correct) / rollouts.size()},
            {"reward_std", spread},
            {"levels", levels},
            {"hacks", hacks},
            {"groups_kept", traces.size() / std::max<std::size_t>(1, group)},
            {"groups", prompts.size()},
            {"rollouts_kept", traces.size()},
            {"loss_policy", u.microBatches ? u.policy / u.microBatches : 0.0},
            {"kl", u.microBatches ? u.kl / u.microBatches : 0.0},
            {"clip_fraction", u.microBatches ? u.clipped / u.microBatches : 0.0},
            {"entropy", u.targets ? u.entropy / static_cast<double>(u.targets) : 0.0},
            {"ratio_mean", u.microBatches ? u.ratio / u.microBatches : 1.0},
            {"grad_norm", u.gradNorm},
            {"optimizer_steps", u.optimizerSteps},
            {"targets", u.targets},
            {"learning_rate", config.learningRate},
            {"sampled_tokens", sampledTokens},
            {"answer_tokens",
             rollouts.empty() ? 0.0 : static_cast<double>(sampledTokens) / rollouts.size()},
            {"sample_seconds", sampleSeconds},
            {"judge_seconds", judgeSeconds},
            {"update_seconds", updateSeconds},
            {"old_policy_seconds", u.oldPolicySeconds},
            {"peak_memory_bytes", device.is_cuda() ? peakDeviceMemory(device.index()) : 0},
            {"ranks", rankCount},
            {"buckets_overlapped", u.bucketsOverlapped},
            {"tokens_per_second", sampleSeconds > 0 ? sampledTokens / sampleSeconds : 0.0},
            {"seconds", secondsSince(begin)}};
        if (leader)
            metrics << line.dump() << "\n" << std::flush;
        log("step " + std::to_string(step + 1) + "/" + std::to_string(total) + " (" +
            toString(kind) + "): mean reward " + std::to_string(meanReward) + ", " +
            std::to_string(correct) + "/" + std::to_string(rollouts.size()) + " correct, " +
            std::to_string(traces.size()) + " rollouts kept, " +
            std::to_string(static_cast<int>(sampleSeconds)) + " s sampling, " +
            std::to_string(static_cast<int>(judgeSeconds)) + " s judging, " +
            std::to_string(static_cast<int>(updateSeconds)) + " s updating");

        const bool last = step + 1 == total;
        if (evalPool && ((step + 1) % config.evalEvery == 0 || last))
            evaluate(step + 1);
        if (config.saveEvery > 0 && (step + 1) % config.saveEvery == 0 && !last)
            saveCheckpoint(step + 1);
    }
    report.steps = step;
    report.stopped = !report.stopReason.empty();
    if (step > start)
        saveCheckpoint(step);
    if (!report.stopped && total > 0) {
        report.modelFolder = (output / "model").string();
        if (leader)
            saveModelFolder(*model, report.modelFolder, tokenizerPath, config.saveDType);
        if (comm)
            comm->barrier();
    }
    report.seconds = secondsSince(begin);
    status.set({{"state", report.stopped ? report.stopReason : "finished"},
                {"step", step},
                {"steps", total},
                {"seconds", report.seconds}},
               true);
    return report;
}

} // namespace

} // namespace dice
