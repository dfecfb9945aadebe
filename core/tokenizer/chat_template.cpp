// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tokenizer/chat_template.h"

namespace dice {

std::string applyChatTemplate(const std::vector<ChatMessage>& messages,
                              const ChatTemplateOptions& options) {
    std::string out;
    for (const auto& m : messages) {
        out += "<|im_start|>";
        out += m.role;
        out += '\n';
        out += m.content;
        out += "<|im_end|>\n";
    }
    if (options.addGenerationPrompt) {
        out += "<|im_start|>assistant\n";
        if (options.disableThinking)
            out += "<think>\n\n</think>\n\n";
    }
    return out;
}

} // namespace dice
