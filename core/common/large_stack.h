// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <functional>

// Parsers and compilers that recurse once per level of nesting (TorchScript's among them) overflow
// a thread's default stack on input nested deeply enough, and a stack overflow kills the process.
// Work of that kind runs on a thread of its own whose stack is sized for the largest input the
// caller accepts.
namespace dice {

inline constexpr std::size_t kLargeStackBytes = std::size_t(512) * 1024 * 1024;

// Runs `work` on a new thread with a stack of `stackBytes` and waits for it; an exception thrown
// by `work` is rethrown here. Throws dice::Error when the thread cannot be created. The stack is
// reserved address space: only the pages the work touches take memory.
void runOnLargeStack(const std::function<void()>& work, std::size_t stackBytes = kLargeStackBytes);

} // namespace dice
