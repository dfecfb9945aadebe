// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/native_evaluator.h"
#include "core/worker/worker_service.h"

namespace dice {

// Adds the "compile" and "evaluate" requests of dice-evald (docs/worker-protocol.md) to a
// service. The evaluator must outlive the service.
void addEvaluationHandlers(WorkerService& service, NativeEvaluator& evaluator);

} // namespace dice
