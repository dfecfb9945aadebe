// SPDX-License-Identifier: GPL-3.0-or-later
// dice kernelbench: DICE's prompts, answer handling and the Python evaluator of the KernelBench
// dialect; dice import kernelbench: KernelBench problems as native tasks.
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/eval/evaluation.h"
#include "core/kernelbench/importer.h"
#include "core/kernelbench/python_evaluator.h"
#include "core/prompts/answer.h"
#include "core/prompts/decoding_presets.h"
#include "core/prompts/kernelbench_prompts.h"
#include "core/system/result_file.h"
#include "core/tasks/task.h"
#include "core/worker/memory_cap.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace dice::cli {

// command_kernelbench_agreement.cpp
int kernelBenchAgreement(const std::vector<std::string>& argv,
                         const std::vector<std::string>& rest);

namespace {

const char* const kUsage =
    "usage: dice kernelbench COMMAND [options]\n\n"
    "commands:\n"
    "  prompt PROBLEM [--style eval|rollout] [--messages]\n"
    "      the end-to-end prompt DICE gives for a KernelBench problem file (or a task file's\n"
    "      pytorch_module), exactly as the model reads it; --messages prints the chat messages\n"
    "  infill-prompt PROBLEM --prefix FILE --suffix FILE [--messages]\n"
    "      the kernel-infilling prompt for a skeleton\n"
    "  extract ANSWER [--prefix FILE --suffix FILE] [--json]\n"
    "      the code of a model's answer (first fenced block, model tokens removed); with a\n"
    "      skeleton, the generated middle spliced into the given prefix and suffix\n"
    "  check CANDIDATE [--json]\n"
    "      the static checks of the KernelBench evaluator (needs python3 only)\n"
    "  eval PROBLEM CANDIDATE [options]\n"
    "      evaluates a ModelNew candidate with KernelBench's protocol in a Python worker\n"
    "      (python3 with CUDA PyTorch, a GPU, nvcc and ninja)\n"
    "      --tolerance X      atol = rtol = X (default 1e-4; --paper-tolerance: 1e-2)\n"
    "      --trials N         correctness trials (5)     --timing-trials N  timed calls (100)\n"
    "      --warmups N        warm-up calls (3)          --no-timing        correctness only\n"
    "      --timeout S        seconds for one evaluation, compile included (300)\n"
    "      --build-dir DIR    where load_inline builds   --device N         GPU index (0)\n"
    "      --python EXE       the interpreter to use     --json             print JSON\n"
    "  env [--json]\n"
    "      which python3 the KernelBench dialect would use, and what is missing\n"
    "  presets [--json]\n"
    "      the decoding settings of the paper's evaluation and of its RL rollouts\n"
    "  agreement --solutions DIR --problems DIR --output FILE [--level N] [--work DIR]\n"
    "            [--timeout S]\n"
    "      do the two evaluators agree? each solution DIR/levelN/NAME.py evaluated by the Python\n"
    "      evaluator, the problem imported as a task and NAME.dice evaluated by the native one\n"
    "      (dice eval); verdicts, speedups and time per evaluation side by side\n";

std::string readProblem(const std::string& path) {
    const std::string text = readTextFile(path, limits::kKernelBenchSource);
    if (path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0) {
        const Task task = parseTask(text, path);
        if (task.pytorchModule.empty())
            throw FileError(path, "the task has no pytorch_module to put in a prompt");
        return task.pytorchModule;
    }
    return text;
}

void printMessages(const std::vector<ChatMessage>& messages) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& m : messages)
        list.push_back({{"role", m.role}, {"content", m.content}});
    std::cout << list.dump(2) << "\n";
}

int prompt(const std::vector<std::string>& rest) {
    const Arguments args(rest, {"messages", "help"}, {"style"});
    if (!args.ok() || args.positionals().size() != 1) {
        std::cerr << "dice kernelbench prompt: "
                  << (args.ok() ? "give one problem file" : args.error()) << "\n";
        return 2;
    }
    const std::string style = args.value("style", "eval");
    if (style != "eval" && style != "rollout") {
        std::cerr << "dice kernelbench prompt: --style is eval or rollout\n";
        return 2;
    }
    const auto promptStyle =
        style == "eval" ? kernelbench::PromptStyle::Evaluation : kernelbench::PromptStyle::Rollout;
    const auto examples = kernelbench::loadPromptExamples();
    const std::string problem = readProblem(args.positionals()[0]);
    if (args.flag("messages"))
        printMessages(kernelbench::endToEndMessages(problem, examples, promptStyle));
    else
        std::cout << kernelbench::endToEndPrompt(problem, examples, promptStyle);
    return 0;
}

