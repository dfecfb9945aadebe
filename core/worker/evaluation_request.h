// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/eval_options.h"
#include "core/tasks/task.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace dice {

// What a "compile" or an "evaluate" request of dice-evald carries (docs/worker-protocol.md): the
// task itself, so that the worker needs no task files, the candidate and the options.
struct EvaluationRequest {
    Task task;
    std::string source;
    std::string name = "candidate.dice"; // the candidate's file name in diagnostics
    EvalOptions options;
};

// The request's fields: "task" (the task file's content), "task_path", "candidate" and "options".
nlohmann::json toJson(const EvaluationRequest& request);
// Reads those fields of a request; throws Error naming the field that is wrong, FileError for a
// task that breaks the task format.
EvaluationRequest evaluationRequestFromJson(const nlohmann::json& body);

} // namespace dice
