// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

namespace dice {

// The protections dice-evald applies to itself before it starts any thread: no core dumps, a
// file-size and a process limit, no_new_privs, and (where the kernel allows it) a user and a
// network namespace of its own, so that nothing running in the worker reaches the network.
// RLIMIT_AS is left alone: CUDA reserves far more address space than it uses. Returns what was
// applied, in plain words, for the worker's hello reply.
nlohmann::json applyWorkerSandbox(bool isolateNetwork);

} // namespace dice
