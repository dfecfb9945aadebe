// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/system/result_file.h"
#include "core/tokenizer/bpe_trainer.h"
#include "core/tokenizer/reference_tokenizer.h"
#include "core/tokenizer/tokenizer.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace dice::cli {

namespace {

const char* const kTrainUsage =
    "usage: dice tokenizer train --corpus FILE_OR_DIR... --vocab-size N --output FILE\n"
    "                            [--special TOKEN...] [--min-frequency N]\n\n"
    "Trains a byte-level BPE tokenizer with Qwen's pre-tokenizer on the corpus (files, or\n"
    "folders read recursively) and writes a Hugging Face tokenizer.json. N counts every token:\n"
    "the 256 byte tokens, the merges and the added tokens <|endoftext|>, <|im_start|>,\n"
    "<|im_end|>, <|MASK|> and the --special ones. Pairs seen fewer than --min-frequency times\n"
    "(default 2) are not merged.\n";

struct TrainArguments {
    std::vector<std::string> corpus;
    std::vector<std::string> special;
    std::string vocabSize;
    std::string output;
    std::string minFrequency;
    bool help = false;
};

// --corpus and --special take every following word up to the next option, which the shared
// Arguments class does not do.
bool parseTrain(const std::vector<std::string>& args, TrainArguments& out, std::string& error) {
    std::vector<std::string>* list = nullptr;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.rfind("--", 0) != 0) {
            if (!list) {
                error = "unexpected argument '" + a + "'";
                return false;
            }
            list->push_back(a);
            continue;
        }
        list = nullptr;
        if (a == "--help") {
            out.help = true;
        } else if (a == "--corpus") {
            list = &out.corpus;
        } else if (a == "--special") {
            list = &out.special;
        } else if (a == "--vocab-size" || a == "--output" || a == "--min-frequency") {
            if (i + 1 >= args.size()) {
                error = "option " + a + " needs a value";
                return false;
            }
            std::string& target = a == "--vocab-size" ? out.vocabSize
                                  : a == "--output"   ? out.output
                                                      : out.minFrequency;
            target = args[++i];
        } else {
            error = "unknown option " + a;
            return false;
        }
    }
    return true;
}

std::uint64_t positiveNumber(const std::string& text, const std::string& option) {
    std::size_t used = 0;
    unsigned long long value = 0;
    try {
        value = std::stoull(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (text.empty() || used != text.size() || text[0] == '-' || value == 0)
        throw Error(option + " must be a positive whole number, not '" + text + "'");
    return value;
}

int trainTokenizer(const std::vector<std::string>& rawArgs) {
    TrainArguments args;
    std::string error;
    if (!parseTrain(rawArgs, args, error)) {
        std::cerr << "dice tokenizer train: " << error << "\n\n" << kTrainUsage;
        return 2;
    }
    if (args.help) {
        std::cout << kTrainUsage;
        return 0;
    }
    if (args.corpus.empty() || args.vocabSize.empty() || args.output.empty()) {
        std::cerr << "dice tokenizer train: --corpus, --vocab-size and --output are required\n\n"
                  << kTrainUsage;
        return 2;
    }
    BpeTrainerOptions options;
    options.vocabSize = positiveNumber(args.vocabSize, "--vocab-size");
    if (!args.minFrequency.empty())
        options.minFrequency = positiveNumber(args.minFrequency, "--min-frequency");
    options.specialTokens = args.special;
    BpeTrainer trainer(options);
    const auto start = std::chrono::steady_clock::now();
    for (const auto& path : args.corpus)
        trainer.addPath(path);
    BpeTrainingSummary summary;
    const std::string json = trainer.train(&summary);
    // Read back before writing, so that a file we write is one we can load.
    const Tokenizer check = Tokenizer::fromJson(json, args.output);
    writeFileAtomically(args.output, json);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const auto& skipped : summary.skippedFiles)
        std::cerr << "warning: skipped " << skipped << " (not UTF-8 text)\n";
    std::cout << "read " << summary.bytes << " bytes, " << summary.words << " words ("
              << summary.distinctWords << " different)\n"
              << summary.merges << " merges in " << std::fixed << std::setprecision(2)
              << summary.seconds << " s; " << seconds << " s in all\n"
              << "vocabulary " << check.vocabSize() << " tokens";
    if (summary.vocabSize < options.vocabSize)
        std::cout << " (" << options.vocabSize << " asked; the corpus has no more pairs seen "
                  << options.minFrequency << " times or more)";
    std::cout << "\nwrote " << args.output << "\n";
    return 0;
}

double megabytesPerSecond(std::uint64_t bytes, double seconds) {
    return seconds > 0 ? static_cast<double>(bytes) / 1e6 / seconds : 0;
}

} // namespace

int commandTokenizer(const Invocation& in) {
    if (in.args.empty() || in.args.front() == "--help" || in.args.front() == "help") {
        (in.args.empty() ? std::cerr : std::cout)
            << "usage: dice tokenizer train ...\n\n"
               "train   train a byte-level BPE tokenizer ('dice tokenizer train --help')\n";
        return in.args.empty() ? 2 : 0;
    }
    if (in.args.front() == "train")
        return trainTokenizer({in.args.begin() + 1, in.args.end()});
    std::cerr << "dice tokenizer: unknown subcommand '" << in.args.front() << "'\n";
    return 2;
}

