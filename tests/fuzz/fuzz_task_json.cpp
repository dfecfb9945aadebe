// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for task files (docs/task-format.md): every input is a task or a dice::Error.
// A task that parses must come back the same through its own JSON, and every shape and
// expression of every preset must resolve or fail with dice::Error.
#include "core/common/error.h"
#include "core/tasks/task.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void failure(const char* what) {
    std::fprintf(stderr, "%s\n", what);
    std::abort();
}

void resolveAll(const dice::Task& task) {
    for (const auto& [preset, vars] : task.presets) {
        for (const auto* specs : {&task.inputs, &task.parameters})
            for (const auto& spec : *specs) {
                try {
                    task.shape(spec, preset);
                } catch (const dice::Error&) {
                }
            }
        if (!task.flops.empty()) {
            try {
                task.evaluate(task.flops, preset);
            } catch (const dice::Error&) {
            }
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    dice::Task task;
    try {
        task = dice::parseTask(input, "fuzz.json");
    } catch (const dice::Error&) {
        return 0;
    }
    resolveAll(task);
    dice::Task back;
    try {
        back = dice::parseTask(dice::taskFileText(task), "again.json");
    } catch (const dice::Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        failure("a task that parsed does not parse from its own JSON");
    }
    if (back.name != task.name || back.level != task.level || back.seed != task.seed ||
        back.inputs.size() != task.inputs.size() || back.presets != task.presets ||
        back.reference != task.reference)
        failure("a task changed on its way through its own JSON");
    return 0;
}
