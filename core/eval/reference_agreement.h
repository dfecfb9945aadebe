// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/tasks/task.h"

namespace dice {

// Whether `other`'s reference computes what `task`'s computes: both run on the CPU with `task`'s
// small-preset inputs and parameters, and `other`'s outputs are compared with `task`'s within
// `task`'s tolerance. A correct answer to one is then a correct answer to the other (a kernel
// for rectangular matrix products multiplies square ones too). False when either reference fails
// on those tensors, its outputs differ in layout, or `task` has no small preset.
bool referencesAgree(const Task& task, const Task& other);

} // namespace dice