int infillPrompt(const std::vector<std::string>& rest) {
    const Arguments args(rest, {"messages", "help"}, {"prefix", "suffix"});
    if (!args.ok() || args.positionals().size() != 1 || !args.has("prefix") ||
        !args.has("suffix")) {
        std::cerr << "dice kernelbench infill-prompt: "
                  << (args.ok() ? "give a problem file, --prefix and --suffix" : args.error())
                  << "\n";
        return 2;
    }
    kernelbench::InfillSkeleton skeleton;
    skeleton.pytorchCode = readProblem(args.positionals()[0]);
    skeleton.prefix = readTextFile(args.value("prefix"), limits::kKernelBenchSource);
    skeleton.suffix = readTextFile(args.value("suffix"), limits::kKernelBenchSource);
    const auto examples = kernelbench::loadPromptExamples();
    if (args.flag("messages"))
        printMessages(kernelbench::infillMessages(skeleton, examples));
    else
        std::cout << kernelbench::infillPrompt(skeleton, examples);
    return 0;
}

int extract(const std::vector<std::string>& rest) {
    const Arguments args(rest, {"json", "help"}, {"prefix", "suffix"});
    if (!args.ok() || args.positionals().size() != 1 || args.has("prefix") != args.has("suffix")) {
        std::cerr << "dice kernelbench extract: "
                  << (args.ok() ? "give one answer file (and both --prefix and --suffix, or "
                                  "neither)"
                                : args.error())
                  << "\n";
        return 2;
    }
    const auto code = kernelbench::extractFirstCodeBlock(
        readTextFile(args.positionals()[0], limits::kKernelBenchSource));
    std::string program = code.code;
    nlohmann::json j = {{"found", code.found},
                        {"language", code.language},
                        {"terminated", code.terminated},
                        {"blocks", code.blocks},
                        {"masks_removed", code.masksRemoved},
                        {"specials_removed", code.specialsRemoved}};
    if (args.has("prefix")) {
        const auto splice = kernelbench::spliceInfill(
            code.found ? code.code
                       : readTextFile(args.positionals()[0], limits::kKernelBenchSource),
            readTextFile(args.value("prefix"), limits::kKernelBenchSource),
            readTextFile(args.value("suffix"), limits::kKernelBenchSource));
        program = splice.program;
        j["splice"] = {{"middle", splice.middle},
                       {"prefix_found", splice.prefixFound},
                       {"suffix_found", splice.suffixFound},
                       {"prefix_rewritten", splice.prefixRewritten},
                       {"suffix_rewritten", splice.suffixRewritten},
                       {"note", splice.note}};
    }
    const auto dialect = kernelbench::detectDialect(program);
    j["dialect"] = kernelbench::toString(dialect.dialect);
    j["dialect_reason"] = dialect.reason;
    j["code"] = program;
    if (args.flag("json")) {
        std::cout << j.dump(2) << "\n";
    } else {
        std::cout << program << (program.empty() || program.back() == '\n' ? "" : "\n");
        std::cerr << "dialect: " << j["dialect"].get<std::string>() << " (" << dialect.reason
                  << ")";
        if (j.contains("splice"))
            std::cerr << "; " << j["splice"]["note"].get<std::string>();
        std::cerr << "\n";
    }
    return code.found || args.has("prefix") ? 0 : 1;
}

int check(const std::vector<std::string>& rest) {
    const Arguments args(rest, {"json", "help"}, {"python"});
    if (!args.ok() || args.positionals().size() != 1) {
        std::cerr << "dice kernelbench check: "
                  << (args.ok() ? "give one candidate file" : args.error()) << "\n";
        return 2;
    }
    kernelbench::PythonEvaluator::Config config;
    config.python = args.value("python");
    kernelbench::PythonEvaluator evaluator(config);
    const auto findings =
        evaluator.check(readTextFile(args.positionals()[0], limits::kKernelBenchSource));
    bool blocking = false;
    nlohmann::json list = nlohmann::json::array();
    for (const auto& f : findings) {
        blocking = blocking || f.severity == "error" || f.severity == "compile";
        list.push_back(
            {{"code", f.code}, {"severity", f.severity}, {"message", f.message}, {"line", f.line}});
    }
    if (args.flag("json")) {
        std::cout << list.dump(2) << "\n";
    } else {
        for (const auto& f : findings)
            std::cout << std::left << std::setw(9) << f.severity << std::setw(20) << f.code
                      << (f.line ? "line " + std::to_string(f.line) + ": " : "") << f.message
                      << "\n";
        if (findings.empty())
            std::cout << "no findings\n";
    }
    return blocking ? 1 : 0;
}

