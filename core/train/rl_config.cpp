// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/rl_config.h"

#include "core/common/error.h"
#include "core/common/json_depth.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <set>

namespace dice {

namespace {

// Reads one JSON object's fields, refusing those it does not know, naming `where` in errors.
class Fields {
public:
    Fields(const nlohmann::json& json, std::string where, std::set<std::string> known)
        : m_json(json)
        , m_where(std::move(where)) {
        if (!json.is_object())
            fail("", "must be a JSON object");
        for (const auto& item : json.items())
            if (!known.count(item.key()))
                fail(item.key(), "is not a field here");
    }

    [[noreturn]] void fail(const std::string& key, const std::string& message) const {
        throw Error("RL configuration: " + m_where + (key.empty() ? "" : "." + key) + " " +
                    message);
    }

    bool has(const char* key) const { return m_json.contains(key); }
    const nlohmann::json& at(const char* key) const { return m_json.at(key); }

    std::string text(const char* key, const std::string& fallback) const {
        if (!has(key))
            return fallback;
        if (!at(key).is_string())
            fail(key, "must be a string");
        return at(key).get<std::string>();
    }

    std::int64_t whole(const char* key, std::int64_t fallback, std::int64_t least,
                       std::int64_t most) const {
        if (!has(key))
            return fallback;
        const auto& v = at(key);
        if (!v.is_number_integer() || v.get<long long>() < least || v.get<long long>() > most)
            fail(key, "must be a whole number from " + std::to_string(least) + " to " +
                          std::to_string(most));
        return v.get<long long>();
    }

    double number(const char* key, double fallback, double least, double most) const {
        if (!has(key))
            return fallback;
        const auto& v = at(key);
        if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < least ||
            v.get<double>() > most)
            fail(key,
                 "must be a number from " + std::to_string(least) + " to " + std::to_string(most));
        return v.get<double>();
    }

    bool flag(const char* key, bool fallback) const {
        if (!has(key))
            return fallback;
        if (!at(key).is_boolean())
            fail(key, "must be true or false");
        return at(key).get<bool>();
    }

    std::string where(const char* key) const { return m_where + "." + key; }

private:
    const nlohmann::json& m_json;
    std::string m_where;
};

RlData dataFromJson(const nlohmann::json& json, const std::string& where) {
    if (json.is_string()) {
        RlData d;
        d.tasks = json.get<std::string>();
        return d;
    }
    const Fields f(json, where, {"tasks", "splits", "names", "limit"});
    RlData d;
    d.tasks = f.text("tasks", d.tasks);
    if (d.tasks.empty())
        f.fail("tasks", "must name \"builtin\" or a folder of tasks");
    if (f.has("splits")) {
        if (!f.at("splits").is_array())
            f.fail("splits", "must be a list of corpus splits");
        for (const auto& s : f.at("splits")) {
            if (!s.is_string())
                f.fail("splits", "must be a list of corpus splits");
            d.splits.push_back(s.get<std::string>());
        }
    }
    if (f.has("names")) {
        if (!f.at("names").is_array())
            f.fail("names", "must be a list of task names");
        for (const auto& n : f.at("names")) {
            if (!n.is_string())
                f.fail("names", "must be a list of task names");
            d.names.push_back(n.get<std::string>());
        }
    }
    d.limit = static_cast<int>(f.whole("limit", 0, 0, 1 << 20));
    return d;
}

nlohmann::json dataToJson(const RlData& d) {
    return {{"tasks", d.tasks}, {"splits", d.splits}, {"names", d.names}, {"limit", d.limit}};
}

} // namespace

std::string toString(RlPhaseKind kind) {
    return kind == RlPhaseKind::Infill ? "infill" : "end_to_end";
}

std::string toString(RlSchedule schedule) {
    return schedule == RlSchedule::Adaptive ? "adaptive" : "sequential";
}

std::int64_t RlConfig::totalSteps() const {
    std::int64_t total = 0;
    for (const auto& p : phases)
        total += p.steps;
    return total;
}

