// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/worker/evaluation_handlers.h"

#include "core/common/error.h"
#include "core/tasks/task.h"

namespace dice {

namespace {

struct EvaluationRequest {
    Task task;
    std::string source;
    std::string name;
    EvalOptions options;
};

EvaluationRequest readRequest(const nlohmann::json& body) {
    EvaluationRequest r;
    if (!body.contains("task") || !body["task"].is_object())
        throw Error("request field \"task\" must be a task object (docs/task-format.md)");
    const std::string origin = body.contains("task_path") && body["task_path"].is_string()
                                   ? body["task_path"].get<std::string>()
                                   : std::string("task");
    r.task = parseTask(body["task"].dump(), origin);
    if (!body.contains("candidate") || !body["candidate"].is_object())
        throw Error("request field \"candidate\" must be an object with \"source\"");
    const auto& candidate = body["candidate"];
    if (!candidate.contains("source") || !candidate["source"].is_string())
        throw Error("request field \"candidate.source\" must be a string");
    r.source = candidate["source"].get<std::string>();
    r.name = candidate.contains("name") && candidate["name"].is_string()
                 ? candidate["name"].get<std::string>()
                 : std::string("candidate.dice");
    if (body.contains("options"))
        r.options = evalOptionsFromJson(body["options"]);
    return r;
}

} // namespace

void addEvaluationHandlers(WorkerService& service, NativeEvaluator& evaluator) {
    service.addHandler(
        "compile", [&evaluator](const protocol::Request& request, const WorkerService::Emit& send) {
            const EvaluationRequest r = readRequest(request.body);
            std::string ptx;
            const EvaluationResult result =
                evaluator.compile(r.task, r.source, r.name, r.options, &ptx);
            send(protocol::makeResult(request.id, {{"evaluation", toJson(result)}, {"ptx", ptx}}));
        });
    service.addHandler("evaluate", [&evaluator, &service](const protocol::Request& request,
                                                          const WorkerService::Emit& send) {
        const EvaluationRequest r = readRequest(request.body);
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
