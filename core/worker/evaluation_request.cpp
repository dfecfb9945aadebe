// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/worker/evaluation_request.h"

#include "core/common/error.h"

#include <nlohmann/json.hpp>

namespace dice {

nlohmann::json toJson(const EvaluationRequest& request) {
    return {{"task", toJson(request.task)},
            {"task_path", request.task.path},
            {"candidate", {{"source", request.source}, {"name", request.name}}},
            {"options", toJson(request.options)}};
}

EvaluationRequest evaluationRequestFromJson(const nlohmann::json& body) {
    EvaluationRequest r;
    if (!body.contains("task") || !body["task"].is_object())
        throw Error("request field \"task\" must be a task object (docs/task-format.md)");
    const std::string origin = body.contains("task_path") && body["task_path"].is_string()
                                   ? body["task_path"].get<std::string>()
                                   : std::string("task");
    r.task = taskFromJson(body["task"], origin);
    if (!body.contains("candidate") || !body["candidate"].is_object())
        throw Error("request field \"candidate\" must be an object with \"source\"");
    const auto& candidate = body["candidate"];
    if (!candidate.contains("source") || !candidate["source"].is_string())
        throw Error("request field \"candidate.source\" must be a string");
    r.source = candidate["source"].get<std::string>();
    if (candidate.contains("name") && candidate["name"].is_string())
        r.name = candidate["name"].get<std::string>();
    if (body.contains("options"))
        r.options = evalOptionsFromJson(body["options"]);
    return r;
}

} // namespace dice
