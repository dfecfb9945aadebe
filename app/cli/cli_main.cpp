// SPDX-License-Identifier: GPL-3.0-or-later
// dice: the workbench's command-line interface.
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/crash_report.h"
#include "core/common/error.h"
#include "core/common/version.h"

#include <cstring>
#include <functional>
#include <iostream>

namespace {

struct Command {
    const char* name;
    const char* summary;
    std::function<int(const dice::cli::Invocation&)> run;
};

const std::vector<Command>& commands() {
    static const std::vector<Command> list = {
        {"info", "devices, driver, CUDA, NVRTC, CUPTI and LibTorch versions (--json)",
         dice::cli::commandInfo},
        {"selftest", "check the machine and the build (--json, --cpu-only, --output FILE)",
         dice::cli::commandSelftest},
        {"tasks", "list the built-in tasks or show one (--dir DIR, --json)",
         dice::cli::commandTasks},
        {"data", "make the training corpus (synth)", dice::cli::commandData},
        {"tokenizer", "train a byte-level BPE tokenizer (train --help)",
         dice::cli::commandTokenizer},
        {"bench", "benchmarks that write result files (tokenizer, model, ...)",
         dice::cli::commandBench},
        {"compile", "compile a kernel: diagnostics, resources, PTX, SASS with source lines",
         dice::cli::commandCompile},
        {"eval", "evaluate a candidate, or a suite of them (--help)", dice::cli::commandEval},
        {"runs", "list and manage stored evaluations (--help)", dice::cli::commandRuns},
        {"kernelbench", "DICE's prompts, answer extraction and the KernelBench evaluator",
         dice::cli::commandKernelBench},
        {"import", "import KernelBench problems as native tasks (import kernelbench PATH...)",
         dice::cli::commandImport},
        {"train", "fine-tune a model (train sft --help)", dice::cli::commandTrain},
        {"generate", "generate with SDAR block diffusion (--help)", dice::cli::commandGenerate},
    };
    return list;
}

void usage(std::ostream& out) {
    out << "usage: dice COMMAND [options]\n\ncommands:\n";
    for (const auto& c : commands())
        out << "  " << c.name << std::string(12 - std::strlen(c.name), ' ') << c.summary << "\n";
    out << "\n'dice COMMAND --help' describes a command's options.\n";
}

} // namespace

int main(int argc, char** argv) {
    dice::cli::installCrashReport();
    std::vector<std::string> all(argv, argv + argc);
    if (argc < 2 || all[1] == "--help" || all[1] == "-h" || all[1] == "help") {
        usage(argc < 2 ? std::cerr : std::cout);
        return argc < 2 ? 2 : 0;
    }
    if (all[1] == "--version" || all[1] == "version") {
        std::cout << "dice " << dice::kProductVersion << "\n";
        return 0;
    }
    for (const auto& c : commands()) {
        if (all[1] != c.name)
            continue;
        dice::cli::Invocation in;
        in.argv = all;
        in.args.assign(all.begin() + 2, all.end());
        try {
            return c.run(in);
        } catch (const dice::cli::UsageError& e) {
            std::cerr << "dice " << c.name << ": " << e.what() << "\n";
            return 2;
        } catch (const dice::Error& e) {
            std::cerr << "dice " << c.name << ": " << e.what() << "\n";
            return 1;
        } catch (const std::exception& e) {
            std::cerr << "dice " << c.name << ": internal error: " << e.what() << "\n";
            return 1;
        }
    }
    std::cerr << "dice: unknown command '" << all[1] << "'\n\n";
    usage(std::cerr);
    return 2;
}
