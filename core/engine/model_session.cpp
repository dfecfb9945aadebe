// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/engine/model_session.h"

#include "core/common/error.h"
#include "core/diffusion/qwen3_network.h"
#include "core/model/cpu_threads.h"
#include "core/tokenizer/chat_template.h"
#include "core/tokenizer/tokenizer.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

namespace dice {

std::unique_ptr<ModelSession> ModelSession::open(const std::string& folder,
                                                 const SessionOptions& options) {
    const auto start = std::chrono::steady_clock::now();
    const std::filesystem::path dir(folder);
    const std::string tokenizerPath = (dir / "tokenizer.json").string();
    if (!std::filesystem::is_regular_file(tokenizerPath))
        throw FileError(tokenizerPath, "the model folder has no tokenizer.json");
    std::unique_ptr<ModelSession> session(new ModelSession);
    session->m_tokenizer = std::make_unique<Tokenizer>(Tokenizer::load(tokenizerPath));
    session->m_model = Qwen3Model::load(folder, options.load);

    ModelSummary& s = session->m_summary;
    const ModelConfig& config = session->m_model->config();
    s.folder = folder;
    s.name =
        dir.filename().empty() ? dir.parent_path().filename().string() : dir.filename().string();
    s.config = config;
    s.placement = session->m_model->placement();
    s.parameters = config.parameterCount();
    if (options.load.placement.device == ModelDevice::Cpu)
        setCpuThreads(options.cpuThreads > 0 ? options.cpuThreads
                                             : defaultCpuThreads(s.parameters));
    s.weightBytes = session->m_model->weightBytes();
    s.tokenizerVocab = session->m_tokenizer->vocabSize();
    if (config.maskTokenId) {
        s.maskId = *config.maskTokenId;
    } else if (const auto mask = session->m_tokenizer->tokenId("<|MASK|>")) {
        s.maskId = *mask;
    } else {
        throw Error(folder + ": neither config.json (mask_token_id) nor the tokenizer (<|MASK|>) "
                             "names a mask token");
    }
    if (s.maskId < 0 || s.maskId >= config.vocabSize)
        throw Error(folder + ": the mask token id " + std::to_string(s.maskId) +
                    " is outside the model's vocabulary of " + std::to_string(config.vocabSize));
    s.stopIds = session->m_model->generationConfig().eosTokenIds;
    for (auto id : config.eosTokenIds)
        if (std::find(s.stopIds.begin(), s.stopIds.end(), id) == s.stopIds.end())
            s.stopIds.push_back(id);
    s.loadMilliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return session;
}

ModelSession::~ModelSession() = default;

void ModelSession::completeOptions(SamplerOptions& options) const {
    options.maskId = m_summary.maskId;
    options.stopIds = m_summary.stopIds;
    options.vocabLimit = m_summary.tokenizerVocab;
}

std::vector<std::int64_t> ModelSession::encodePrompt(const std::string& text, bool chat) const {
    return m_tokenizer->encode(chat ? applyChatTemplate({{"user", text}}) : text);
}

std::int64_t ModelSession::tokensLeft(std::size_t promptTokens, std::int64_t blockLength) const {
    const std::int64_t left = m_summary.config.maxPositionEmbeddings -
                              static_cast<std::int64_t>(promptTokens) - blockLength;
    return std::max<std::int64_t>(0, left);
}

TextGeneration ModelSession::generate(const std::vector<std::int64_t>& prompt,
                                      SamplerOptions options,
                                      const std::function<void(const DecodeStep&)>& onStep,
                                      bool stopAtEndToken) {
    if (prompt.empty())
        throw Error("the prompt is empty");
    completeOptions(options);
    if (!stopAtEndToken)
        options.stopIds.clear();
    const std::int64_t positions = m_summary.config.maxPositionEmbeddings;
    if (tokensLeft(prompt.size(), options.blockLength) == 0)
        throw Error("the prompt (" + std::to_string(prompt.size()) +
                    " tokens) leaves no room for an answer in the model's " +
                    std::to_string(positions) + " positions");
    if (static_cast<std::int64_t>(prompt.size()) + options.maxTokens + options.blockLength >
        positions)
        throw Error("the prompt (" + std::to_string(prompt.size()) + " tokens) and the budget (" +
                    std::to_string(options.maxTokens) + " tokens) exceed the model's " +
                    std::to_string(positions) + " positions");
    Qwen3Network network(*m_model);
    TextGeneration out;
    out.prompt = prompt;
    out.result = dice::generate(network, {prompt}, options, onStep).front();
    out.text = answerText(out.result.tokens);
    return out;
}

std::string ModelSession::answerText(const std::vector<std::int64_t>& tokens) const {
    std::vector<std::int64_t> kept;
    kept.reserve(tokens.size());
    for (auto id : tokens)
        if (id != m_summary.maskId)
            kept.push_back(id);
    return m_tokenizer->decode(kept, true);
}

std::string ModelSession::tokenText(std::int64_t id) const {
    return m_tokenizer->decode({id}, false);
}

} // namespace dice
