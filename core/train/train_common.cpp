// SPDX-License-Identifier: GPL-3.0-or-later
#include <torch/torch.h>
#include <torch/version.h>

#include "core/train/train_common.h"

#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/model/safetensors_torch.h"

#include <algorithm>
#include <cstdio>

namespace dice {

namespace fs = std::filesystem;

void saveModelFolder(const Qwen3Model& model, const std::string& folder,
                     const std::string& tokenizerPath, ModelDType dtype) {
    const fs::path target(folder);
    const fs::path temporary = target.string() + ".tmp";
    std::error_code ec;
    fs::remove_all(temporary, ec);
    fs::create_directories(temporary, ec);
    if (ec)
        throw FileError(temporary.string(), "cannot create: " + ec.message());
    ModelConfig config = model.config();
    config.torchDtype = toString(dtype) == "bf16"   ? "bfloat16"
                        : toString(dtype) == "fp16" ? "float16"
                                                    : "float32";
    writeFileAtomically((temporary / "config.json").string(), modelConfigToJson(config));
    GenerationConfig generation = model.generationConfig();
    if (generation.eosTokenIds.empty())
        generation.eosTokenIds = config.eosTokenIds;
    writeFileAtomically((temporary / "generation_config.json").string(),
                        generationConfigToJson(generation));
    const auto scalar = dtype == ModelDType::BFloat16  ? torch::kBFloat16
                        : dtype == ModelDType::Float16 ? torch::kFloat16
                                                       : torch::kFloat32;
    std::vector<std::pair<std::string, at::Tensor>> weights;
    {
        at::NoGradGuard noGrad;
        for (const auto& [name, tensor] : model.namedWeights())
            weights.emplace_back(name, tensor.detach().to(torch::kCPU, scalar).contiguous());
    }
    saveSafetensors((temporary / "model.safetensors").string(), weights, {{"format", "pt"}});
    fs::copy_file(tokenizerPath, temporary / "tokenizer.json", fs::copy_options::overwrite_existing,
                  ec);
    if (ec)
        throw FileError(tokenizerPath, "cannot copy into the model folder: " + ec.message());
    fs::remove_all(target, ec);
    fs::rename(temporary, target, ec);
    if (ec)
        throw FileError(target.string(), "cannot replace: " + ec.message());
}

} // namespace dice
