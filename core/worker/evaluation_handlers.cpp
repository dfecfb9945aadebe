// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/worker/evaluation_handlers.h"

#include "core/worker/evaluation_request.h"

namespace dice {

void addEvaluationHandlers(WorkerService& service, NativeEvaluator& evaluator) {
    service.addHandler(
        "compile", [&evaluator](const protocol::Request& request, const WorkerService::Emit& send) {
            const EvaluationRequest r = evaluationRequestFromJson(request.body);
            std::string ptx;
            const EvaluationResult result =
                evaluator.compile(r.task, r.source, r.name, r.options, &ptx);
            send(protocol::makeResult(request.id, {{"evaluation", toJson(result)}, {"ptx", ptx}}));
        });
    service.addHandler("evaluate", [&evaluator, &service](const protocol::Request& request,
                                                          const WorkerService::Emit& send) {
        const EvaluationRequest r = evaluationRequestFromJson(request.body);
        const auto progress = [&](const std::string& stage, double fraction,
                                  const std::string& message) {
            send(protocol::makeProgress(request.id, stage, fraction, message));
        };
        const EvaluationResult result =
            evaluator.evaluate(r.task, r.source, r.name, r.options, progress);
        const bool restart = evaluator.contextLost();
        send(protocol::makeResult(request.id,
                                  {{"evaluation", toJson(result)}, {"restart", restart}}));
        if (restart)
            service.requestExit();
    });
}

} // namespace dice
