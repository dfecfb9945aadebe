// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace dice {

struct ChatMessage {
    std::string role; // "system", "user", "assistant"
    std::string content;
};

// Qwen3's chat template (ChatML), as DICE uses it: every message as
// "<|im_start|>ROLE\nCONTENT<|im_end|>\n"; with a generation prompt, "<|im_start|>assistant\n";
// with thinking switched off, the empty thinking block "<think>\n\n</think>\n\n" after it.
// DICE's prompts leave enable_thinking undefined, which renders no thinking block.
struct ChatTemplateOptions {
    bool addGenerationPrompt = true;
    bool disableThinking = false;
};

std::string applyChatTemplate(const std::vector<ChatMessage>& messages,
                              const ChatTemplateOptions& options = {});

} // namespace dice
