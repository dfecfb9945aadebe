// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/model_config.h"

#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

namespace dice {

namespace {

using nlohmann::json;

json parseObject(const std::string& text, const std::string& origin) {
    json root;
    try {
        root = json::parse(text);
    } catch (const json::exception& e) {
        throw FileError(origin, std::string("not valid JSON: ") + e.what());
    }
    if (!root.is_object())
        throw FileError(origin, "not a JSON object");
    return root;
}

// A value for a message. Containers are named, not printed: dumping recurses once per level of
// nesting, and a hostile file nests millions deep. Text is cut short and kept ASCII (escaped), so
// a cut never splits a character.
std::string describe(const json& value) {
    if (value.is_array())
        return "an array";
    if (value.is_object())
        return "an object";
    std::string text = value.dump(-1, ' ', true);
    if (text.size() > 64)
        text = text.substr(0, 60) + "...";
    return text;
}

const json* field(const json& root, const char* key) {
    const auto found = root.find(key);
    if (found == root.end() || found->is_null())
        return nullptr;
    return &*found;
}

std::int64_t integer(const json& value, const std::string& origin, const std::string& key) {
    if (value.is_number_integer())
        return value.get<std::int64_t>();
    if (value.is_number_float()) {
        const double d = value.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::abs(d) < 9e15)
            return static_cast<std::int64_t>(d);
    }
    throw FileError(origin, "\"" + key + "\" must be an integer, not " + describe(value));
}

std::int64_t requiredInt(const json& root, const char* key, const std::string& origin) {
    const json* value = field(root, key);
    if (!value)
        throw FileError(origin, std::string("has no \"") + key + "\"");
    return integer(*value, origin, key);
}

std::int64_t optionalInt(const json& root, const char* key, std::int64_t fallback,
                         const std::string& origin) {
    const json* value = field(root, key);
    return value ? integer(*value, origin, key) : fallback;
}

std::optional<std::int64_t> maybeInt(const json& root, const char* key, const std::string& origin) {
    const json* value = field(root, key);
    if (!value)
        return std::nullopt;
    return integer(*value, origin, key);
}

double number(const json& root, const char* key, double fallback, const std::string& origin) {
    const json* value = field(root, key);
    if (!value)
        return fallback;
    if (!value->is_number())
        throw FileError(origin,
                        std::string("\"") + key + "\" must be a number, not " + describe(*value));
    return value->get<double>();
}

bool boolean(const json& root, const char* key, bool fallback, const std::string& origin) {
    const json* value = field(root, key);
    if (!value)
        return fallback;
    if (!value->is_boolean())
        throw FileError(origin, std::string("\"") + key + "\" must be true or false, not " +
                                    describe(*value));
    return value->get<bool>();
}

std::vector<std::int64_t> idList(const json& root, const char* key, const std::string& origin) {
    const json* value = field(root, key);
    std::vector<std::int64_t> ids;
    if (!value)
        return ids;
    if (value->is_array()) {
        for (const auto& v : *value)
            ids.push_back(integer(v, origin, key));
    } else {
        ids.push_back(integer(*value, origin, key));
    }
    return ids;
}

// rope_scaling (transformers 4) or rope_parameters (transformers 5, which also moves rope_theta
// there). Only the kinds whose meaning is a plain function of the position are supported.
void readRope(const json& root, ModelConfig& config, const std::string& origin) {
    config.ropeTheta = number(root, "rope_theta", config.ropeTheta, origin);
    for (const char* key : {"rope_scaling", "rope_parameters"}) {
        const json* rope = field(root, key);
        if (!rope)
            continue;
        if (!rope->is_object())
            throw FileError(origin, std::string("\"") + key + "\" must be an object or null");
        config.ropeTheta = number(*rope, "rope_theta", config.ropeTheta, origin);
        std::string type = "default";
        for (const char* typeKey : {"rope_type", "type"}) {
            if (const json* t = field(*rope, typeKey)) {
                if (!t->is_string())
                    throw FileError(origin, std::string("\"") + key + "." + typeKey +
                                                "\" must be a string");
                type = t->get<std::string>();
            }
        }
        if (type == "linear") {
            config.ropeLinearFactor = number(*rope, "factor", 0, origin);
            if (!(config.ropeLinearFactor > 0))
                throw FileError(origin, std::string("\"") + key +
                                            ".factor\" must be a positive number for linear "
                                            "RoPE scaling");
        } else if (type != "default") {
            throw FileError(origin, std::string("\"") + key + "\" of type \"" + type +
                                        "\" is not supported (supported: none, \"default\", "
                                        "\"linear\")");
        }
    }
    if (!(config.ropeTheta > 0) || !std::isfinite(config.ropeTheta))
        throw FileError(origin, "\"rope_theta\" must be a positive number");
}

} // namespace

