// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/prompts/kernelbench_prompts.h"

#include "core/common/file_util.h"

#include <filesystem>

namespace dice::kernelbench {

namespace {

// KernelBench's problem statement. The " \n\n    " after the first sentence and the final blank
// line come from its Python source (an escaped newline followed by a real one, then the next
// line's indentation).
const char* const kProblemStatement =
    "You write custom CUDA kernels to replace the pytorch operators in the given architecture to "
    "get speedups. \n\n"
    "    You have complete freedom to choose the set of operators you want to replace. You may "
    "make the decision to replace some operators with custom CUDA kernels and leave others "
    "unchanged. You may replace multiple operators with custom implementations, consider "
    "operator fusion opportunities (combining multiple operators into a single kernel, for "
    "example, combining matmul+relu), or algorithmic changes (such as online softmax). You are "
    "only limited by your imagination.\n\n";

const char* const kInstruction =
    "Optimize the architecture named Model with custom CUDA operators! Name your optimized output "
    "architecture ModelNew. Output the new code in codeblocks. Please generate real code, NOT "
    "pseudocode, make sure the code compiles and is fully functional. Just output the new model "
    "code, no other text, and NO testing code! ";

const char* const kInfillIntroduction =
    "You write custom CUDA kernels to replace the pytorch operators in the given architecture to "
    "get speedups. \n\n"
    "You will be provided with a reference pytorch implementation, which serves as the ground "
    "truth for logical behavior, along with a partial CUDA kernel skeleton (prefix and suffix). "
    "\n\n"
    "Your objective is to generate the core missing C++ code of custom CUDA kernels within the "
    "skeleton to ensure the custom CUDA kernel is functionally equivalent to the pytorch "
    "reference. You must adhere strictly to the provided kernel configuration.\n\n"
    "Here's an example to show you the syntax for generating C++ code based on a given prefix and "
    "suffix: The example given architecture is: \n\n";

const char* const kInfillInstruction =
    "Generate the core C++ code of this custom CUDA kernel to make your optimized output "
    "architecture complete. Output the whole new architecture in codeblocks. Please generate real "
    "code, NOT pseudocode, make sure the code compiles and is fully functional. Just output the "
    "new model code, no other text, and NO testing code! ";

std::string withoutFinalNewline(std::string text) {
    if (!text.empty() && text.back() == '\n')
        text.pop_back();
    return text;
}

std::string render(const std::vector<ChatMessage>& messages) {
    ChatTemplateOptions options;
    options.addGenerationPrompt = true;
    options.disableThinking = false;
    return applyChatTemplate(messages, options);
}

} // namespace

std::string promptDirectory() {
    return (std::filesystem::path(dataDirectory()) / "prompts").string();
}

PromptExamples loadPromptExamples(const std::string& directory) {
    const std::filesystem::path dir(directory);
    PromptExamples examples;
    examples.model = readTextFile((dir / "model_ex_add.py").string());
    examples.modelNew = readTextFile((dir / "model_new_ex_add.py").string());
    examples.infillPrefix =
        withoutFinalNewline(readTextFile((dir / "infill_example_prefix.py").string()));
    examples.infillSuffix =
        withoutFinalNewline(readTextFile((dir / "infill_example_suffix.py").string()));
    return examples;
}

std::string endToEndMessage(const std::string& modelSource, const PromptExamples& examples,
                            PromptStyle style) {
    // The indentation inside the example and task sections is that of the Python f-strings
    // KernelBench built the prompt with.
    std::string text = kProblemStatement;
    text += "\n        Here's an example to show you the syntax of inline embedding custom CUDA "
            "operators in torch: The example given architecture is: \n\n        ``` \n\n        ";
    text += examples.model;
    text += "\n        ``` \n\n        The example new arch with custom CUDA kernels looks like "
            "this: \n        ```\n        ";
    text += examples.modelNew;
    text += "\n        ``` \n\n        ";
    text += "\n    You are given the following architecture: \n\n    ```\n    ";
    text += modelSource;
    text += "\n    ```\n    ";
    text += "\n";
    text += kInstruction;
    if (style == PromptStyle::Evaluation)
        text += "\n\n";
    return text;
}

std::vector<ChatMessage> endToEndMessages(const std::string& modelSource,
                                          const PromptExamples& examples, PromptStyle style) {
    return {{"user", endToEndMessage(modelSource, examples, style)}};
}

std::string endToEndPrompt(const std::string& modelSource, const PromptExamples& examples,
                           PromptStyle style) {
    std::string text = render(endToEndMessages(modelSource, examples, style));
    if (style == PromptStyle::Rollout)
        text += "\n";
    return text;
}

std::string infillMessage(const InfillSkeleton& skeleton, const PromptExamples& examples) {
    std::string text = kInfillIntroduction;
    text += "```\n";
    text += examples.model;
    text += "``` \n\n\nThe example give prefix is: \n\n``` \n\n";
    text += examples.infillPrefix;
    text += "\n``` \n\n\nThe example give suffix is: \n\n``` \n\n";
    text += examples.infillSuffix;
    text += "\n``` \n\nThe example new arch with custom CUDA kernels looks like this (combine "
            "your generated C++ code with given prefix and suffix): \n\n```\n";
    text += examples.modelNew;
    text += "``` \n\n\nYou are given the following architecture: \n\n```\n";
    text += skeleton.pytorchCode;
    // Two newlines after these three fences, not three: DICE's template writes them so.
    text += "\n``` \n\nThe corresponding CUDA kernel prefix: \n\n```\n";
    text += skeleton.prefix;
    text += "\n``` \n\nThe corresponding CUDA kernel suffix: \n\n```\n";
    text += skeleton.suffix;
    text += "\n``` \n\n";
    text += kInfillInstruction;
    return text;
}

std::vector<ChatMessage> infillMessages(const InfillSkeleton& skeleton,
                                        const PromptExamples& examples) {
    return {{"user", infillMessage(skeleton, examples)}};
}

std::string infillPrompt(const InfillSkeleton& skeleton, const PromptExamples& examples) {
    return render(infillMessages(skeleton, examples));
}

} // namespace dice::kernelbench
