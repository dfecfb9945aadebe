// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for a checkpoint's config.json and generation_config.json: every input is a
// configuration or a dice::Error. One that is accepted must give the same configuration back
// through the JSON the workbench writes for a model it trains, and its sizes must multiply out
// without overflow (UndefinedBehaviorSanitizer stops at a signed overflow).
#include "core/common/error.h"
#include "core/model/model_config.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void failure(const char* what, const std::string& detail = {}) {
    std::fprintf(stderr, "%s %s\n", what, detail.c_str());
    std::abort();
}

void modelConfig(const std::string& input) {
    dice::ModelConfig config;
    try {
        config = dice::parseModelConfig(input, "config.json");
    } catch (const dice::Error&) {
        return;
    }
    config.parameterCount();
    config.kvBytesPerToken(4);
    dice::ModelConfig back;
    try {
        back = dice::parseModelConfig(dice::modelConfigToJson(config), "written.json");
    } catch (const dice::Error& e) {
        failure("an accepted config.json does not read back:", e.what());
    }
    if (back.hiddenSize != config.hiddenSize || back.numLayers != config.numLayers ||
        back.numHeads != config.numHeads || back.numKvHeads != config.numKvHeads ||
        back.headDim != config.headDim || back.intermediateSize != config.intermediateSize ||
        back.vocabSize != config.vocabSize || back.blockSize != config.blockSize ||
        back.maskTokenId != config.maskTokenId || back.eosTokenIds != config.eosTokenIds ||
        back.torchDtype != config.torchDtype)
        failure("config.json changed on its way through the written form");
}

void generationConfig(const std::string& input) {
    dice::GenerationConfig config;
    try {
        config = dice::parseGenerationConfig(input, "generation_config.json");
    } catch (const dice::Error&) {
        return;
    }
    try {
        const auto back = dice::parseGenerationConfig(dice::generationConfigToJson(config), "g");
        if (back.eosTokenIds != config.eosTokenIds || back.padTokenId != config.padTokenId ||
            back.bosTokenId != config.bosTokenId)
            failure("generation_config.json changed on its way through the written form");
    } catch (const dice::Error& e) {
        failure("an accepted generation_config.json does not read back:", e.what());
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    modelConfig(input);
    generationConfig(input);
    return 0;
}