std::int64_t ModelConfig::parameterCount() const {
    const std::int64_t q = numHeads * headDim, kv = numKvHeads * headDim;
    std::int64_t layer = hiddenSize * (q + 2 * kv) + q * hiddenSize + 2 * headDim +
                         3 * hiddenSize * intermediateSize + 2 * hiddenSize;
    if (attentionBias)
        layer += q + 2 * kv + hiddenSize;
    std::int64_t total = vocabSize * hiddenSize + numLayers * layer + hiddenSize;
    if (!tieWordEmbeddings)
        total += vocabSize * hiddenSize;
    return total;
}

std::int64_t ModelConfig::kvBytesPerToken(int elementBytes) const {
    return numLayers * 2 * numKvHeads * headDim * elementBytes;
}

void ModelConfig::validate(const std::string& origin) const {
    auto positive = [&](std::int64_t v, const char* key) {
        if (v <= 0)
            throw FileError(origin, std::string("\"") + key + "\" must be positive, not " +
                                        std::to_string(v));
    };
    positive(hiddenSize, "hidden_size");
    positive(numLayers, "num_hidden_layers");
    positive(numHeads, "num_attention_heads");
    positive(numKvHeads, "num_key_value_heads");
    positive(headDim, "head_dim");
    positive(intermediateSize, "intermediate_size");
    positive(vocabSize, "vocab_size");
    positive(maxPositionEmbeddings, "max_position_embeddings");
    positive(blockSize, "block_size");
    if (numHeads % numKvHeads != 0)
        throw FileError(origin, "\"num_attention_heads\" (" + std::to_string(numHeads) +
                                    ") is not a multiple of \"num_key_value_heads\" (" +
                                    std::to_string(numKvHeads) + ")");
    if (headDim % 2 != 0)
        throw FileError(origin, "\"head_dim\" must be even for rotary embeddings, not " +
                                    std::to_string(headDim));
    constexpr std::int64_t kLarge = std::int64_t(1) << 24;
    if (hiddenSize > kLarge || intermediateSize > kLarge || vocabSize > (std::int64_t(1) << 28) ||
        numLayers > 4096 || numHeads * headDim > kLarge)
        throw FileError(origin, "the network's dimensions are implausibly large");
    if (!(rmsNormEps > 0) || !std::isfinite(rmsNormEps))
        throw FileError(origin, "\"rms_norm_eps\" must be a positive number");
    auto inVocab = [&](const std::optional<std::int64_t>& id, const char* key) {
        if (id && (*id < 0 || *id >= vocabSize))
            throw FileError(origin, std::string("\"") + key + "\" " + std::to_string(*id) +
                                        " is outside the vocabulary of " +
                                        std::to_string(vocabSize));
    };
    inVocab(maskTokenId, "mask_token_id");
    inVocab(bosTokenId, "bos_token_id");
    inVocab(padTokenId, "pad_token_id");
    for (auto id : eosTokenIds)
        inVocab(id, "eos_token_id");
}

ModelConfig parseModelConfig(const std::string& text, const std::string& origin) {
    const json root = parseObject(text, origin);
    ModelConfig config;
    const json* type = field(root, "model_type");
    if (!type || !type->is_string())
        throw FileError(origin, "has no \"model_type\" string");
    config.modelType = type->get<std::string>();
    if (config.modelType != "qwen3" && config.modelType != "sdar")
        throw FileError(origin, "\"model_type\" " + describe(*type) +
                                    " is not supported (supported: \"sdar\", \"qwen3\")");
    if (const json* act = field(root, "hidden_act");
        act && (!act->is_string() || act->get<std::string>() != "silu"))
        throw FileError(origin, "\"hidden_act\" " + describe(*act) +
                                    " is not supported (the network uses silu)");
    if (boolean(root, "use_sliding_window", false, origin))
        throw FileError(origin, "\"use_sliding_window\": true is not supported");
    if (const json* layers = field(root, "layer_types")) {
        if (!layers->is_array())
            throw FileError(origin, "\"layer_types\" must be an array");
        for (const auto& l : *layers)
            if (!l.is_string() || l.get<std::string>() != "full_attention")
                throw FileError(origin, "\"layer_types\" entry " + describe(l) +
                                            " is not supported (only \"full_attention\")");
    }

    config.hiddenSize = requiredInt(root, "hidden_size", origin);
    config.numLayers = requiredInt(root, "num_hidden_layers", origin);
    config.numHeads = requiredInt(root, "num_attention_heads", origin);
    config.numKvHeads = optionalInt(root, "num_key_value_heads", config.numHeads, origin);
    config.intermediateSize = requiredInt(root, "intermediate_size", origin);
    config.vocabSize = requiredInt(root, "vocab_size", origin);
    if (config.numHeads <= 0)
        throw FileError(origin, "\"num_attention_heads\" must be positive");
    config.headDim = optionalInt(root, "head_dim", config.hiddenSize / config.numHeads, origin);
    readRope(root, config, origin);
    config.rmsNormEps = number(root, "rms_norm_eps", config.rmsNormEps, origin);
    config.tieWordEmbeddings = boolean(root, "tie_word_embeddings", false, origin);
    config.attentionBias = boolean(root, "attention_bias", false, origin);
    config.maxPositionEmbeddings =
        optionalInt(root, "max_position_embeddings", config.maxPositionEmbeddings, origin);
    config.blockSize = optionalInt(root, "block_size", config.blockSize, origin);
    config.maskTokenId = maybeInt(root, "mask_token_id", origin);
    config.bosTokenId = maybeInt(root, "bos_token_id", origin);
    config.padTokenId = maybeInt(root, "pad_token_id", origin);
    config.eosTokenIds = idList(root, "eos_token_id", origin);
    for (const char* key : {"torch_dtype", "dtype"}) {
        if (const json* dtype = field(root, key)) {
            if (!dtype->is_string())
                throw FileError(origin, std::string("\"") + key + "\" must be a string");
            config.torchDtype = dtype->get<std::string>();
            if (config.torchDtype != "bfloat16" && config.torchDtype != "float16" &&
                config.torchDtype != "float32")
                throw FileError(origin, std::string("\"") + key + "\" \"" + config.torchDtype +
                                            "\" is not supported (bfloat16, float16, float32)");
        }
    }
    config.validate(origin);
    return config;
}

