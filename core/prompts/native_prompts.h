// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/tasks/task.h"

#include <string>

// The prompts of the native dialect, as the embedded model is trained on them and as the Generate
// and Infill areas ask it: a short statement of the task (title, description, tensors, the
// TorchScript reference) and, for infilling, the skeleton with the one hole to fill. The answer to
// a generation prompt is a whole .dice candidate; to an infilling prompt, the text of the hole.
namespace dice {

std::string nativeGenerationPrompt(const Task& task);
// `skeleton` holds the hole marker named `hole` (other holes already filled).
std::string nativeInfillPrompt(const Task& task, const std::string& skeleton,
                               const std::string& hole);

} // namespace dice
