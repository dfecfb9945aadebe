// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/data/corpus_curator.h"
#include "core/data/corpus_kernelbench.h"
#include "core/data/corpus_synth.h"
#include "core/data/corpus_writer.h"
#include "core/system/result_file.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace dice::cli {

namespace {

int synth(const std::vector<std::string>& words) {
    const Arguments args(words,
                         {"help", "list-families", "kernelbench-style", "vary-kernelbench-surface"},
                         {"output", "seed", "variants", "tree-variants", "held-out-families",
                          "held-out-share", "families", "python"});
    if (!args.ok()) {
        std::cerr << "dice data synth: " << args.error() << "\n";
        return 2;
    }
    if (args.flag("help")) {
        std::cout
            << "usage: dice data synth --output DIR [--seed N] [--variants N] [--tree-variants N]\n"
               "       [--held-out-families A,B,...] [--held-out-share X] [--families A,B,...]\n"
               "       [--kernelbench-style [--python EXE] [--vary-kernelbench-surface]]\n"
               "       [--list-families]\n\n"
               "Generates native tasks and their solutions over the operator families (all, or\n"
               "those --families names), and the training examples made from them (generation\n"
               "and infilling), with held-out variants and held-out families\n"
               "(docs/corpus-format.md). --kernelbench-style also converts each task's module\n"
               "text with the KernelBench importer (a python3 with PyTorch; DIR/kernelbench-style\n"
               "keeps the problem files) and asks for the same solution with the imported\n"
               "problem's prompt; --vary-kernelbench-surface gives those problems KernelBench's\n"
               "own surface (file names after the operator, its docstrings, sizes named\n"
               "batch_size and dim), drawn per task. --tree-variants sets how many tasks each\n"
               "expression-tree family makes (default: --variants).\n";
        return 0;
    }
    if (args.flag("list-families")) {
        for (const auto& f : synthFamilies())
            std::cout << "L" << f.level << "  " << f.archetype << "  " << f.name << "\n";
        return 0;
    }
    if (!args.has("output")) {
        std::cerr << "dice data synth: --output DIR is required\n";
        return 2;
    }
    SynthOptions options;
    options.seed = static_cast<std::uint64_t>(args.integer("seed", 1));
    options.variantsPerFamily = args.integer("variants", options.variantsPerFamily);
    options.treeVariants = args.integer("tree-variants", options.treeVariants);
    options.heldOutVariantShare = args.number("held-out-share", options.heldOutVariantShare);
    options.heldOutFamilies = splitList(args.value("held-out-families"));
    options.families = splitList(args.value("families"));
    auto tasks = synthesizeTasks(options);
    std::size_t kernelbenchStyle = 0;
    if (args.flag("kernelbench-style")) {
        KernelBenchStyleOptions style;
        style.directory =
            (std::filesystem::path(args.value("output")) / "kernelbench-style").string();
        style.python = args.value("python");
        style.varySurface = args.flag("vary-kernelbench-surface");
        KernelBenchStyleReport report;
        auto more = kernelbenchStyleTasks(tasks, style, &report);
        std::cout << "KernelBench style: " << report.converted << " of " << report.problems
                  << " converted with " << report.python << " (PyTorch " << report.torchVersion
                  << "), " << more.size() << " asked\n";
        for (const auto& [task, why] : report.skipped)
            std::cout << "  not asked: " << task << ": " << why << "\n";
        kernelbenchStyle = more.size();
        tasks.insert(tasks.end(), std::make_move_iterator(more.begin()),
                     std::make_move_iterator(more.end()));
    }
    const auto examples = writeCorpus(args.value("output"), tasks, options);
    std::map<std::string, int> splits;
    for (const auto& t : tasks)
        ++splits[toString(t.split)];
    std::set<std::string> families;
    for (const auto& t : tasks)
        families.insert(t.family);
    std::cout << tasks.size() << " tasks over " << families.size() << " families";
    if (kernelbenchStyle > 0)
        std::cout << " (" << kernelbenchStyle << " KernelBench-style)";
    std::cout << ", " << examples << " examples";
    for (const auto& [split, count] : splits)
        std::cout << ", " << split << " " << count;
    std::cout << "\n";
    return 0;
}

int builtin(const std::vector<std::string>& words) {
    const Arguments args(words, {"help"}, {"output", "text"});
    if (!args.ok()) {
        std::cerr << "dice data builtin: " << args.error() << "\n";
        return 2;
    }
    if (args.flag("help")) {
        std::cout << "usage: dice data builtin --output FILE.jsonl [--text FILE.txt]\n\n"
                     "Writes the training examples of the built-in tasks that have a native\n"
                     "solution, as corpus.jsonl lines (docs/corpus-format.md): each task's\n"
                     "generation example with the prompt of dice generate --task, and its\n"
                     "infilling examples with the Infill area's prompts, split train. The\n"
                     "answers leave out the solutions' comment lines. --text also writes their\n"
                     "prompts and answers as plain text, as a corpus's tokenizer-text.txt, for\n"
                     "dice tokenizer train.\n";
        return 0;
    }
    if (!args.has("output")) {
        std::cerr << "dice data builtin: --output FILE.jsonl is required\n";
        return 2;
    }
    std::string lines;
    std::string text;
    std::set<std::string> tasks;
    const auto examples = builtinExamples();
    for (const auto& e : examples) {
        tasks.insert(e.task);
        lines += toJsonLine(e) + "\n";
        text += tokenizerText(e);
    }
    writeFileAtomically(args.value("output"), lines);
    if (args.has("text"))
        writeFileAtomically(args.value("text"), text);
    std::cout << examples.size() << " examples of " << tasks.size() << " built-in tasks\n";
    return 0;
}

int curate(const std::vector<std::string>& words, const std::vector<std::string>& argv) {
    const Arguments args(words, {"help"},
                         {"corpus", "output", "threshold", "time-every", "devices", "timing-trials",
                          "check-workers", "report", "from"});
    if (!args.ok()) {
        std::cerr << "dice data curate: " << args.error() << "\n";
        return 2;
    }
    if (args.flag("help") || !args.has("corpus") || !args.has("output")) {
        (args.flag("help") ? std::cout : std::cerr)
            << "usage: dice data curate --corpus DIR --output DIR [--threshold X] [--time-every "
               "N]\n"
               "       [--timing-trials N] [--devices 0,1,...] [--check-workers N] [--report "
               "FILE]\n"
               "       [--from REPORT]\n\n"
               "Checks every solution of a synthetic corpus with the evaluator (small preset, 2\n"
               "trials), times one verified variant in N of each family (bench preset; N = 8),\n"
               "keeps the verified tasks whose measured speedup, or their family's median\n"
               "measured speedup, reaches the threshold (2 by default, as the paper's), and\n"
               "writes their examples as a corpus to --output with curation.json: the verdict\n"
               "and speedup of every task, the speedup distribution and the GPU time taken.\n"
               "--report also writes that report as a result file (with the command, date and\n"
               "machine). --from takes the verdicts and measured speedups of an earlier report\n"
               "on the same corpus instead of evaluating again, to apply another threshold\n"
               "without a GPU. --check-workers runs the correctness pass on N workers per GPU (1 "
               "by\n"
               "default); the timed subset always has its GPU alone.\n";
        return args.flag("help") ? 0 : 2;
    }
    CurationOptions options;
    options.corpus = args.value("corpus");
    options.output = args.value("output");
    options.threshold = args.number("threshold", 2.0);
    options.timeEvery = args.integer("time-every", 8);
    options.measurements = args.value("from", "");
    options.timing.timingTrials = args.integer("timing-trials", options.timing.timingTrials);
    options.checkWorkersPerDevice = args.integer("check-workers", 1);
    if (options.checkWorkersPerDevice < 1 || options.checkWorkersPerDevice > 16) {
        std::cerr << "dice data curate: --check-workers must be between 1 and 16\n";
        return 2;
    }
    if (args.has("devices")) {
        options.devices.clear();
        for (const auto& d : splitList(args.value("devices")))
            options.devices.push_back(std::stoi(d));
    }
    if (progressShown())
        options.progress = [](std::size_t done, std::size_t total, const std::string& what) {
            std::cerr << "\r" << done << "/" << total << " " << what << "          " << std::flush;
        };
    const CurationReport report = curateCorpus(options);
    if (progressShown())
        std::cerr << "\n";
    if (args.has("report")) {
        nlohmann::json file = resultFileHeader("data-curate", argv);
        file["curation"] = toJson(report);
        writeFileAtomically(args.value("report"), file.dump(1) + "\n");
    }
    if (!report.note.empty())
        std::cout << report.note << "\n";
    std::cout << report.tasks.size() << " tasks: " << report.verified << " verified, "
              << report.timed << " timed, " << report.kept << " kept at " << report.threshold
              << "x (" << report.keptExamples << " examples) in " << report.evaluationSeconds
              << " s\nmeasured speedups:";
    const char* bins[] = {"<0.5", "0.5-1", "1-1.5", "1.5-2", "2-3", ">=3"};
    for (std::size_t i = 0; i < report.histogram.size(); ++i)
        std::cout << " " << bins[i] << ": " << report.histogram[i];
    std::cout << "\n";
    return 0;
}

} // namespace

int commandData(const Invocation& in) {
    if (in.args.empty() || in.args[0] == "--help") {
        std::cout << "usage: dice data synth ...    generate the native corpus\n"
                     "       dice data curate ...   keep its verified, fast solutions\n"
                     "       dice data builtin ...  the built-in tasks' training examples\n";
        return in.args.empty() ? 2 : 0;
    }
    const std::vector<std::string> rest(in.args.begin() + 1, in.args.end());
    if (in.args[0] == "synth")
        return synth(rest);
    if (in.args[0] == "curate")
        return curate(rest, in.argv);
    if (in.args[0] == "builtin")
        return builtin(rest);
    std::cerr << "dice data: unknown subcommand '" << in.args[0] << "'\n";
    return 2;
}

} // namespace dice::cli
