// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to the native evaluator: included only by its LibTorch sources.
#include <torch/torch.h>

#include "core/tasks/task.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dice::native {

c10::ScalarType scalarType(DType dtype);

// A well-spread seed for the salt-th trial or tensor drawn from `seed` (splitmix64's output for
// the state seed + salt * its increment), kept below 2^63 for torch::manual_seed.
std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t salt);

// The tensor a spec describes under a preset, drawn from `seed` as its init says; the same seed
// gives the same values. Throws Error for a shape that does not resolve and FileError for a
// missing or mismatched parameter file.
at::Tensor makeTensor(const Task& task, const TensorSpec& spec, const std::string& preset,
                      std::uint64_t seed, const c10::Device& device);

// One tensor per spec, the i-th drawn from mixSeed(seed, i).
std::vector<at::Tensor> makeTensors(const Task& task, const std::vector<TensorSpec>& specs,
                                    const std::string& preset, std::uint64_t seed,
                                    const c10::Device& device);

} // namespace dice::native
