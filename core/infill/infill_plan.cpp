// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/infill/infill_plan.h"

#include "core/prompts/answer.h"
#include "core/prompts/kernelbench_prompts.h"
#include "core/prompts/native_prompts.h"
#include "core/tasks/holes.h"
#include "core/tasks/task.h"

#include <exception>
#include <optional>

namespace dice {

namespace {

std::optional<Hole> findHole(const std::string& text, const std::string& name) {
    for (const Hole& hole : findHoles(text))
        if (hole.name == name)
            return hole;
    return std::nullopt;
}

} // namespace

InfillDialect infillDialect(const std::string& text) {
    return kernelbench::detectDialect(text).dialect == kernelbench::Dialect::KernelBench
               ? InfillDialect::KernelBench
               : InfillDialect::Native;
}

std::string contextForHole(const std::string& text, const std::string& hole,
                           const std::map<std::string, std::string>& proposals) {
    std::string context = text;
    for (const Hole& other : findHoles(text)) {
        if (other.name == hole)
            continue;
        const auto proposal = proposals.find(other.name);
        if (proposal == proposals.end())
            continue;
        // Each fill moves the markers after it, so the hole is found again in the text so far.
        if (const auto now = findHole(context, other.name))
            context = fillHole(context, *now, proposal->second);
    }
    return context;
}

HolePrompt promptForHole(const std::string& context, const std::string& hole, const Task* task) {
    HolePrompt prompt;
    const auto found = findHole(context, hole);
    if (!found) {
        prompt.problem = HolePrompt::Problem::NoSuchHole;
        return prompt;
    }
    if (infillDialect(context) == InfillDialect::KernelBench) {
        const InfillContext parts = infillContext(context, *found);
        kernelbench::InfillSkeleton skeleton;
        skeleton.pytorchCode = task ? task->pytorchModule : std::string();
        skeleton.prefix = parts.prefix;
        skeleton.suffix = parts.suffix;
        try {
            prompt.text = kernelbench::infillMessage(skeleton, kernelbench::loadPromptExamples());
        } catch (const std::exception& e) {
            prompt.problem = HolePrompt::Problem::Failed;
            prompt.message = e.what();
        }
        return prompt;
    }
    if (!task) {
        prompt.problem = HolePrompt::Problem::NoTask;
        return prompt;
    }
    prompt.text = nativeInfillPrompt(*task, context, hole);
    return prompt;
}

HoleContent contentFromAnswer(const std::string& context, const std::string& hole,
                              const std::string& answer) {
    HoleContent out;
    const auto extracted = kernelbench::extractFirstCodeBlock(answer);
    const auto found = findHole(context, hole);
    if (found && infillDialect(context) == InfillDialect::KernelBench) {
        const InfillContext parts = infillContext(context, *found);
        // A raw answer still holds the model's own tokens (<|im_end|>, masks left unfilled).
        const auto splice = kernelbench::spliceInfill(
            extracted.found ? extracted.code : kernelbench::stripModelTokens(answer), parts.prefix,
            parts.suffix);
        out.content = splice.middle;
        out.note = splice.note;
        return out;
    }
    out.content = extracted.found ? extracted.code : kernelbench::stripModelTokens(answer);
    while (!out.content.empty() && (out.content.back() == '\n' || out.content.back() == ' '))
        out.content.pop_back();
    return out;
}

HoleEdit holeFromSelection(const std::string& text, std::size_t begin, std::size_t end,
                           const std::string& name) {
    HoleEdit edit;
    if (findHole(text, name)) {
        edit.problem = HoleEdit::Problem::NameTaken;
        return edit;
    }
    try {
        edit.text = makeHole(text, begin, end, name);
    } catch (const std::exception& e) {
        edit.problem = HoleEdit::Problem::Invalid;
        edit.message = e.what();
        return edit;
    }
    std::size_t prefix = 0;
    while (prefix < text.size() && prefix < edit.text.size() && text[prefix] == edit.text[prefix])
        ++prefix;
    std::size_t suffix = 0;
    while (suffix < text.size() - prefix && suffix < edit.text.size() - prefix &&
           text[text.size() - 1 - suffix] == edit.text[edit.text.size() - 1 - suffix])
        ++suffix;
    edit.offset = prefix;
    edit.length = text.size() - suffix - prefix;
    edit.replacement = edit.text.substr(prefix, edit.text.size() - suffix - prefix);
    return edit;
}

} // namespace dice
