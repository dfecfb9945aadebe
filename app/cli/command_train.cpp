// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/model/model_config.h"
#include "core/tokenizer/tokenizer.h"
#include "core/train/sft_trainer.h"

#include <atomic>
#include <csignal>
#include <iostream>

namespace dice::cli {

namespace {

std::atomic<bool> g_stop{false};

void onSignal(int) {
    g_stop = true;
}

// Shapes for a new model; the vocabulary comes from the tokenizer.
ModelConfig sizedConfig(const std::string& size) {
    ModelConfig c;
    c.modelType = "sdar";
    if (size == "tiny") {
        c.hiddenSize = 64;
        c.numLayers = 2;
        c.numHeads = 4;
        c.numKvHeads = 2;
        c.headDim = 16;
        c.intermediateSize = 128;
    } else if (size == "nano") {
        c.hiddenSize = 256;
        c.numLayers = 6;
        c.numHeads = 4;
        c.numKvHeads = 2;
        c.headDim = 64;
        c.intermediateSize = 768;
    } else if (size == "small") {
        c.hiddenSize = 384;
        c.numLayers = 8;
        c.numHeads = 6;
        c.numKvHeads = 2;
        c.headDim = 64;
        c.intermediateSize = 1024;
    } else {
        throw Error("unknown --size \"" + size + "\" (tiny, nano, small)");
    }
    c.ropeTheta = 10000.0;
    c.maxPositionEmbeddings = 4096;
    c.torchDtype = "float32";
    return c;
}

int sft(const Invocation& in, const std::vector<std::string>& words) {
    const Arguments args(words, {"help", "no-resume", "fp32-save", "no-mixed-precision"},
                         {"corpus",         "tokenizer",    "output", "init",
                          "model-config",   "size",         "steps",  "batch",
                          "max-length",     "block",        "lr",     "min-lr",
                          "warmup",         "weight-decay", "clip",   "eval-every",
                          "eval-sequences", "save-every",   "seed",   "device",
                          "threads"});
    if (!args.ok()) {
        std::cerr << "dice train sft: " << args.error() << "\n";
        return 2;
    }
    if (args.flag("help")) {
        std::cout
            << "usage: dice train sft --corpus corpus.jsonl --tokenizer tokenizer.json --output "
               "DIR\n"
               "       [--init HF_FOLDER | --model-config config.json | --size tiny|nano|small]\n"
               "       [--steps N] [--batch N] [--max-length N] [--block N] [--lr X] [--min-lr X]\n"
               "       [--warmup N] [--weight-decay X] [--clip X] [--eval-every N]\n"
               "       [--eval-sequences N] [--save-every N] [--seed N] [--device cpu|cuda]\n"
               "       [--threads N] [--no-resume] [--fp32-save] [--no-mixed-precision]\n\n"
               "Supervised fine-tuning with the block-diffusion objective on the corpus's train\n"
               "split (held-out loss on its heldout_variant split). Resumes from the newest\n"
               "checkpoint in DIR; writes DIR/metrics.jsonl and the model to DIR/model.\n";
        return 0;
    }
    for (const char* required : {"corpus", "tokenizer", "output"})
        if (!args.has(required)) {
            std::cerr << "dice train sft: --" << required << " is required\n";
            return 2;
        }
    SftOptions options;
    options.corpus = args.value("corpus");
    options.tokenizer = args.value("tokenizer");
    options.output = args.value("output");
    options.initFrom = args.value("init");
    if (options.initFrom.empty()) {
        const Tokenizer tokenizer = Tokenizer::load(options.tokenizer);
        if (args.has("model-config"))
            options.config = loadModelConfig(args.value("model-config"));
        else
            options.config = sizedConfig(args.value("size", "nano"));
        // Padding rows to a multiple of 64 keep the vocabulary matrices aligned.
        const std::int64_t vocab = (tokenizer.vocabSize() + 63) / 64 * 64;
        if (options.config.vocabSize < tokenizer.vocabSize())
            options.config.vocabSize = vocab;
        const auto mask = tokenizer.tokenId("<|MASK|>");
        const auto end = tokenizer.tokenId("<|im_end|>");
        const auto eot = tokenizer.tokenId("<|endoftext|>");
        if (!mask || !end || !eot)
            throw FileError(options.tokenizer,
                            "needs the tokens <|MASK|>, <|im_end|> and <|endoftext|>");
        options.config.maskTokenId = *mask;
        options.config.eosTokenIds = {*end, *eot};
        options.config.padTokenId = *eot;
        options.config.bosTokenId = *eot;
        options.config.blockSize = args.integer("block", 4);
        options.config.validate("the model configuration");
    }
    options.steps = args.integer("steps", 1000);
    options.batchSize = args.integer("batch", 8);
    options.maxLength = args.integer("max-length", 1024);
    options.blockLength = args.integer("block", 4);
    options.learningRate = args.number("lr", 1e-3);
    options.minLearningRate = args.number("min-lr", options.learningRate / 10);
    options.warmupSteps = args.integer("warmup", 100);
    options.weightDecay = args.number("weight-decay", 0.01);
    options.clipNorm = args.number("clip", 1.0);
    options.evalEvery = args.integer("eval-every", 100);
    options.evalSequences = args.integer("eval-sequences", 64);
    options.saveEvery = args.integer("save-every", 200);
    options.seed = static_cast<std::uint64_t>(args.integer("seed", 1));
    options.threads = args.integer("threads", 0);
    options.resume = !args.flag("no-resume");
    options.mixedPrecision = !args.flag("no-mixed-precision");
    options.saveDType = args.flag("fp32-save") ? ModelDType::Float32 : ModelDType::BFloat16;
    const std::string device = args.value("device", "cpu");
    if (device != "cpu" && device != "cuda")
        throw UsageError("--device must be cpu or cuda");
    options.placement.device = device == "cuda" ? ModelDevice::Cuda : ModelDevice::Cpu;
    options.log = [](const std::string& line) { std::cout << line << std::endl; };
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    options.cancel = &g_stop;
    const SftReport report = trainSft(options);
    std::cout << (report.cancelled ? "stopped" : "finished") << " at step " << report.steps
              << " in " << report.seconds << " s ("
              << static_cast<long long>(report.tokensPerSecond) << " tokens/s); loss "
              << report.firstLoss << " -> " << report.lastLoss;
    if (report.evalLoss >= 0)
        std::cout << ", held-out " << report.evalLoss;
    if (!report.modelFolder.empty())
        std::cout << "; model in " << report.modelFolder;
    std::cout << "\n";
    (void)in;
    return report.cancelled ? 130 : 0;
}

} // namespace

int commandTrain(const Invocation& in) {
    if (in.args.empty() || in.args[0] == "--help") {
        std::cout << "usage: dice train sft ...   supervised fine-tuning (sft --help)\n"
                     "       dice train rl ...    reinforcement learning, BiC-RL (rl --help)\n";
        return in.args.empty() ? 2 : 0;
    }
    const std::vector<std::string> rest(in.args.begin() + 1, in.args.end());
    if (in.args[0] == "sft")
        return sft(in, rest);
    if (in.args[0] == "rl")
        return trainRl(in, rest);
    std::cerr << "dice train: unknown subcommand '" << in.args[0] << "'\n";
    return 2;
}

} // namespace dice::cli
