// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>

#include "core/eval/native_inputs.h"

#include "core/common/error.h"
#include "core/common/splitmix.h"
#include "core/model/safetensors.h"
#include "core/model/safetensors_torch.h"

#include <cmath>
#include <filesystem>

namespace dice::native {

c10::ScalarType scalarType(DType dtype) {
    switch (dtype) {
    case DType::Float32:
        return c10::ScalarType::Float;
    case DType::Float16:
        return c10::ScalarType::Half;
    case DType::BFloat16:
        return c10::ScalarType::BFloat16;
    case DType::Float64:
        return c10::ScalarType::Double;
    case DType::Int32:
        return c10::ScalarType::Int;
    case DType::Int64:
        return c10::ScalarType::Long;
    case DType::Bool:
        return c10::ScalarType::Bool;
    }
    return c10::ScalarType::Float;
}

std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t salt) {
    return splitmix64(seed + 0x9E3779B97F4A7C15ULL * salt) & 0x7FFFFFFFFFFFFFFFULL;
}

at::Tensor makeTensor(const Task& task, const TensorSpec& spec, const std::string& preset,
                      std::uint64_t seed, const c10::Device& device) {
    const auto shape = task.shape(spec, preset);
    const auto floatOptions = torch::TensorOptions().dtype(torch::kFloat32).device(device);
    const auto target = scalarType(spec.dtype);
    torch::manual_seed(seed);
    const InitSpec& init = spec.init;
    at::Tensor t;
    switch (init.kind) {
    case InitSpec::Kind::Normal:
        t = torch::randn(shape, floatOptions).mul_(init.b).add_(init.a);
        break;
    case InitSpec::Kind::Uniform:
        t = torch::rand(shape, floatOptions).mul_(init.b - init.a).add_(init.a);
        break;
    case InitSpec::Kind::RandInt:
        t = torch::randint(static_cast<int64_t>(init.a), static_cast<int64_t>(init.b), shape,
                           torch::TensorOptions().dtype(torch::kInt64).device(device));
        break;
    case InitSpec::Kind::Bernoulli:
        t = torch::rand(shape, floatOptions).lt(init.a);
        break;
    case InitSpec::Kind::UniformFanIn: {
        // nn.Linear's and nn.Conv's default initialisation: U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
        const double bound = 1.0 / std::sqrt(task.evaluate(init.fanIn, preset));
        t = torch::rand(shape, floatOptions).mul_(2 * bound).sub_(bound);
        break;
    }
    case InitSpec::Kind::Ones:
        t = torch::ones(shape, floatOptions);
        break;
    case InitSpec::Kind::File: {
        // Imported parameters (the problem's seeded weights), beside the task file. Their shape
        // does not depend on the preset, so they serve every trial unchanged.
        const std::string path =
            (std::filesystem::path(task.path).parent_path() / init.file).string();
        const auto file = SafetensorsFile::open(path);
        const SafetensorsEntry* entry = file->header().find(init.tensor);
        if (!entry)
            throw FileError(path, "has no tensor \"" + init.tensor + "\" for " + spec.name);
        const at::Tensor stored = safetensorsTensor(file, *entry);
        if (stored.sizes() != at::IntArrayRef(shape))
            throw FileError(path, init.tensor + " has the shape " + c10::str(stored.sizes()) +
                                      ", but " + spec.name + " needs " +
                                      c10::str(at::IntArrayRef(shape)));
        t = stored.to(device, target, false, true);
        break;
    }
    }
    return t.scalar_type() == target ? t : t.to(target);
}

std::vector<at::Tensor> makeTensors(const Task& task, const std::vector<TensorSpec>& specs,
                                    const std::string& preset, std::uint64_t seed,
                                    const c10::Device& device) {
    std::vector<at::Tensor> out;
    for (std::size_t i = 0; i < specs.size(); ++i)
        out.push_back(makeTensor(task, specs[i], preset, mixSeed(seed, i), device));
    return out;
}

} // namespace dice::native