ModelConfig loadModelConfig(const std::string& path) {
    return parseModelConfig(readTextFile(path, limits::kModelConfig), path);
}

GenerationConfig parseGenerationConfig(const std::string& text, const std::string& origin) {
    const json root = parseObject(text, origin);
    GenerationConfig config;
    config.eosTokenIds = idList(root, "eos_token_id", origin);
    config.padTokenId = maybeInt(root, "pad_token_id", origin);
    config.bosTokenId = maybeInt(root, "bos_token_id", origin);
    for (auto id : config.eosTokenIds)
        if (id < 0)
            throw FileError(origin, "\"eos_token_id\" must not be negative");
    return config;
}

GenerationConfig loadGenerationConfig(const std::string& path) {
    return parseGenerationConfig(readTextFile(path, limits::kGenerationConfig), path);
}

} // namespace dice

namespace dice {

std::string modelConfigToJson(const ModelConfig& c) {
    json j;
    j["architectures"] =
        json::array({c.modelType == "sdar" ? "SDARForCausalLM" : "Qwen3ForCausalLM"});
    j["model_type"] = c.modelType;
    j["hidden_size"] = c.hiddenSize;
    j["num_hidden_layers"] = c.numLayers;
    j["num_attention_heads"] = c.numHeads;
    j["num_key_value_heads"] = c.numKvHeads;
    j["head_dim"] = c.headDim;
    j["intermediate_size"] = c.intermediateSize;
    j["vocab_size"] = c.vocabSize;
    j["hidden_act"] = "silu";
    j["rope_theta"] = c.ropeTheta;
    if (c.ropeLinearFactor != 1.0)
        j["rope_scaling"] = {{"rope_type", "linear"}, {"factor", c.ropeLinearFactor}};
    else
        j["rope_scaling"] = nullptr;
    j["rms_norm_eps"] = c.rmsNormEps;
    j["tie_word_embeddings"] = c.tieWordEmbeddings;
    j["attention_bias"] = c.attentionBias;
    j["attention_dropout"] = 0.0;
    j["max_position_embeddings"] = c.maxPositionEmbeddings;
    j["use_sliding_window"] = false;
    j["block_size"] = c.blockSize;
    if (c.maskTokenId)
        j["mask_token_id"] = *c.maskTokenId;
    if (c.bosTokenId)
        j["bos_token_id"] = *c.bosTokenId;
    if (c.padTokenId)
        j["pad_token_id"] = *c.padTokenId;
    if (c.eosTokenIds.size() == 1)
        j["eos_token_id"] = c.eosTokenIds.front();
    else if (!c.eosTokenIds.empty())
        j["eos_token_id"] = c.eosTokenIds;
    j["torch_dtype"] = c.torchDtype;
    return j.dump(2) + "\n";
}

std::string generationConfigToJson(const GenerationConfig& g) {
    // An object even without a field: a default json is null, and "null" is no
    // generation_config.json that any reader (this one included) accepts.
    json j = json::object();
    if (!g.eosTokenIds.empty())
        j["eos_token_id"] = g.eosTokenIds;
    if (g.padTokenId)
        j["pad_token_id"] = *g.padTokenId;
    if (g.bosTokenId)
        j["bos_token_id"] = *g.bosTokenId;
    return j.dump(2) + "\n";
}

} // namespace dice
