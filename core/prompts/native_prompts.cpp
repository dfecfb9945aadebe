// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/prompts/native_prompts.h"

#include "core/tasks/holes.h"

namespace dice {

namespace {

std::string taskStatement(const Task& task) {
    std::string out = "Task: " + task.title + "\n" + task.description + "\nInputs:";
    auto describe = [&](const TensorSpec& t) {
        std::string dims;
        for (const auto& d : t.shape)
            dims += (dims.empty() ? "" : ", ") + d.text;
        return " " + t.name + " " + toString(t.dtype) + "[" + dims + "]";
    };
    for (const auto& t : task.inputs)
        out += describe(t);
    if (!task.parameters.empty()) {
        out += "\nParameters:";
        for (const auto& t : task.parameters)
            out += describe(t);
    }
    out += "\nReference:\n" + task.reference;
    if (!out.empty() && out.back() != '\n')
        out += '\n';
    return out;
}

} // namespace

std::string nativeGenerationPrompt(const Task& task) {
    return "Write a CUDA kernel for this task in the DICE native format.\n\n" + taskStatement(task);
}

std::string nativeInfillPrompt(const Task& task, const std::string& skeleton,
                               const std::string& hole) {
    return "Fill " + holeMarker(hole) + " in this DICE native kernel.\n\n" + taskStatement(task) +
           "Skeleton:\n" + skeleton + (skeleton.empty() || skeleton.back() == '\n' ? "" : "\n");
}

} // namespace dice
