// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/sft_data.h"

#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/data/corpus_writer.h"
#include "core/tokenizer/chat_template.h"
#include "core/tokenizer/tokenizer.h"

#include <algorithm>
#include <sstream>

namespace dice {

std::vector<std::int64_t> chatPromptIds(const Tokenizer& tokenizer, const std::string& prompt) {
    return tokenizer.encode(applyChatTemplate({{"user", prompt}}));
}

SftData loadSftData(const std::string& corpusPath, const Tokenizer& tokenizer,
                    const SftDataOptions& options) {
    std::istringstream in(readTextFile(corpusPath, limits::kCorpus));
    const auto end = tokenizer.tokenId("<|im_end|>");
    if (!end)
        throw FileError(corpusPath, "the tokenizer has no <|im_end|> token to end answers with");
    auto allowed = [](const std::vector<std::string>& list, const std::string& value) {
        return std::find(list.begin(), list.end(), value) != list.end();
    };
    SftData data;
    std::string line;
    std::size_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.empty())
            continue;
        CorpusExample e;
        try {
            e = corpusExampleFromJson(line);
        } catch (const Error& error) {
            throw FileError(corpusPath, "line " + std::to_string(number) + ": " + error.what());
        }
        ++data.examples;
        if (!allowed(options.splits, e.split) || !allowed(options.kinds, e.kind)) {
            ++data.filtered;
            continue;
        }
        SftSequence s;
        s.id = e.id;
        s.ids = chatPromptIds(tokenizer, e.prompt);
        s.promptLength = static_cast<std::int64_t>(s.ids.size());
        const auto answer = tokenizer.encode(e.answer);
        s.ids.insert(s.ids.end(), answer.begin(), answer.end());
        s.ids.push_back(*end);
        if (static_cast<std::int64_t>(s.ids.size()) > options.maxLength) {
            ++data.tooLong;
            continue;
        }
        data.answerTokens += static_cast<std::int64_t>(s.ids.size()) - s.promptLength;
        data.sequences.push_back(std::move(s));
    }
    return data;
}

} // namespace dice
