// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/common/file_util.h"
#include "core/tokenizer/bpe_trainer.h"
#include "core/tokenizer/tokenizer.h"

#include <QDir>
#include <QFile>
#include <QString>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

// The tiny checkpoint of the parity test with a byte-level tokenizer trained to fit its 384-row
// vocabulary, and the mask token the tokenizer defines.
inline QString makeModelFolder(const QTemporaryDir& dir) {
    const QString folder = dir.filePath("tiny");
    QDir().mkpath(folder);
    dice::BpeTrainerOptions options;
    options.vocabSize = 300;
    dice::BpeTrainer trainer(options);
    trainer.addText(dice::readTextFile(DICE_SOURCE_DIR "/resources/solutions/add.dice"));
    trainer.addText(dice::readTextFile(DICE_SOURCE_DIR "/resources/solutions/relu.dice"));
    const std::string tokenizerJson = trainer.train();
    dice::writeFileAtomically((folder + "/tokenizer.json").toStdString(), tokenizerJson);
    const auto tokenizer = dice::Tokenizer::fromJson(tokenizerJson, "trained");
    auto config =
        nlohmann::json::parse(dice::readTextFile(DICE_TEST_FIXTURES "/qwen3-tiny/config.json"));
    config["mask_token_id"] = *tokenizer.tokenId("<|MASK|>");
    config["model_type"] = "sdar";
    config["block_size"] = 4;
    // Rotary positions have no trained table, so the prompts of the built-in tasks fit.
    config["max_position_embeddings"] = 8192;
    dice::writeFileAtomically((folder + "/config.json").toStdString(), config.dump(2));
    QFile::copy(DICE_TEST_FIXTURES "/qwen3-tiny/model.safetensors", folder + "/model.safetensors");
    return folder;
}