nlohmann::json toJson(const RlConfig& c) {
    nlohmann::json phases = nlohmann::json::array();
    for (const auto& p : c.phases)
        phases.push_back(
            {{"kind", toString(p.kind)}, {"steps", p.steps}, {"data", dataToJson(p.data)}});
    const SamplerOptions& s = c.sampler;
    // No held-out tasks is no data at all, as a configuration file says it.
    nlohmann::json evaluation = {{"every", c.evalEvery}, {"max_tokens", c.evalMaxTokens}};
    if (!c.evalData.tasks.empty())
        evaluation["data"] = dataToJson(c.evalData);
    return {
        {"model", c.model},
        {"output", c.output},
        {"device", c.device},
        {"threads", c.threads},
        {"seed", c.seed},
        {"phases", phases},
        {"schedule", toString(c.schedule)},
        {"tasks_per_step", c.tasksPerStep},
        {"rollouts_per_task", c.rolloutsPerTask},
        {"max_prompt_tokens", c.maxPromptTokens},
        {"rollout",
         {{"block_length", s.blockLength},
          {"steps", s.steps},
          {"strategy", toString(s.strategy)},
          {"threshold", s.threshold},
          {"temperature", s.temperature},
          {"top_k", s.topK},
          {"top_p", s.topP},
          {"max_tokens", s.maxTokens},
          {"batch", c.rolloutBatch},
          {"fused_sampling", s.fusedSampling},
          {"page_tokens", c.rolloutPageTokens},
          {"cache_tokens", c.rolloutCacheTokens}}},
        {"reward", toJson(c.reward)},
        {"judge",
         {{"devices", c.judgeDevices},
          {"compile_threads", c.compileThreads},
          {"idle_timeout_s", c.judgeIdleTimeoutS},
          {"spare_workers", c.spareWorkers},
          {"guided_chunks", c.guidedChunks},
          {"compile_lookahead", c.compileLookahead}}},
        {"optimizer",
         {{"learning_rate", c.learningRate},
          {"beta1", c.beta1},
          {"beta2", c.beta2},
          {"weight_decay", c.weightDecay},
          {"epsilon", c.epsilon},
          {"clip_norm", c.clipNorm},
          {"micro_batch", c.microBatch},
          {"accumulation", c.accumulation},
          {"mixed_precision", c.mixedPrecision},
          {"gradient_checkpointing", c.gradientCheckpointing},
          {"attention_chunk", c.attentionChunk}}},
        {"trace_rl", {{"clip_epsilon", c.clipEpsilon}, {"kl_beta", c.klBeta}}},
        {"eval", evaluation},
        {"save_every", c.saveEvery},
        {"keep_checkpoints", c.keepCheckpoints},
        {"save_dtype", c.saveDType == ModelDType::BFloat16 ? "bfloat16" : "float32"},
        {"distributed", {{"bucket_mb", c.bucketMegabytes}, {"timeout_s", c.collectiveTimeoutS}}}};
}

