// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/system/sandbox.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dice {

// What dice-evald may reach once it has confined itself (docs/sandbox.md): it reads the system's
// folders, the folders of the libraries it has loaded, the CUDA toolkit, the workbench's data and
// the folders named here (those of the tasks' parameter files); it writes nowhere but private,
// empty /tmp and /dev/shm; it opens only the plain and the GPU's device files; it runs no program;
// no network, no core dumps, the system-call filter of every sandboxed process. The user's files
// are out of its reach, whatever a candidate's host code or a flaw in its checks would try.
SandboxPolicy workerSandboxPolicy(const std::vector<std::string>& readableFolders);

// Confines the calling process with workerSandboxPolicy(readableFolders); the process must still
// have a single thread (a process with threads cannot enter a new user namespace). Returns what
// was applied, layer by layer, for the worker's hello reply.
nlohmann::json applyWorkerSandbox(const std::vector<std::string>& readableFolders);

} // namespace dice