std::string formatMs(double ms) {
    std::ostringstream out;
    out << std::fixed << std::setprecision(ms < 1 ? 4 : 3) << ms << " ms";
    return out.str();
}

int evaluate(const std::vector<std::string>& rest) {
    const Arguments args(rest, {"json", "no-timing", "paper-tolerance", "help"},
                         {"tolerance", "trials", "timing-trials", "warmups", "timeout", "build-dir",
                          "device", "python", "task", "level"});
    if (!args.ok() || args.positionals().size() != 2) {
        std::cerr << "dice kernelbench eval: "
                  << (args.ok() ? "give a problem file and a candidate file" : args.error())
                  << "\n";
        return 2;
    }
    kernelbench::KernelBenchOptions options = args.flag("paper-tolerance")
                                                  ? kernelbench::paperOptions()
                                                  : kernelbench::KernelBenchOptions{};
    if (args.has("tolerance")) {
        options.atol = options.rtol = args.number("tolerance", options.atol);
        if (!(options.atol >= 0) || !std::isfinite(options.atol))
            throw UsageError("--tolerance must be a non-negative number");
    }
    options.correctnessTrials = args.integer("trials", options.correctnessTrials);
    options.timingTrials = args.integer("timing-trials", options.timingTrials);
    options.warmups = args.integer("warmups", options.warmups);
    options.timing = !args.flag("no-timing");
    options.device = args.integer("device", options.device);
    options.timeoutMs = args.integer("timeout", options.timeoutMs / 1000) * 1000;
    options.buildDirectory = args.value("build-dir");
    if (options.correctnessTrials < 1 || options.correctnessTrials > 1000 ||
        options.timingTrials < 1 || options.timingTrials > 100000 || options.warmups < 0 ||
        options.timeoutMs < 1000)
        throw UsageError("--trials, --timing-trials, --warmups or --timeout is out of range");

    kernelbench::KernelBenchJob job;
    job.referenceSource = readProblem(args.positionals()[0]);
    job.candidateSource = readTextFile(args.positionals()[1], limits::kKernelBenchSource);
    job.task = args.value("task", args.positionals()[0]);
    job.level = args.integer("level", 1);
    kernelbench::PythonEvaluator::Config config;
    config.python = args.value("python");
    kernelbench::PythonEvaluator evaluator(config);
    const bool json = args.flag("json");
    const EvaluationResult result = evaluator.evaluate(
        job, options, [json](const std::string& stage, double, const std::string&) {
            if (!json)
                std::cerr << "  " << stage << "\n";
        });
    if (json) {
        std::cout << toJson(result).dump(2) << "\n";
    } else {
        std::cout << toString(result.verdict) << ": " << result.message << "\n";
        if (result.compiled)
            std::cout << "compile: " << formatMs(result.compileMs) << "\n";
        for (const auto& d : result.diagnostics)
            std::cout << d.file << ":" << d.line << ": " << d.message << "\n";
        if (result.candidateTime && result.referenceTime)
            std::cout << "candidate " << formatMs(result.candidateTime->medianMs) << ", reference "
                      << formatMs(result.referenceTime->medianMs) << " (medians of "
                      << result.candidateTime->trials << "), speedup " << std::setprecision(3)
                      << result.speedup << "x\n";
        for (const auto& f : result.flags)
            std::cout << "flag " << f.code << ": " << f.message << "\n";
        if (!result.device.empty())
            std::cout << "device: " << result.device << "\n";
    }
    return result.countsAsCorrect() ? 0 : 1;
}

int environment(const std::vector<std::string>& rest) {
    const Arguments args(rest, {"json", "help"}, {});
    if (!args.ok()) {
        std::cerr << "dice kernelbench env: " << args.error() << "\n";
        return 2;
    }
    std::vector<kernelbench::PythonInfo> tried;
    const auto found = kernelbench::findPython(kernelbench::PythonNeed::CudaTorch, &tried);
    if (args.flag("json")) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& p : tried)
            list.push_back({{"python", p.executable},
                            {"version", p.version},
                            {"torch", p.torch},
                            {"torch_version", p.torchVersion},
                            {"torch_cuda", p.torchCuda},
                            {"cuda_available", p.cudaAvailable},
                            {"device", p.device},
                            {"nvcc", p.nvcc},
                            {"ninja", p.ninja},
                            {"problems", p.problems},
                            {"error", p.error}});
        std::cout << nlohmann::json{{"usable", found.has_value()},
                                    {"python", found ? found->executable : ""},
                                    {"tried", list}}
                         .dump(2)
                  << "\n";
    } else if (found) {
        std::cout << "KernelBench candidates run with " << found->executable << " (PyTorch "
                  << found->torchVersion << ", CUDA " << found->torchCuda << ", " << found->device
                  << ", nvcc " << found->nvcc << ")\n";
    } else {
        std::cout << kernelbench::explainMissingPython(tried, kernelbench::PythonNeed::CudaTorch)
                  << "\nThe native dialect does not need any of this.\n";
    }
    return found ? 0 : 1;
}

