// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/tokenizer/chat_template.h"

#include <string>
#include <vector>

// DICE's two prompts, word for word: the end-to-end one-shot prompt (KernelBench's, used by the
// paper's evaluation and by the RL end-to-end stage) and the kernel-infilling prompt (RL stage
// 1). The wording is what the checkpoints were trained on, so it is reproduced exactly, odd
// spacing included; docs/kernelbench-prompts.md shows the format.
namespace dice::kernelbench {

// The example files the prompts quote (resources/prompts).
struct PromptExamples {
    std::string model;        // model_ex_add.py: Model computing a + b
    std::string modelNew;     // model_new_ex_add.py: ModelNew with an inline CUDA kernel
    std::string infillPrefix; // infill_example_prefix.py, without its final newline
    std::string infillSuffix; // infill_example_suffix.py, without its final newline
};

// <data folder>/prompts.
std::string promptDirectory();
// Throws FileError naming a missing or unreadable example file.
PromptExamples loadPromptExamples(const std::string& directory = promptDirectory());

// Two renderings of the end-to-end prompt differ in their last characters: the evaluation built
// the message with KernelBench's prompt constructor and applied the chat template; the RL
// rollouts wrote the chat markup by hand, which moves the instruction's trailing line break
// after the generation prompt.
enum class PromptStyle { Evaluation, Rollout };

// The user message of the end-to-end prompt for a KernelBench problem file (Model,
// get_inputs, get_init_inputs).
std::string endToEndMessage(const std::string& modelSource, const PromptExamples& examples,
                            PromptStyle style = PromptStyle::Evaluation);
std::vector<ChatMessage> endToEndMessages(const std::string& modelSource,
                                          const PromptExamples& examples,
                                          PromptStyle style = PromptStyle::Evaluation);
// The exact text the model reads: Qwen3 ChatML, generation prompt, no thinking block.
std::string endToEndPrompt(const std::string& modelSource, const PromptExamples& examples,
                           PromptStyle style = PromptStyle::Evaluation);

// A kernel skeleton: the reference module and the fixed code before and after the hole. The
// parts are inserted as given (DICE's data split one solution so that prefix + middle + suffix
// is the whole program).
struct InfillSkeleton {
    std::string pytorchCode;
    std::string prefix;
    std::string suffix;
};

std::string infillMessage(const InfillSkeleton& skeleton, const PromptExamples& examples);
std::vector<ChatMessage> infillMessages(const InfillSkeleton& skeleton,
                                        const PromptExamples& examples);
std::string infillPrompt(const InfillSkeleton& skeleton, const PromptExamples& examples);

} // namespace dice::kernelbench