RlConfig rlConfigFromJson(const nlohmann::json& given) {
    // Far deeper than any configuration; a value nested hundreds of thousands of levels deep
    // would exhaust the stack when it is copied below.
    constexpr std::size_t kMaxDepth = 64;
    if (jsonNestingDepth(given, kMaxDepth) > kMaxDepth)
        throw Error("RL configuration: nests arrays and objects deeper than " +
                    std::to_string(kMaxDepth) + " levels");
    // A preset is the base that the file's own fields change.
    nlohmann::json json = given;
    if (json.is_object() && json.contains("preset")) {
        if (!json["preset"].is_string())
            throw Error("RL configuration: config.preset must be a preset's name");
        nlohmann::json base = rlPreset(json["preset"].get<std::string>());
        json.erase("preset");
        base.merge_patch(json);
        json = base;
    }
    const Fields f(json, "config",
                   {"model",
                    "output",
                    "device",
                    "threads",
                    "seed",
                    "phases",
                    "schedule",
                    "tasks_per_step",
                    "rollouts_per_task",
                    "max_prompt_tokens",
                    "rollout",
                    "reward",
                    "judge",
                    "optimizer",
                    "trace_rl",
                    "eval",
                    "save_every",
                    "keep_checkpoints",
                    "save_dtype",
                    "distributed"});
    RlConfig c;
    c.model = f.text("model", "embedded");
    c.output = f.text("output", "");
    c.device = f.text("device", c.device);
    if (c.device != "cpu" && c.device != "cuda" && c.device.rfind("cuda:", 0) != 0)
        f.fail("device", "must be cpu, cuda or cuda:N");
    c.threads = static_cast<int>(f.whole("threads", 0, 0, 1024));
    if (f.has("seed")) {
        const auto& seed = f.at("seed");
        if (!seed.is_number_integer() || (!seed.is_number_unsigned() && seed.get<long long>() < 0))
            f.fail("seed", "must be a whole number of at least 0");
        c.seed = seed.is_number_unsigned() ? seed.get<std::uint64_t>()
                                           : static_cast<std::uint64_t>(seed.get<long long>());
    }
    if (!f.has("phases") || !f.at("phases").is_array() || f.at("phases").empty())
        f.fail("phases", "must list the phases, each {\"kind\": \"infill\" or \"end_to_end\", "
                         "\"steps\": N, \"data\": ...}");
    for (std::size_t i = 0; i < f.at("phases").size(); ++i) {
        const std::string where = "config.phases[" + std::to_string(i) + "]";
        const Fields p(f.at("phases")[i], where, {"kind", "steps", "data"});
        RlPhase phase;
        const std::string kind = p.text("kind", "end_to_end");
        if (kind == "infill")
            phase.kind = RlPhaseKind::Infill;
        else if (kind != "end_to_end")
            p.fail("kind", "must be \"infill\" or \"end_to_end\"");
        phase.steps = p.whole("steps", 0, 0, 1000000);
        if (p.has("data"))
            phase.data = dataFromJson(p.at("data"), where + ".data");
        c.phases.push_back(phase);
    }
    const std::string schedule = f.text("schedule", "sequential");
    if (schedule == "adaptive")
        c.schedule = RlSchedule::Adaptive;
    else if (schedule != "sequential")
        f.fail("schedule", "must be \"sequential\" or \"adaptive\"");
    c.tasksPerStep = static_cast<int>(f.whole("tasks_per_step", c.tasksPerStep, 1, 100000));
    c.rolloutsPerTask =
        static_cast<int>(f.whole("rollouts_per_task", c.rolloutsPerTask, 2, 100000));
    c.maxPromptTokens = f.whole("max_prompt_tokens", c.maxPromptTokens, 16, 1 << 20);

    c.sampler.temperature = 1.0;
    c.sampler.strategy = RemaskStrategy::LowConfidenceDynamic;
    c.sampler.threshold = 0.9;
    c.sampler.blockLength = 4;
    c.sampler.steps = 4;
    c.sampler.maxTokens = 4096;
    if (f.has("rollout")) {
        const Fields r(f.at("rollout"), "config.rollout",
                       {"block_length", "steps", "strategy", "threshold", "temperature", "top_k",
                        "top_p", "max_tokens", "batch", "fused_sampling", "page_tokens",
                        "cache_tokens"});
        c.sampler.blockLength = r.whole("block_length", c.sampler.blockLength, 1, 64);
        c.sampler.steps = r.whole("steps", c.sampler.steps, 1, 64);
        const auto strategy = parseRemaskStrategy(r.text("strategy", toString(c.sampler.strategy)));
        if (!strategy)
            r.fail("strategy", "must be static, dynamic, sequential or entropy");
        c.sampler.strategy = *strategy;
        c.sampler.threshold = r.number("threshold", c.sampler.threshold, 0, 1);
        c.sampler.temperature = r.number("temperature", c.sampler.temperature, 0, 10);
        c.sampler.topK = r.whole("top_k", 0, 0, 1 << 20);
        c.sampler.topP = r.number("top_p", 1.0, 0.0, 1.0);
        c.sampler.maxTokens = r.whole("max_tokens", c.sampler.maxTokens, 1, 1 << 20);
        c.rolloutBatch = static_cast<int>(r.whole("batch", c.rolloutBatch, 1, 4096));
        c.sampler.fusedSampling = r.flag("fused_sampling", c.sampler.fusedSampling);
        c.rolloutPageTokens = r.whole("page_tokens", c.rolloutPageTokens, 0, 1 << 20);
        if (c.rolloutPageTokens % 32 != 0)
            r.fail("page_tokens", "must be a multiple of 32 (0: not paged)");
        c.rolloutCacheTokens = r.whole("cache_tokens", c.rolloutCacheTokens, 0, 1LL << 40);
        if (c.rolloutCacheTokens > 0 && c.rolloutPageTokens == 0)
            r.fail("cache_tokens", "is for a paged cache: give page_tokens too");
    }
    if (f.has("reward"))
        c.reward = rewardOptionsFromJson(f.at("reward"));
    if (f.has("judge")) {
        const Fields j(f.at("judge"), "config.judge",
                       {"devices", "compile_threads", "idle_timeout_s", "spare_workers",
                        "guided_chunks", "compile_lookahead"});
        if (j.has("devices")) {
            if (!j.at("devices").is_array() || j.at("devices").empty())
                j.fail("devices", "must list GPU indices");
            c.judgeDevices.clear();
            for (const auto& d : j.at("devices")) {
                if (!d.is_number_integer() || d.get<long long>() < 0 || d.get<long long>() > 1024)
                    j.fail("devices", "must list GPU indices");
                c.judgeDevices.push_back(static_cast<int>(d.get<long long>()));
            }
        }
        c.compileThreads = static_cast<int>(j.whole("compile_threads", c.compileThreads, 1, 64));
        c.judgeIdleTimeoutS =
            static_cast<int>(j.whole("idle_timeout_s", c.judgeIdleTimeoutS, 1, 3600));
        c.spareWorkers = j.flag("spare_workers", c.spareWorkers);
        c.guidedChunks = j.flag("guided_chunks", c.guidedChunks);
        c.compileLookahead =
            static_cast<int>(j.whole("compile_lookahead", c.compileLookahead, 0, 4096));
    }
    if (f.has("optimizer")) {
        const Fields o(f.at("optimizer"), "config.optimizer",
                       {"learning_rate", "beta1", "beta2", "weight_decay", "epsilon", "clip_norm",
                        "micro_batch", "accumulation", "mixed_precision", "gradient_checkpointing",
                        "attention_chunk"});
        c.learningRate = o.number("learning_rate", c.learningRate, 0, 1);
        c.beta1 = o.number("beta1", c.beta1, 0, 0.999999);
        c.beta2 = o.number("beta2", c.beta2, 0, 0.999999);
        c.weightDecay = o.number("weight_decay", c.weightDecay, 0, 10);
        c.epsilon = o.number("epsilon", c.epsilon, 1e-20, 1);
        c.clipNorm = o.number("clip_norm", c.clipNorm, 0, 1e6);
        c.microBatch = static_cast<int>(o.whole("micro_batch", c.microBatch, 1, 4096));
        c.accumulation = static_cast<int>(o.whole("accumulation", c.accumulation, 1, 1 << 20));
        c.mixedPrecision = o.flag("mixed_precision", c.mixedPrecision);
        c.gradientCheckpointing = o.flag("gradient_checkpointing", c.gradientCheckpointing);
        c.attentionChunk = o.whole("attention_chunk", c.attentionChunk, 0, 1 << 20);
    }
    if (f.has("trace_rl")) {
        const Fields t(f.at("trace_rl"), "config.trace_rl", {"clip_epsilon", "kl_beta"});
        c.clipEpsilon = t.number("clip_epsilon", c.clipEpsilon, 0, 10);
        c.klBeta = t.number("kl_beta", c.klBeta, 0, 100);
    }
    c.evalData.tasks.clear();
    if (f.has("eval")) {
        const Fields e(f.at("eval"), "config.eval", {"every", "data", "max_tokens"});
        c.evalEvery = e.whole("every", c.evalEvery, 0, 1000000);
        if (e.has("data"))
            c.evalData = dataFromJson(e.at("data"), "config.eval.data");
        c.evalMaxTokens = e.whole("max_tokens", c.evalMaxTokens, 1, 1 << 20);
    }
    // A run of no step only evaluates its model (a checkpoint scored on a suite).
    if (c.totalSteps() < 1 && (c.evalData.tasks.empty() || c.evalEvery < 1))
        f.fail("phases", "have no step to run, and there is no evaluation (eval.data) either");
    c.saveEvery = f.whole("save_every", c.saveEvery, 0, 1000000);
    c.keepCheckpoints = static_cast<int>(f.whole("keep_checkpoints", c.keepCheckpoints, 1, 1000));
    const std::string saveDType = f.text("save_dtype", "float32");
    if (saveDType == "bfloat16")
        c.saveDType = ModelDType::BFloat16;
    else if (saveDType != "float32")
        f.fail("save_dtype", "must be \"float32\" or \"bfloat16\"");
    if (f.has("distributed")) {
        const Fields d(f.at("distributed"), "config.distributed", {"bucket_mb", "timeout_s"});
        c.bucketMegabytes = static_cast<int>(d.whole("bucket_mb", c.bucketMegabytes, 1, 4096));
        c.collectiveTimeoutS =
            static_cast<int>(d.whole("timeout_s", c.collectiveTimeoutS, 10, 24 * 3600));
    }
    return c;
}

