// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/worker/evaluation_handlers.h"

#include "core/common/error.h"
#include "core/worker/evaluation_request.h"

#include <vector>

namespace dice {

namespace {

// A request whose text had to be repaired is evaluated as repaired, and the result says so: the
// candidate that ran is not byte for byte the one that was sent.
void noteRepairedText(const protocol::Request& request, EvaluationResult& result) {
    if (request.utf8Replaced == 0)
        return;
    result.flags.push_back(
        {"invalid_utf8", "the request held " + std::to_string(request.utf8Replaced) +
                             " byte sequence(s) that are not UTF-8; each was replaced by U+FFFD "
                             "before the candidate was read"});
}

// A batch is many candidates, each a "compile"/"evaluate" body (docs/worker-protocol.md).
constexpr std::size_t kMaxBatchItems = 4096;
constexpr int kMaxCompileThreads = 64;
constexpr int kMaxCompileLookahead = 4096;

std::vector<NativeEvaluator::BatchItem> batchItems(const nlohmann::json& body) {
    if (!body.contains("items") || !body["items"].is_array() || body["items"].empty())
        throw Error("request field \"items\" must be a non-empty list of candidates");
    if (body["items"].size() > kMaxBatchItems)
        throw Error("a batch holds at most " + std::to_string(kMaxBatchItems) + " candidates");
    std::vector<NativeEvaluator::BatchItem> items;
    for (std::size_t i = 0; i < body["items"].size(); ++i) {
        try {
            EvaluationRequest r = evaluationRequestFromJson(body["items"][i]);
            items.push_back(
                {std::move(r.task), std::move(r.source), std::move(r.name), std::move(r.options)});
        } catch (const Error& e) {
            throw Error("item " + std::to_string(i) + ": " + e.what());
        }
    }
    return items;
}

// A request's whole-number field from 1 to `most`; `absent` when the request leaves it out.
int wholeField(const nlohmann::json& body, const char* name, int most, int absent) {
    if (!body.contains(name))
        return absent;
    const auto& value = body[name];
    if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > most)
        throw Error(std::string("request field \"") + name +
                    "\" must be a whole number from 1 to " + std::to_string(most));
    return static_cast<int>(value.get<long long>());
}

} // namespace

void addEvaluationHandlers(WorkerService& service, NativeEvaluator& evaluator) {
    service.addHandler(
        "compile", [&evaluator](const protocol::Request& request, const WorkerService::Emit& send) {
            const EvaluationRequest r = evaluationRequestFromJson(request.body);
            std::string ptx;
            EvaluationResult result = evaluator.compile(r.task, r.source, r.name, r.options, &ptx);
            noteRepairedText(request, result);
            send(protocol::makeResult(request.id, {{"evaluation", toJson(result)}, {"ptx", ptx}}));
        });
    service.addHandler("evaluate", [&evaluator, &service](const protocol::Request& request,
                                                          const WorkerService::Emit& send) {
        const EvaluationRequest r = evaluationRequestFromJson(request.body);
        const auto progress = [&](const std::string& stage, double fraction,
                                  const std::string& message) {
            send(protocol::makeProgress(request.id, stage, fraction, message));
        };
        EvaluationResult result = evaluator.evaluate(r.task, r.source, r.name, r.options, progress);
        noteRepairedText(request, result);
        const bool restart = evaluator.contextLost();
        send(protocol::makeResult(request.id,
                                  {{"evaluation", toJson(result)}, {"restart", restart}}));
        if (restart)
            service.requestExit();
    });
    // The owner of several workers on one GPU lets one of them have more of its memory while the
    // others are idle, to judge again what ran out of memory beside them.
    service.addHandler("memory_share", [&evaluator](const protocol::Request& request,
                                                    const WorkerService::Emit& send) {
        const auto& share =
            request.body.contains("share") ? request.body["share"] : nlohmann::json();
        if (!share.is_number() || !(share.get<double>() > 0.0) || share.get<double>() > 1.0)
            throw Error("request field \"share\" must be a number above 0 and at most 1");
        evaluator.setGpuMemoryShare(share.get<double>());
        send(protocol::makeResult(request.id, {{"share", share.get<double>()}}));
    });
    // Each item's result goes out as it is known, in order, as a progress line with "item" and
    // "evaluation"; the final reply says how many were evaluated. After a fault the worker exits
    // and the owner sends the rest to a fresh one.
    service.addHandler("evaluate_batch", [&evaluator, &service](const protocol::Request& request,
                                                                const WorkerService::Emit& send) {
        const std::vector<NativeEvaluator::BatchItem> items = batchItems(request.body);
        const int threads = wholeField(request.body, "compile_threads", kMaxCompileThreads, 1);
        // 0: the evaluator's own lookahead.
        const int lookahead = wholeField(request.body, "lookahead", kMaxCompileLookahead, 0);
        const auto progress = [&](const std::string& stage, double fraction,
                                  const std::string& message) {
            send(protocol::makeProgress(request.id, stage, fraction, message));
        };
        const std::size_t evaluated = evaluator.evaluateBatch(
            items, threads, lookahead,
            [&](std::size_t i, const EvaluationResult& result) {
                EvaluationResult noted = result;
                noteRepairedText(request, noted);
                nlohmann::json message = protocol::makeProgress(
                    request.id, "item", static_cast<double>(i + 1) / items.size(),
                    "candidate " + std::to_string(i + 1) + " of " + std::to_string(items.size()));
                message["item"] = i;
                message["evaluation"] = toJson(noted);
                send(message);
            },
            progress);
        const bool restart = evaluator.contextLost();
        send(protocol::makeResult(request.id, {{"evaluated", evaluated}, {"restart", restart}}));
        if (restart)
            service.requestExit();
    });
}

} // namespace dice
