// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

// The operators the native dialect allows in host code (docs/native-dialect.md), by qualified
// name ("aten::empty_like"). Deny by default: an operator on none of these lists makes the
// candidate invalid before its graph runs anywhere; one of the tensor operators PyTorch computes
// with is a fallback.
namespace dice {

// An allocation (empty, zeros, full, their *_like and new_* forms).
bool isHostAllocation(const std::string& op);
// An allocation whose memory is left unwritten: the evaluator poisons it.
bool hostAllocationIsPoisoned(const std::string& op);
// An allocation that takes the device of the tensor it is given unless told otherwise.
bool hostAllocationCopiesDevice(const std::string& op);
// What host code may do with tensors: allocate them, read their metadata, take views, launch.
bool hostOperatorOnTensors(const std::string& op);
// What host code may compute where no tensor goes in or comes out: the arithmetic of shapes and
// launch sizes, comparisons, and the plumbing of lists, strings and exceptions.
bool hostOperatorOnScalars(const std::string& op);

} // namespace dice