int presets(const std::vector<std::string>& rest) {
    const Arguments args(rest, {"json", "help"}, {});
    if (!args.ok()) {
        std::cerr << "dice kernelbench presets: " << args.error() << "\n";
        return 2;
    }
    nlohmann::json list = nlohmann::json::array();
    for (const auto& name : presetNames())
        list.push_back(toJson(*presetByName(name)));
    if (args.flag("json")) {
        std::cout << list.dump(2) << "\n";
        return 0;
    }
    for (const auto& p : list)
        std::cout << std::left << std::setw(9) << p["name"].get<std::string>() << "block "
                  << p["block_length"] << ", " << p["denoising_steps"] << " steps, "
                  << p["remasking"].get<std::string>()
                  << (p["remasking"] == "low_confidence_dynamic"
                          ? " (threshold " + p["confidence_threshold"].dump() + ")"
                          : std::string())
                  << ", temperature " << p["temperature"] << ", top-k " << p["top_k"] << ", top-p "
                  << p["top_p"] << ", " << p["max_new_tokens"] << " new tokens"
                  << (p["stop_at_end_token"].get<bool>() ? ", stops at the end token" : "") << "\n";
    return 0;
}

} // namespace

int commandKernelBench(const Invocation& in) {
    if (in.args.empty() || in.args[0] == "--help" || in.args[0] == "help") {
        (in.args.empty() ? std::cerr : std::cout) << kUsage;
        return in.args.empty() ? 2 : 0;
    }
    const std::string sub = in.args[0];
    const std::vector<std::string> rest(in.args.begin() + 1, in.args.end());
    for (const auto& a : rest)
        if (a == "--help") {
            std::cout << kUsage;
            return 0;
        }
    if (sub == "prompt")
        return prompt(rest);
    if (sub == "infill-prompt")
        return infillPrompt(rest);
    if (sub == "extract")
        return extract(rest);
    if (sub == "check")
        return check(rest);
    if (sub == "eval")
        return evaluate(rest);
    if (sub == "env")
        return environment(rest);
    if (sub == "presets")
        return presets(rest);
    if (sub == "agreement")
        return kernelBenchAgreement(in.argv, rest);
    std::cerr << "dice kernelbench: unknown command '" << sub << "'\n\n" << kUsage;
    return 2;
}