nlohmann::json rlPreset(const std::string& name) {
    if (name == "paper")
        return {
            {"model", "embedded"},
            {"device", "cuda"},
            {"phases",
             {{{"kind", "infill"}, {"steps", 20}, {"data", {{"tasks", "builtin"}}}},
              {{"kind", "end_to_end"}, {"steps", 100}, {"data", {{"tasks", "builtin"}}}}}},
            {"schedule", "sequential"},
            {"tasks_per_step", 64},
            {"rollouts_per_task", 16},
            {"rollout",
             {{"block_length", 4},
              {"steps", 4},
              {"strategy", "dynamic"},
              {"threshold", 0.9},
              {"temperature", 1.0},
              {"max_tokens", 4096}}},
            {"reward", {{"mode", "correctness"}, {"tolerance", 1e-2}, {"correctness_trials", 1}}},
            {"optimizer", {{"learning_rate", 1e-6}, {"accumulation", 32}, {"clip_norm", 1.0}}},
            {"trace_rl", {{"clip_epsilon", 0.2}, {"kl_beta", 0.01}}},
            {"eval", {{"every", 10}, {"max_tokens", 4096}}},
            {"save_every", 10}};
    if (name == "cpu-demo") {
        // The built-in tasks the embedded model can write. With at most 320 tokens the answers
        // that ramble are cut off and do not compile, so a group's rewards differ and the run
        // learns to finish its kernel within its budget: measured on two cores, the mean reward
        // went from under 0.1 to 0.6-1.0 and the greedy score from 1 to 5 of 6 within 8 steps
        // (docs/rl.md). It fills none of their skeletons yet, so the infilling phase is one step,
        // to show it.
        const nlohmann::json tasks = {
            {"tasks", "builtin"},
            {"names", {"relu", "gelu", "silu", "tanh", "sigmoid", "leaky_relu"}}};
        return {{"model", "embedded"},
                {"device", "cpu"},
                {"phases",
                 {{{"kind", "infill"}, {"steps", 1}, {"data", tasks}},
                  {{"kind", "end_to_end"}, {"steps", 10}, {"data", tasks}}}},
                {"schedule", "adaptive"},
                {"tasks_per_step", 3},
                {"rollouts_per_task", 8},
                {"rollout",
                 {{"block_length", 4},
                  {"steps", 4},
                  {"strategy", "dynamic"},
                  {"threshold", 0.9},
                  {"temperature", 0.7},
                  {"max_tokens", 320},
                  {"batch", 24}}},
                // Without a GPU a kernel cannot run: a candidate earns its reward by compiling
                // and passing the dry run of its host code (the reference's shapes and dtypes).
                {"reward", {{"mode", "compile"}}},
                {"judge", {{"compile_threads", 2}}},
                {"optimizer",
                 {{"learning_rate", 5e-5},
                  {"accumulation", 2},
                  {"micro_batch", 4},
                  {"clip_norm", 1.0},
                  // Two cores have memory to spare and no time: keep the activations.
                  {"gradient_checkpointing", false},
                  // The doubled layout's mask is three quarters false; on two cores the update
                  // took a third (rows of 384 cells) to two thirds (768) less time in chunks.
                  {"attention_chunk", 64}}},
                {"trace_rl", {{"clip_epsilon", 0.2}, {"kl_beta", 0.01}}},
                {"eval", {{"every", 4}, {"data", tasks}, {"max_tokens", 320}}},
                {"save_every", 4}};
    }
    throw Error("no RL preset \"" + name + "\" (paper, cpu-demo)");
}

} // namespace dice
