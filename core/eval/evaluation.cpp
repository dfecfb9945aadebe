// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/eval/evaluation.h"

#include "core/common/error.h"

#include <nlohmann/json.hpp>

namespace dice {

namespace {

const std::pair<Verdict, const char*> kVerdictNames[] = {
    {Verdict::Correct, "correct"},
    {Verdict::Incorrect, "incorrect"},
    {Verdict::CompileError, "compile_error"},
    {Verdict::InvalidCandidate, "invalid_candidate"},
    {Verdict::RuntimeError, "runtime_error"},
    {Verdict::Timeout, "timeout"},
    {Verdict::Fallback, "fallback"},
    {Verdict::NotRun, "not_run"},
};

const std::pair<WorkerState, const char*> kWorkerStateNames[] = {
    {WorkerState::Unrecorded, ""},
    {WorkerState::Ok, "ok"},
    {WorkerState::StartedAgain, "ok (started again)"},
    {WorkerState::RestartedAfterFault, "restarted after a fault"},
    {WorkerState::RestartedAfterTimeout, "restarted after a timeout"},
    {WorkerState::RestartedAfterCrash, "restarted after a crash"},
    {WorkerState::NotStarted, "not started"},
    {WorkerState::Unavailable, "unavailable"},
};

// Result files of earlier versions name a native worker's fault so.
const char kEarlierFaultText[] = "restarted after a fault (the CUDA context was lost)";

nlohmann::json timingToJson(const TimingStats& t) {
    return {{"method", t.method},      {"warmups", t.warmups}, {"trials", t.trials},
            {"median_ms", t.medianMs}, {"mean_ms", t.meanMs},  {"std_ms", t.stdMs},
            {"min_ms", t.minMs},       {"max_ms", t.maxMs},    {"samples_ms", t.samplesMs}};
}

TimingStats timingFromJson(const nlohmann::json& j) {
    TimingStats t;
    t.method = j.value("method", std::string());
    t.warmups = j.value("warmups", 0);
    t.trials = j.value("trials", 0);
    t.medianMs = j.value("median_ms", 0.0);
    t.meanMs = j.value("mean_ms", 0.0);
    t.stdMs = j.value("std_ms", 0.0);
    t.minMs = j.value("min_ms", 0.0);
    t.maxMs = j.value("max_ms", 0.0);
    if (j.contains("samples_ms"))
        t.samplesMs = j.at("samples_ms").get<std::vector<double>>();
    return t;
}

} // namespace

std::string toString(Verdict verdict) {
    for (const auto& [v, name] : kVerdictNames)
        if (v == verdict)
            return name;
    return "not_run";
}

std::optional<Verdict> parseVerdict(const std::string& text) {
    for (const auto& [v, name] : kVerdictNames)
        if (text == name)
            return v;
    return std::nullopt;
}

std::string toString(WorkerState state) {
    for (const auto& [s, name] : kWorkerStateNames)
        if (s == state)
            return name;
    return "";
}

std::optional<WorkerState> parseWorkerState(const std::string& text) {
    for (const auto& [s, name] : kWorkerStateNames)
        if (text == name)
            return s;
    if (text == kEarlierFaultText)
        return WorkerState::RestartedAfterFault;
    return std::nullopt;
}

bool EvaluationResult::hasFlag(const std::string& code) const {
    for (const auto& f : flags)
        if (f.code == code)
            return true;
    return false;
}

bool EvaluationResult::countsAsCorrect(bool strict) const {
    if (verdict == Verdict::Correct)
        return true;
    // A fallback that computed the right values counts only when not strict.
    if (verdict == Verdict::Fallback && !strict) {
        if (trials.empty())
            return false;
        for (const auto& t : trials)
            if (!t.passed)
                return false;
        return true;
    }
    return false;
}

nlohmann::json toJson(const EvaluationResult& r) {
    nlohmann::json j;
    j["task"] = r.task;
    j["level"] = r.level;
    j["dialect"] = r.dialect;
    j["preset"] = r.preset;
    j["verdict"] = toString(r.verdict);
    j["message"] = r.message;
    j["compiled"] = r.compiled;
    j["compile_ms"] = r.compileMs;
    j["diagnostics"] = nlohmann::json::array();
    for (const auto& d : r.diagnostics)
        j["diagnostics"].push_back({{"file", d.file},
                                    {"line", d.line},
                                    {"column", d.column},
                                    {"severity", toString(d.severity)},
                                    {"code", d.code},
                                    {"message", d.message}});
    j["resources"] = nlohmann::json::array();
    for (const auto& u : r.resources)
        j["resources"].push_back({{"function", u.function},
                                  {"architecture", u.architecture},
                                  {"registers", u.registers},
                                  {"barriers", u.barriers},
                                  {"shared_bytes", u.sharedBytes},
                                  {"constant_bytes", u.constantBytes},
                                  {"stack_frame_bytes", u.stackFrameBytes},
                                  {"spill_store_bytes", u.spillStoreBytes},
                                  {"spill_load_bytes", u.spillLoadBytes}});
    j["launches_per_call"] = r.launchesPerCall;
    j["trials"] = nlohmann::json::array();
    for (const auto& t : r.trials)
        j["trials"].push_back({{"trial", t.trial},
                               {"seed", t.seed},
                               {"passed", t.passed},
                               {"max_abs_error", t.maxAbsError},
                               {"max_rel_error", t.maxRelError},
                               {"detail", t.detail}});
    if (r.candidateTime)
        j["candidate_time"] = timingToJson(*r.candidateTime);
    if (r.referenceTime)
        j["reference_time"] = timingToJson(*r.referenceTime);
    if (r.candidateKernelTime)
        j["candidate_kernel_time"] = timingToJson(*r.candidateKernelTime);
    if (r.referenceKernelTime)
        j["reference_kernel_time"] = timingToJson(*r.referenceKernelTime);
    if (r.roundTripCheck) {
        const RoundTripCheck& c = *r.roundTripCheck;
        j["timing_check"] = {
            {"method", "worker_round_trip"},   {"ping_median_ms", c.pingMedianMs},
            {"ping_p90_ms", c.pingP90Ms},      {"allowance_ms", c.allowanceMs},
            {"raised_calls", c.raisedCalls},   {"underreported_calls", c.underreportedCalls},
            {"ping_workload", c.pingWorkload}, {"ping_overheads_ms", c.pingOverheadsMs},
            {"copy_bytes", c.copyBytes},       {"reported_ms", c.reportedMs},
            {"round_trip_ms", c.roundTripMs},  {"exchange", c.exchange}};
    }
    j["speedup"] = r.speedup;
    j["speedup_of_means"] = r.speedupOfMeans;
    j["physical_bound_ms"] = r.physicalBoundMs;
    j["flags"] = nlohmann::json::array();
    for (const auto& f : r.flags)
        j["flags"].push_back({{"code", f.code}, {"message", f.message}});
    j["device"] = r.device;
    j["worker_state"] = toString(r.workerState);
    j["wall_ms"] = r.wallMs;
    j["gpu_ms"] = r.gpuMs;
    if (r.outOfMemory)
        j["out_of_memory"] = true;
    if (!r.stagesMs.empty())
        j["stages_ms"] = r.stagesMs;
    return j;
}

EvaluationResult evaluationFromJson(const nlohmann::json& j) {
    if (!j.is_object())
        throw Error("evaluation result is not a JSON object");
    EvaluationResult r;
    try {
        r.task = j.value("task", std::string());
        r.level = j.value("level", 1);
        r.dialect = j.value("dialect", std::string("native"));
        r.preset = j.value("preset", std::string("bench"));
        const std::string verdict = j.value("verdict", std::string("not_run"));
        const auto parsed = parseVerdict(verdict);
        if (!parsed)
            throw Error("unknown verdict \"" + verdict + "\"");
        r.verdict = *parsed;
        r.message = j.value("message", std::string());
        r.compiled = j.value("compiled", false);
        r.compileMs = j.value("compile_ms", 0.0);
        for (const auto& d : j.value("diagnostics", nlohmann::json::array())) {
            Diagnostic diag;
            diag.file = d.value("file", std::string());
            diag.line = d.value("line", 0);
            diag.column = d.value("column", 0);
            const std::string severity = d.value("severity", std::string("error"));
            diag.severity = severity == "warning"  ? Severity::Warning
                            : severity == "remark" ? Severity::Remark
                                                   : Severity::Error;
            diag.code = d.value("code", std::string());
            diag.message = d.value("message", std::string());
            r.diagnostics.push_back(diag);
        }
        for (const auto& u : j.value("resources", nlohmann::json::array())) {
            ResourceUsage usage;
            usage.function = u.value("function", std::string());
            usage.architecture = u.value("architecture", std::string());
            usage.registers = u.value("registers", 0);
            usage.barriers = u.value("barriers", 0);
            usage.sharedBytes = u.value("shared_bytes", 0);
            usage.constantBytes = u.value("constant_bytes", 0);
            usage.stackFrameBytes = u.value("stack_frame_bytes", 0);
            usage.spillStoreBytes = u.value("spill_store_bytes", 0);
            usage.spillLoadBytes = u.value("spill_load_bytes", 0);
            r.resources.push_back(usage);
        }
        r.launchesPerCall = j.value("launches_per_call", 0);
        for (const auto& t : j.value("trials", nlohmann::json::array())) {
            TrialResult trial;
            trial.trial = t.value("trial", 0);
            trial.seed = t.value("seed", std::uint64_t{0});
            trial.passed = t.value("passed", false);
            trial.maxAbsError = t.value("max_abs_error", 0.0);
            trial.maxRelError = t.value("max_rel_error", 0.0);
            trial.detail = t.value("detail", std::string());
            r.trials.push_back(trial);
        }
        if (j.contains("candidate_time"))
            r.candidateTime = timingFromJson(j["candidate_time"]);
        if (j.contains("reference_time"))
            r.referenceTime = timingFromJson(j["reference_time"]);
        if (j.contains("candidate_kernel_time"))
            r.candidateKernelTime = timingFromJson(j["candidate_kernel_time"]);
        if (j.contains("reference_kernel_time"))
            r.referenceKernelTime = timingFromJson(j["reference_kernel_time"]);
        if (j.contains("timing_check")) {
            const auto& t = j["timing_check"];
            if (!t.is_object())
                throw Error("timing_check is not a JSON object");
            RoundTripCheck c;
            c.pingMedianMs = t.value("ping_median_ms", 0.0);
            c.pingP90Ms = t.value("ping_p90_ms", 0.0);
            c.allowanceMs = t.value("allowance_ms", 0.0);
            c.raisedCalls = t.value("raised_calls", 0);
            c.underreportedCalls = t.value("underreported_calls", 0);
            c.pingWorkload = t.value("ping_workload", std::string());
            c.pingOverheadsMs = t.value("ping_overheads_ms", std::vector<double>{});
            c.copyBytes = t.value("copy_bytes", 0.0);
            c.exchange = t.value("exchange", std::string());
            c.reportedMs = t.value("reported_ms", std::vector<double>{});
            c.roundTripMs = t.value("round_trip_ms", std::vector<double>{});
            r.roundTripCheck = c;
        }
        r.speedup = j.value("speedup", 0.0);
        r.speedupOfMeans = j.value("speedup_of_means", 0.0);
        r.physicalBoundMs = j.value("physical_bound_ms", 0.0);
        for (const auto& f : j.value("flags", nlohmann::json::array()))
            r.flags.push_back({f.value("code", std::string()), f.value("message", std::string())});
        r.device = j.value("device", std::string());
        const std::string workerState = j.value("worker_state", std::string());
        const auto parsedState = parseWorkerState(workerState);
        if (!parsedState)
            throw Error("unknown worker state \"" + workerState + "\"");
        r.workerState = *parsedState;
        r.wallMs = j.value("wall_ms", 0.0);
        r.gpuMs = j.value("gpu_ms", 0.0);
        r.outOfMemory = j.value("out_of_memory", false);
        if (j.contains("stages_ms")) {
            const auto& stages = j["stages_ms"];
            if (!stages.is_object())
                throw Error("stages_ms is not a JSON object");
            for (const auto& [stage, ms] : stages.items()) {
                if (!ms.is_number())
                    throw Error("stages_ms: the time of \"" + stage + "\" is not a number");
                r.stagesMs[stage] = ms.get<double>();
            }
        }
    } catch (const nlohmann::json::exception& e) {
        throw Error(std::string("malformed evaluation result: ") + e.what());
    }
    return r;
}

} // namespace dice
