// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/cuda/torch_cuda_bridge.h"
#include "core/diffusion/decode_trace.h"
#include "core/engine/model_session.h"
#include "core/infill/infill_plan.h"
#include "core/prompts/native_prompts.h"
#include "core/tasks/holes.h"
#include "core/tasks/task.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

namespace dice::cli {

namespace {

const char* const kUsage =
    "usage: dice generate --model DIR (--prompt TEXT [--chat] | --task TASK\n"
    "                     [--infill [--skeleton FILE]]) [--block N] [--steps N]\n"
    "                     [--strategy static|dynamic|sequential|entropy] [--threshold X]\n"
    "                     [--eb-threshold X] [--temperature X] [--top-k N] [--top-p X]\n"
    "                     [--raw-confidence] [--max-tokens N] [--seed N] [--device cpu|cuda]\n"
    "                     [--dtype bf16|fp16|fp32] [--threads N] [--trace FILE]\n\n"
    "Generates with SDAR block diffusion from a Hugging Face checkpoint folder (config.json,\n"
    "tokenizer.json, model.safetensors or a sharded index). --chat wraps the prompt in the\n"
    "Qwen3 chat template. --task asks for a candidate of a task (a built-in task's name or a\n"
    "task file) with the native generation prompt (the embedded model's), in the chat\n"
    "template. --infill fills every hole of a skeleton in order, as the Infill area's Fill\n"
    "all does: the skeleton of the task's built-in solution (each kernel's body a hole), or\n"
    "--skeleton FILE; the filled program goes to standard output (answers of 2,048 tokens\n"
    "at most, as the Infill area asks, unless --max-tokens says).\n"
    "--max-tokens defaults to 4,096 for --task (the Generate area's default) and 512 for\n"
    "--prompt, cut to what the model's positions leave after the prompt. Decoding is greedy unless "
    "--temperature is above 0, as in the Generate area.\n"
    "--threads sets the CPU threads: by default one for a model of up to 32 M parameters\n"
    "(the embedded model's size, fastest on one), else one per hardware thread.\n"
    "--trace writes one JSON line per decoding step. The answer goes to standard output,\n"
    "figures to standard error, and the loading progress too when it is a terminal.\n";

// The skeleton --infill fills: the file given, else the task's built-in solution with every
// kernel's body a hole, as the Infill area shows a built-in task.
std::string infillSkeleton(const Task& task, const std::string& file) {
    std::string text;
    if (!file.empty()) {
        text = readTextFile(file);
    } else {
        const std::string solution = taskSolutionPath(task);
        if (solution.empty())
            throw Error("--infill: the task " + task.name +
                        " has no solution to make a skeleton of; give --skeleton FILE");
        const auto made = makeSkeleton(readTextFile(solution, limits::kCandidate));
        if (!made)
            throw Error("--infill: the solution of " + task.name + " has no kernel body");
        text = made->text;
    }
    if (findHoles(text).empty())
        throw Error("--infill: the skeleton has no hole ({{hole:NAME}})");
    return text;
}

void printFigures(std::size_t promptTokens, const GenerationResult& r) {
    const double seconds = r.milliseconds / 1000.0;
    std::fprintf(stderr,
                 "%zu prompt tokens, %zu answer tokens (%s) in %.2f s: %.1f tokens/s, %lld forward "
                 "passes, %lld denoising steps\n",
                 promptTokens, r.tokens.size(), toString(r.reason).c_str(), seconds,
                 seconds > 0 ? static_cast<double>(r.tokens.size()) / seconds : 0.0,
                 static_cast<long long>(r.forwardPasses), static_cast<long long>(r.denoisingSteps));
}

} // namespace

int commandGenerate(const Invocation& in) {
    const Arguments args(in.args, {"help", "chat", "raw-confidence", "infill"},
                         {"model", "prompt", "task", "skeleton", "block", "steps", "strategy",
                          "threshold", "eb-threshold", "temperature", "top-k", "top-p",
                          "max-tokens", "seed", "device", "dtype", "trace", "threads"});
    if (!args.ok()) {
        std::cerr << "dice generate: " << args.error() << "\n";
        return 2;
    }
    if (args.flag("help")) {
        std::cout << kUsage;
        return 0;
    }
    if (!args.has("model") || args.has("prompt") == args.has("task")) {
        std::cerr << "dice generate: --model and one of --prompt and --task are needed\n\n"
                  << kUsage;
        return 2;
    }
    if ((args.flag("infill") || args.has("skeleton")) && !args.has("task")) {
        std::cerr << "dice generate: --infill fills a skeleton for a task: --task is needed\n";
        return 2;
    }
    if (args.has("skeleton") && !args.flag("infill")) {
        std::cerr << "dice generate: --skeleton goes with --infill\n";
        return 2;
    }
    // A bad task file or skeleton is reported before the model is loaded.
    std::optional<Task> task;
    if (args.has("task"))
        task = findTask(args.value("task"));
    const std::string taskPrompt = task ? nativeGenerationPrompt(*task) : std::string();
    const std::string skeleton =
        args.flag("infill") ? infillSkeleton(*task, args.value("skeleton")) : std::string();
    const std::string folder = args.value("model");
    const std::string device = args.value("device", "cpu");
    LoadOptions load;
    if (device == "cuda") {
        if (!torchcuda::builtWithCuda() || !torchcuda::available())
            throw Error("--device cuda: no GPU is available to LibTorch");
        load.placement.device = ModelDevice::Cuda;
    } else if (device != "cpu") {
        throw UsageError("--device must be cpu or cuda, not \"" + device + "\"");
    }
    const std::string dtype = args.value("dtype", device == "cuda" ? "bf16" : "fp32");
    const auto parsedDtype = parseModelDType(dtype);
    if (!parsedDtype)
        throw UsageError("--dtype must be bf16, fp16 or fp32, not \"" + dtype + "\"");
    load.placement.dtype = *parsedDtype;

    const bool terminal = progressShown();
    load.progress = [terminal](const LoadProgress& p) {
        if (p.bytesTotal == 0 || !terminal)
            return;
        std::fprintf(stderr, "\rloading %3d%%  %-60.60s",
                     static_cast<int>(100.0 * static_cast<double>(p.bytesDone) /
                                      static_cast<double>(p.bytesTotal)),
                     p.tensor.c_str());
        std::fflush(stderr);
    };
    SessionOptions sessionOptions;
    sessionOptions.load = load;
    sessionOptions.cpuThreads = args.integer("threads", 0);
    auto session = ModelSession::open(folder, sessionOptions);
    if (terminal)
        std::fprintf(stderr, "\n");
    const auto& config = session->summary().config;

    SamplerOptions options;
    options.blockLength = args.integer("block", static_cast<int>(config.blockSize));
    options.steps = args.integer("steps", static_cast<int>(options.blockLength));
    const std::string strategy = args.value("strategy", "dynamic");
    const auto parsedStrategy = parseRemaskStrategy(strategy);
    if (!parsedStrategy)
        throw UsageError("--strategy must be static, dynamic, sequential or entropy, not \"" +
                         strategy + "\"");
    options.strategy = *parsedStrategy;
    options.threshold = args.number("threshold", 0.9);
    options.ebThreshold = args.number("eb-threshold", 0.35);
    options.temperature = args.number("temperature", 0.0);
    options.topK = args.integer("top-k", 0);
    options.topP = args.number("top-p", 1.0);
    options.rawConfidence = args.flag("raw-confidence");
    // As long as the Generate and Infill areas let answers run: a task's whole candidate may be
    // a few thousand tokens, a fill's answer at most kInfillAnswerTokens.
    const int defaultTokens = !skeleton.empty() ? kInfillAnswerTokens : task ? 4096 : 512;
    options.maxTokens = args.integer("max-tokens", defaultTokens);
    options.seed = static_cast<std::uint64_t>(args.integer("seed", 0));

    std::ofstream trace;
    if (args.has("trace")) {
        trace.open(args.value("trace"), std::ios::trunc);
        if (!trace)
            throw FileError(args.value("trace"), "cannot create the trace file");
    }
    const auto traceStep = [&](const DecodeStep& step) {
        if (trace.is_open())
            trace << toJson(step).dump() << "\n";
    };
    // A default budget is cut to what the model's positions leave after the prompt; one asked
    // for with --max-tokens is refused when it does not fit.
    const auto fitted = [&](const std::vector<std::int64_t>& prompt) {
        SamplerOptions o = options;
        if (!args.has("max-tokens"))
            o.maxTokens = std::min(o.maxTokens, session->tokensLeft(prompt.size(), o.blockLength));
        return o;
    };
    if (skeleton.empty()) {
        const auto prompt = task ? session->encodePrompt(taskPrompt, true)
                                 : session->encodePrompt(args.value("prompt"), args.flag("chat"));
        const TextGeneration out = session->generate(prompt, fitted(prompt), traceStep);
        std::cout << out.text << std::endl;
        printFigures(prompt.size(), out.result);
        return 0;
    }
    // Each hole in order, the holes filled before it shown as context, as Fill all does.
    std::map<std::string, std::string> proposals;
    for (const Hole& hole : findHoles(skeleton)) {
        const std::string context = contextForHole(skeleton, hole.name, proposals);
        const HolePrompt asked = promptForHole(context, hole.name, &*task);
        if (asked.problem != HolePrompt::Problem::None)
            throw Error("--infill: hole " + hole.name + ": " +
                        (asked.message.empty() ? std::string("no prompt") : asked.message));
        const auto prompt = session->encodePrompt(asked.text, true);
        const TextGeneration out = session->generate(prompt, fitted(prompt), traceStep);
        proposals[hole.name] = contentFromAnswer(context, hole.name, out.text).content;
        std::fprintf(stderr, "hole %s: ", hole.name.c_str());
        printFigures(prompt.size(), out.result);
    }
    // The filled program: markers replaced from the last, so the offsets before stay right.
    std::string filled = skeleton;
    const std::vector<Hole> holes = findHoles(skeleton);
    for (auto h = holes.rbegin(); h != holes.rend(); ++h)
        filled = fillHole(filled, *h, proposals[h->name]);
    std::cout << filled;
    if (!filled.empty() && filled.back() != '\n')
        std::cout << "\n";
    return 0;
}

} // namespace dice::cli
