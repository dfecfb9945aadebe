// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/diffusion/sdar_sampler.h"
#include "core/model/qwen3_model.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

// A loaded model with its tokenizer, as the CLI and the workbench use it: one object that knows
// the checkpoint's mask and stop tokens and turns text into an answer through the SDAR sampler.
// The header has neither Qt nor LibTorch in it, so widgets can hold a session.
namespace dice {

class Tokenizer;

struct ModelSummary {
    std::string folder;
    std::string name; // the folder's last component
    ModelConfig config;
    ModelPlacement placement;
    std::int64_t parameters = 0;
    std::uint64_t weightBytes = 0;
    std::int64_t tokenizerVocab = 0;
    std::int64_t maskId = 0;
    std::vector<std::int64_t> stopIds;
    double loadMilliseconds = 0;
};

struct SessionOptions {
    LoadOptions load;
    int cpuThreads = 0; // 0: defaultCpuThreads for the model's size
};

struct TextGeneration {
    std::vector<std::int64_t> prompt;
    GenerationResult result;
    std::string text; // the answer, mask and special tokens removed
};

// Not thread-safe: one owner thread loads it and runs every generation.
class ModelSession {
public:
    // Loads tokenizer.json and the checkpoint of a Hugging Face folder. Throws FileError or
    // dice::Error naming the file and the problem, LoadCancelled when cancelled.
    static std::unique_ptr<ModelSession> open(const std::string& folder,
                                              const SessionOptions& options);
    ~ModelSession();
    ModelSession(const ModelSession&) = delete;
    ModelSession& operator=(const ModelSession&) = delete;

    const ModelSummary& summary() const { return m_summary; }
    const Tokenizer& tokenizer() const { return *m_tokenizer; }

    // Fills in what belongs to the model (mask id, stop ids, the tokenizer's vocabulary limit).
    void completeOptions(SamplerOptions& options) const;
    // The prompt's ids; with chat, the text is wrapped in the Qwen3 chat template first.
    std::vector<std::int64_t> encodePrompt(const std::string& text, bool chat) const;
    // The most answer tokens the model's positions leave after a prompt of that many tokens (with
    // room for one block, as generate needs); 0 when the prompt alone fills them.
    std::int64_t tokensLeft(std::size_t promptTokens, std::int64_t blockLength) const;
    // Throws dice::Error when the prompt and the budget exceed the model's positions. Without
    // stopAtEndToken the whole budget is decoded (as DICE's KernelBench evaluation does).
    TextGeneration generate(const std::vector<std::int64_t>& prompt, SamplerOptions options,
                            const std::function<void(const DecodeStep&)>& onStep = {},
                            bool stopAtEndToken = true);
    // The text of answer tokens, mask and special tokens dropped.
    std::string answerText(const std::vector<std::int64_t>& tokens) const;
    // How one token looks in the denoising view: its decoded bytes (may be a partial character).
    std::string tokenText(std::int64_t id) const;

private:
    ModelSession() = default;
    ModelSummary m_summary;
    std::unique_ptr<Tokenizer> m_tokenizer;
    std::unique_ptr<Qwen3Model> m_model;
};

} // namespace dice
