// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/eval/host_operators.h"

#include <set>

namespace dice {

namespace {

const std::set<std::string> kPoisonedAllocations = {"aten::empty", "aten::empty_like",
                                                    "aten::empty_strided", "aten::new_empty",
                                                    "aten::new_empty_strided"};
const std::set<std::string> kFilledAllocations = {
    "aten::zeros",     "aten::zeros_like", "aten::ones",     "aten::ones_like", "aten::full",
    "aten::full_like", "aten::new_zeros",  "aten::new_ones", "aten::new_full"};

// Allocations that copy the device of a tensor they are given unless told otherwise.
const std::set<std::string> kLikeAllocations = {
    "aten::empty_like", "aten::zeros_like", "aten::ones_like",
    "aten::full_like",  "aten::new_empty",  "aten::new_zeros",
    "aten::new_ones",   "aten::new_full",   "aten::new_empty_strided"};

// What host code may do to tensors: allocate them, read their metadata, take views, launch.
const std::set<std::string> kTensorOperators = {"aten::size",
                                                "aten::numel",
                                                "aten::dim",
                                                "aten::stride",
                                                "aten::is_contiguous",
                                                "aten::element_size",
                                                "aten::view",
                                                "aten::reshape",
                                                "aten::unsqueeze",
                                                "aten::squeeze",
                                                "aten::flatten",
                                                "aten::expand",
                                                "aten::t",
                                                "aten::transpose",
                                                "aten::permute",
                                                "aten::select",
                                                "aten::slice",
                                                "aten::len",
                                                "aten::__getitem__",
                                                "aten::append",
                                                "aten::list",
                                                "aten::__is__",
                                                "aten::__isnot__",
                                                "prim::dtype",
                                                "prim::device",
                                                "prim::is_cuda",
                                                "prim::layout",
                                                "prim::Constant",
                                                "prim::ListConstruct",
                                                "prim::ListUnpack",
                                                "prim::TupleConstruct",
                                                "prim::TupleUnpack",
                                                "prim::TupleIndex",
                                                "prim::If",
                                                "prim::Loop",
                                                "prim::RaiseException",
                                                "prim::Uninitialized",
                                                "prim::unchecked_cast",
                                                "prim::isinstance",
                                                "dice::launch"};

// What host code may compute where no tensor goes in or comes out: the arithmetic of shapes and
// launch sizes, comparisons, and TorchScript's plumbing of lists, strings and exceptions. Each
// entry is here because it reads and writes nothing but its own scalar, list or string values.
const std::set<std::string> kScalarOperators = {"aten::add",
                                                "aten::sub",
                                                "aten::mul",
                                                "aten::div",
                                                "aten::floordiv",
                                                "aten::remainder",
                                                "aten::fmod",
                                                "aten::neg",
                                                "aten::pow",
                                                "aten::abs",
                                                "aten::eq",
                                                "aten::ne",
                                                "aten::lt",
                                                "aten::le",
                                                "aten::gt",
                                                "aten::ge",
                                                "aten::__and__",
                                                "aten::__or__",
                                                "aten::__xor__",
                                                "aten::__not__",
                                                "aten::__lshift__",
                                                "aten::__rshift__",
                                                "aten::__round_to_zero_floordiv",
                                                "aten::min",
                                                "aten::max",
                                                "aten::Int",
                                                "aten::Float",
                                                "aten::Bool",
                                                "aten::ceil",
                                                "aten::floor",
                                                "aten::round",
                                                "aten::sqrt",
                                                "aten::exp",
                                                "aten::log",
                                                "aten::log2",
                                                "aten::log10",
                                                "aten::gcd",
                                                "aten::divmod",
                                                "aten::__range_length",
                                                "aten::__derive_index",
                                                "aten::sum",
                                                "aten::all",
                                                "aten::any",
                                                "aten::str",
                                                "aten::format",
                                                "aten::warn",
                                                "aten::__contains__",
                                                "aten::extend",
                                                "aten::insert",
                                                "aten::pop",
                                                "aten::reverse",
                                                "aten::count",
                                                "aten::index",
                                                "aten::copy",
                                                "aten::sort",
                                                "aten::sorted",
                                                "aten::_set_item",
                                                "aten::join",
                                                "prim::min",
                                                "prim::max",
                                                "prim::abs"};

} // namespace

bool isHostAllocation(const std::string& op) {
    return kPoisonedAllocations.count(op) || kFilledAllocations.count(op);
}

bool hostAllocationIsPoisoned(const std::string& op) {
    return kPoisonedAllocations.count(op) != 0;
}

bool hostAllocationCopiesDevice(const std::string& op) {
    return kLikeAllocations.count(op) != 0;
}

bool hostOperatorOnTensors(const std::string& op) {
    return isHostAllocation(op) || kTensorOperators.count(op);
}

bool hostOperatorOnScalars(const std::string& op) {
    return kScalarOperators.count(op) != 0;
}

} // namespace dice
