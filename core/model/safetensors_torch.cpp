// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>
#include <torch/version.h>

#include "core/model/safetensors_torch.h"

#include "core/common/error.h"

#include <optional>

namespace dice {

namespace {

#define DICE_TORCH_AT_LEAST(major, minor)                                                          \
    (TORCH_VERSION_MAJOR > (major) ||                                                              \
     (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

std::optional<at::ScalarType> scalarType(SafetensorsDType dtype) {
    switch (dtype) {
    case SafetensorsDType::Bool:
        return at::kBool;
    case SafetensorsDType::U8:
        return at::kByte;
    case SafetensorsDType::I8:
        return at::kChar;
    case SafetensorsDType::I16:
        return at::kShort;
    case SafetensorsDType::I32:
        return at::kInt;
    case SafetensorsDType::I64:
        return at::kLong;
    case SafetensorsDType::F16:
        return at::kHalf;
    case SafetensorsDType::BF16:
        return at::kBFloat16;
    case SafetensorsDType::F32:
        return at::kFloat;
    case SafetensorsDType::F64:
        return at::kDouble;
    case SafetensorsDType::C64:
        return at::kComplexFloat;
#if DICE_TORCH_AT_LEAST(2, 3)
    case SafetensorsDType::U16:
        return at::kUInt16;
    case SafetensorsDType::U32:
        return at::kUInt32;
    case SafetensorsDType::U64:
        return at::kUInt64;
#endif
#if DICE_TORCH_AT_LEAST(2, 1)
    case SafetensorsDType::F8_E4M3:
        return at::ScalarType::Float8_e4m3fn;
    case SafetensorsDType::F8_E5M2:
        return at::ScalarType::Float8_e5m2;
#endif
#if DICE_TORCH_AT_LEAST(2, 2)
    case SafetensorsDType::F8_E4M3FNUZ:
        return at::ScalarType::Float8_e4m3fnuz;
    case SafetensorsDType::F8_E5M2FNUZ:
        return at::ScalarType::Float8_e5m2fnuz;
#endif
    default:
        return std::nullopt;
    }
}

std::optional<SafetensorsDType> fileDType(at::ScalarType type) {
    for (int i = 0; i <= static_cast<int>(SafetensorsDType::F6_E3M2); ++i) {
        const auto candidate = static_cast<SafetensorsDType>(i);
        if (scalarType(candidate) == type)
            return candidate;
    }
    return std::nullopt;
}

} // namespace

at::Tensor safetensorsTensor(const std::shared_ptr<const SafetensorsFile>& file,
                             const SafetensorsEntry& entry) {
    const auto type = scalarType(entry.dtype);
    if (!type)
        throw FileError(file->path(), "tensor '" + entry.name + "' has the dtype " +
                                          std::string(toString(entry.dtype)) +
                                          ", which this LibTorch cannot represent");
    auto keep = file;
    // from_blob never writes through the pointer; the const is restored by the read-only mapping.
    void* data = const_cast<unsigned char*>(file->data(entry));
    return torch::from_blob(
        data, entry.shape, [keep](void*) mutable { keep.reset(); },
        torch::TensorOptions().dtype(*type));
}

void saveSafetensors(const std::string& path,
                     const std::vector<std::pair<std::string, at::Tensor>>& tensors,
                     const std::map<std::string, std::string>& metadata) {
    std::vector<at::Tensor> hostCopies;
    std::vector<SafetensorsBlob> blobs;
    hostCopies.reserve(tensors.size());
    for (const auto& [name, tensor] : tensors) {
        const auto dtype = fileDType(tensor.scalar_type());
        if (!dtype)
            throw Error("cannot write " + path + ": tensor '" + name + "' has a dtype (" +
                        std::string(c10::toString(tensor.scalar_type())) +
                        ") that safetensors cannot store");
        hostCopies.push_back(tensor.detach().to(torch::kCPU).contiguous());
        const auto& host = hostCopies.back();
        SafetensorsBlob blob;
        blob.name = name;
        blob.dtype = *dtype;
        blob.shape = host.sizes().vec();
        blob.data = host.data_ptr();
        blob.bytes = static_cast<std::uint64_t>(host.numel()) * host.element_size();
        blobs.push_back(std::move(blob));
    }
    writeSafetensors(path, blobs, metadata);
}

} // namespace dice
