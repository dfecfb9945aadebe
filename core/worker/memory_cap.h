// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

// The worker's cap on its own host memory. RLIMIT_DATA bounds the private writable memory of the
// process (heap, anonymous mappings, writable data of libraries), which is what host code can
// grow (a list of a billion ints) and what a tensor in host memory would take; it leaves alone
// what CUDA maps to reserve address space or share with the device. RLIMIT_AS cannot be used:
// CUDA reserves far more address space than the machine has memory. An allocation past the cap
// fails inside the request (std::bad_alloc, a LibTorch allocation error), which ends that
// evaluation with runtime_error and leaves the worker serving. GPU memory is capped apart, by
// LibTorch's caching allocator (NativeEvaluator).
namespace dice {

// DICE_EVALD_MEMORY_LIMIT: a number of bytes, with an optional K, M or G (powers of 1024).
// nullopt for an absent variable; throws Error naming the text for one that cannot be read.
std::optional<std::int64_t> memoryLimitFromText(const std::string& text);

// The cap applied when the variable is absent: half the machine's memory, at most 16 GiB.
std::int64_t defaultWorkerMemoryLimit();

// Lowers RLIMIT_DATA to the variable's value or the default (never raises it). Returns what was
// applied, for the worker's hello reply.
nlohmann::json applyWorkerMemoryCap();

} // namespace dice
