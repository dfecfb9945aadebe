// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/safetensors.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace at {
class Tensor;
}

namespace dice {

// The entry as a CPU tensor over the file's mapping (no copy); the tensor keeps the mapping
// alive. The memory is read-only: copy before writing. Throws FileError when this LibTorch has no
// matching dtype.
at::Tensor safetensorsTensor(const std::shared_ptr<const SafetensorsFile>& file,
                             const SafetensorsEntry& entry);

// Writes tensors (any device; they are copied to the CPU in their own dtype) as a safetensors file.
void saveSafetensors(const std::string& path,
                     const std::vector<std::pair<std::string, at::Tensor>>& tensors,
                     const std::map<std::string, std::string>& metadata = {});

} // namespace dice