int benchTokenizer(const Invocation& in) {
    const Arguments args({in.args.begin() + 1, in.args.end()}, {"help"}, {"output", "script"});
    if (!args.ok() || !args.positionals().empty()) {
        std::cerr << "dice bench tokenizer: "
                  << (args.ok() ? "unexpected argument '" + args.positionals().front() + "'"
                                : args.error())
                  << "\n";
        return 2;
    }
    if (args.flag("help")) {
        std::cout
            << "usage: dice bench tokenizer [--output FILE] [--script FILE]\n\n"
               "Measures our encoder and the JavaScript reference (@lenml/tokenizers under\n"
               "Node.js) on the parity corpus, in MB/s, in one run: the reference script builds\n"
               "the corpus and times itself, then our tokenizer encodes the same documents and\n"
               "its ids are compared with the reference's. Needs the source tree's\n"
               "tests/reference/tokenizer_reference.cjs (found from the executable's folder or\n"
               "the current one; --script names it) and what scripts/setup.sh installs.\n"
               "--output writes a result file (JSON with the command and the machine).\n";
        return 0;
    }
    std::string script = args.value("script");
    if (script.empty())
        script = findReferenceScript(executableDirectory());
    if (script.empty())
        script = findReferenceScript(std::filesystem::current_path().string());
    if (script.empty())
        throw Error("tests/reference/tokenizer_reference.cjs was not found above the executable's "
                    "folder or the current one; name it with --script");

    std::cout << "running the reference tokenizer (node " << script << ") ..." << std::endl;
    const ReferenceRun reference = runReferenceTokenizer(script);
    const auto loadStart = std::chrono::steady_clock::now();
    const Tokenizer tokenizer = loadReferenceTokenizer(reference);
    const double loadSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - loadStart).count();

    std::size_t mismatched = 0;
    std::uint64_t tokens = 0;
    std::string firstMismatch;
    const auto pass = [&](bool compare) {
        const auto start = std::chrono::steady_clock::now();
        for (const auto& doc : reference.documents) {
            const auto ids = tokenizer.encode(doc.text);
            if (!compare)
                continue;
            tokens += ids.size();
            if (ids != doc.ids) {
                if (firstMismatch.empty())
                    firstMismatch = doc.source + "/" + doc.name;
                ++mismatched;
            }
        }
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    const double cold = pass(true);
    const double warm = pass(false);

    const std::uint64_t bytes = reference.bytes;
    nlohmann::json report = resultFileHeader("bench-tokenizer", in.argv);
    report["tokenizer"] = reference.tokenizer;
    report["corpus"] = {{"bytes", bytes},
                        {"documents", reference.documents.size()},
                        {"tokens", tokens},
                        {"sources", reference.sources}};
    report["reference"] = {{"implementation", reference.reference},
                           {"node", reference.node},
                           {"load_seconds", reference.loadSeconds},
                           {"cold_seconds", reference.coldSeconds},
                           {"warm_seconds", reference.warmSeconds},
                           {"cold_mb_per_s", megabytesPerSecond(bytes, reference.coldSeconds)},
                           {"warm_mb_per_s", megabytesPerSecond(bytes, reference.warmSeconds)}};
    report["ours"] = {{"implementation", "dice::Tokenizer (C++, PCRE2 JIT, ICU NFC)"},
                      {"load_seconds", loadSeconds},
                      {"cold_seconds", cold},
                      {"warm_seconds", warm},
                      {"cold_mb_per_s", megabytesPerSecond(bytes, cold)},
                      {"warm_mb_per_s", megabytesPerSecond(bytes, warm)},
                      {"documents_differing_from_reference", mismatched}};
    report["speedup"] = {{"cold", cold > 0 ? reference.coldSeconds / cold : 0},
                         {"warm", warm > 0 ? reference.warmSeconds / warm : 0}};
    if (args.has("output"))
        writeFileAtomically(args.value("output"), report.dump(2) + "\n");

    std::cout << std::fixed << std::setprecision(2) << "corpus: " << bytes << " bytes, "
              << reference.documents.size() << " documents, " << tokens << " tokens\n"
              << "reference (" << reference.reference << ", Node " << reference.node
              << "): " << megabytesPerSecond(bytes, reference.coldSeconds) << " MB/s cold, "
              << megabytesPerSecond(bytes, reference.warmSeconds) << " MB/s warm\n"
              << "ours: " << megabytesPerSecond(bytes, cold) << " MB/s cold, "
              << megabytesPerSecond(bytes, warm) << " MB/s warm ("
              << report["speedup"]["cold"].get<double>() << "x and "
              << report["speedup"]["warm"].get<double>() << "x the reference)\n";
    if (mismatched) {
        std::cout << mismatched << " documents differ from the reference (first: " << firstMismatch
                  << ")\n";
        return 1;
    }
    std::cout << "ids identical to the reference for every document\n";
    return 0;
}

} // namespace dice::cli