int commandImport(const Invocation& in) {
    const Arguments args(
        in.args, {"dry-run", "fast-init", "json", "verify-bench", "help"},
        {"output", "level", "python", "device", "report", "problem-timeout", "memory-limit"});
    if (!args.ok()) {
        std::cerr << "dice import: " << args.error() << "\n";
        return 2;
    }
    if (args.flag("help") || args.positionals().empty() || args.positionals()[0] != "kernelbench" ||
        args.positionals().size() < 2) {
        (args.flag("help") ? std::cout : std::cerr)
            << "usage: dice import kernelbench PATH... [--output DIR] [--level N] [--dry-run]\n"
               "                                [--fast-init] [--python EXE] [--json]\n"
               "                                [--verify-bench --device DEV] [--report FILE]\n"
               "                                [--problem-timeout S] [--memory-limit SIZE]\n\n"
               "Turns KernelBench problem files (or every *.py of a folder) into native tasks:\n"
               "a task file with a TorchScript reference and a safetensors file with the\n"
               "problem's parameters (seed 42). Each conversion is verified against the\n"
               "original Model on the small preset; problems that cannot be converted are\n"
               "listed with the reason. --dry-run converts and verifies without writing;\n"
               "--fast-init (with --dry-run) skips the seeded initialisation of the weights.\n"
               "--verify-bench also compares each reference with the original Model at the\n"
               "bench sizes on DEV (a GPU) and writes nothing; --report writes a result file.\n"
               "A problem that takes longer than --problem-timeout (default 600 s) or needs\n"
               "more than --memory-limit (8G, 512M; default half the machine's memory, at most\n"
               "32G) is reported as not converted, and the others go on.\n";
        return args.flag("help") ? 0 : 2;
    }
    kernelbench::ImportOptions options;
    options.outputDirectory = args.value("output", ".");
    options.level = args.integer("level", 0);
    options.dryRun = args.flag("dry-run");
    options.fastInit = args.flag("fast-init");
    options.python = args.value("python");
    options.verifyBench = args.flag("verify-bench");
    options.device = args.value("device");
    const int problemSeconds = args.integer("problem-timeout", 600);
    if (problemSeconds < 1 || problemSeconds > 24 * 3600)
        throw UsageError("--problem-timeout must be from 1 to 86400 seconds");
    options.problemTimeoutMs = problemSeconds * 1000;
    if (args.has("memory-limit")) {
        std::optional<std::int64_t> limit;
        try {
            limit = memoryLimitFromText(args.value("memory-limit"));
        } catch (const Error& e) {
            throw UsageError(std::string("--memory-limit: ") + e.what());
        }
        if (!limit || *limit < (std::int64_t(256) << 20))
            throw UsageError("--memory-limit must be at least 256M");
        options.memoryLimitBytes = *limit;
    }
    if (options.fastInit && !options.dryRun && !options.verifyBench)
        throw UsageError(
            "--fast-init writes no real weights: use it with --dry-run or --verify-bench");
    if (options.level < 0 || options.level > 3)
        throw UsageError("--level must be 1, 2 or 3");
    const std::vector<std::string> paths(args.positionals().begin() + 1, args.positionals().end());
    const bool json = args.flag("json");
    std::vector<kernelbench::ImportedProblem> seen;
    const auto show = [json, &seen](const kernelbench::ImportedProblem& p) {
        seen.push_back(p);
        if (json)
            return;
        if (p.converted) {
            std::cout << "ok    " << p.source << " -> "
                      << (p.taskFile.empty() ? p.task : p.taskFile) << "\n";
            for (const auto& note : p.notes)
                std::cout << "      note: " << note << "\n";
        } else {
            std::cout << "FAIL  " << p.source << ": " << p.reason << "\n";
        }
        std::cout.flush();
    };
    // The report is written however the import ends: what was converted before a failure of the
    // whole importer is worth as much as the failure's reason.
    const auto writeReport = [&](const kernelbench::ImportReport& report,
                                 const std::string& error) {
        if (!args.has("report"))
            return;
        nlohmann::json file = resultFileHeader("kernelbench-import", in.argv);
        nlohmann::json entries = nlohmann::json::array();
        for (const auto& p : report.problems) {
            // Result files name problems, not this machine's folders.
            const std::filesystem::path source(p.source);
            entries.push_back({{"source", source.parent_path().filename().string() + "/" +
                                              source.filename().string()},
                               {"converted", p.converted},
                               {"task", p.task},
                               {"reason", p.reason},
                               {"notes", p.notes},
                               {"max_error", p.maxError}});
        }
        file["torch"] = report.torchVersion;
        file["device"] = options.device.empty() ? "cpu" : options.device;
        file["verify_bench"] = options.verifyBench;
        file["files"] = report.problems.size();
        file["converted"] = report.converted();
        if (!error.empty())
            file["error"] = error;
        file["problems"] = entries;
        writeFileAtomically(args.value("report"), file.dump(2) + "\n");
    };
    kernelbench::ImportReport report;
    try {
        report = kernelbench::importKernelBench(paths, options, show);
    } catch (const Error& e) {
        kernelbench::ImportReport partial;
        partial.problems = seen;
        writeReport(partial, e.what());
        throw;
    }
    writeReport(report, "");
    const int total = static_cast<int>(report.problems.size());
    const int converted = report.converted();
    nlohmann::json list = nlohmann::json::array();
    for (const auto& p : report.problems)
        list.push_back({{"source", p.source},
                        {"converted", p.converted},
                        {"task", p.task},
                        {"task_file", p.taskFile},
                        {"reason", p.reason},
                        {"notes", p.notes},
                        {"max_error", p.maxError}});
    if (json) {
        std::cout << nlohmann::json{{"python", report.python},
                                    {"torch", report.torchVersion},
                                    {"files", total},
                                    {"converted", converted},
                                    {"problems", list}}
                         .dump(2)
                  << "\n";
    } else {
        std::cout << converted << " of " << total << " converted";
        if (total > 0)
            std::cout << " (" << std::fixed << std::setprecision(1) << 100.0 * converted / total
                      << "%)";
        std::cout << " with " << report.python << " (PyTorch " << report.torchVersion << ")\n";
    }
    return converted == total ? 0 : 1;
}

} // namespace dice::cli
