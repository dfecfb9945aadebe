// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/worker/evaluation_handlers.h"

#include "core/worker/evaluation_request.h"

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
}

} // namespace dice
