// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dice {

// The architecture of a Qwen3 or SDAR checkpoint, read from its config.json. SDAR is Qwen3 with a
// block size and a mask token; the network is the same.
struct ModelConfig {
    std::string modelType = "qwen3"; // "qwen3" or "sdar"
    std::int64_t hiddenSize = 0;
    std::int64_t numLayers = 0;
    std::int64_t numHeads = 0;
    std::int64_t numKvHeads = 0;
    std::int64_t headDim = 0; // hidden / heads when the file has none
    std::int64_t intermediateSize = 0;
    std::int64_t vocabSize = 0; // rows of the embedding and of lm_head
    double ropeTheta = 1'000'000.0;
    // Supported rope_scaling: none ("default") or "linear" (positions divided by the factor).
    double ropeLinearFactor = 1.0;
    double rmsNormEps = 1e-6;
    bool tieWordEmbeddings = false;
    bool attentionBias = false;
    std::int64_t maxPositionEmbeddings = 32768;
    std::int64_t blockSize = 4;
    std::optional<std::int64_t> maskTokenId;
    std::optional<std::int64_t> bosTokenId;
    std::vector<std::int64_t> eosTokenIds;
    std::optional<std::int64_t> padTokenId;
    std::string torchDtype = "bfloat16"; // as stored: "bfloat16", "float16", "float32"

    std::int64_t groups() const { return numHeads / numKvHeads; }
    // Parameters of the network (embedding, layers, final norm, lm_head unless tied).
    std::int64_t parameterCount() const;
    // Bytes of cached keys and values per token in the given element size.
    std::int64_t kvBytesPerToken(int elementBytes) const;
    // Throws dice::Error naming the field when the values are inconsistent.
    void validate(const std::string& origin) const;
};

// Reads config.json. Throws dice::FileError naming `origin` and the field that is wrong or
// unsupported.
ModelConfig parseModelConfig(const std::string& json, const std::string& origin);
ModelConfig loadModelConfig(const std::string& path);

// generation_config.json: the stop ids (eos_token_id as a number or a list) and the special ids.
struct GenerationConfig {
    std::vector<std::int64_t> eosTokenIds;
    std::optional<std::int64_t> padTokenId;
    std::optional<std::int64_t> bosTokenId;
};

// config.json and generation_config.json as Hugging Face writes them for an SDAR model, so that a
// model the workbench trains or fine-tunes is read back by the workbench and by transformers.
std::string modelConfigToJson(const ModelConfig& config);
std::string generationConfigToJson(const GenerationConfig& config);

GenerationConfig parseGenerationConfig(const std::string& json, const std::string& origin);
GenerationConfig loadGenerationConfig(const std::string& path);

} // namespace dice
