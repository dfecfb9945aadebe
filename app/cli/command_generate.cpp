// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/common/error.h"
#include "core/cuda/torch_cuda_bridge.h"
#include "core/diffusion/decode_trace.h"
#include "core/engine/model_session.h"
#include "core/model/cpu_threads.h"
#include "core/prompts/native_prompts.h"
#include "core/tasks/task.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace dice::cli {

namespace {

const char* const kUsage =
    "usage: dice generate --model DIR (--prompt TEXT [--chat] | --task TASK) [--block N]\n"
    "                     [--steps N]\n"
    "                     [--strategy static|dynamic|sequential|entropy] [--threshold X]\n"
    "                     [--eb-threshold X] [--temperature X] [--top-k N] [--top-p X]\n"
    "                     [--raw-confidence] [--max-tokens N] [--seed N] [--device cpu|cuda]\n"
    "                     [--dtype bf16|fp16|fp32] [--threads N] [--trace FILE]\n\n"
    "Generates with SDAR block diffusion from a Hugging Face checkpoint folder (config.json,\n"
    "tokenizer.json, model.safetensors or a sharded index). --chat wraps the prompt in the\n"
    "Qwen3 chat template. --task asks for a candidate of a task (a built-in task's name or a\n"
    "task file) with the native generation prompt (the embedded model's), in the chat\n"
    "template. Decoding is greedy unless --temperature is above 0, as in the Generate area.\n"
    "--trace writes one JSON line per decoding step. The answer goes to standard output,\n"
    "figures to standard error, and the loading progress too when it is a terminal.\n";

} // namespace

int commandGenerate(const Invocation& in) {
    const Arguments args(in.args, {"help", "chat", "raw-confidence"},
                         {"model", "prompt", "task", "block", "steps", "strategy", "threshold",
                          "eb-threshold", "temperature", "top-k", "top-p", "max-tokens", "seed",
                          "device", "dtype", "trace", "threads"});
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
    // A bad task file is reported before the model is loaded.
    const std::string taskPrompt =
        args.has("task") ? nativeGenerationPrompt(findTask(args.value("task"))) : std::string();
    const std::string folder = args.value("model");
    const std::string device = args.value("device", "cpu");
    LoadOptions load;
    if (device == "cuda") {
        if (!torchcuda::builtWithCuda() || !torchcuda::available())
            throw Error("--device cuda: no GPU is available to LibTorch");
        load.placement.device = ModelDevice::Cuda;
    } else if (device != "cpu") {
        throw UsageError("--device must be cpu or cuda, not \"" + device + "\"");
    } else {
        setCpuThreads(args.integer("threads", 0));
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
    options.maxTokens = args.integer("max-tokens", 512);
    options.seed = static_cast<std::uint64_t>(args.integer("seed", 0));

    const auto prompt = args.has("task")
                            ? session->encodePrompt(taskPrompt, true)
                            : session->encodePrompt(args.value("prompt"), args.flag("chat"));
    std::ofstream trace;
    if (args.has("trace")) {
        trace.open(args.value("trace"), std::ios::trunc);
        if (!trace)
            throw FileError(args.value("trace"), "cannot create the trace file");
    }
    const TextGeneration out = session->generate(prompt, options, [&](const DecodeStep& step) {
        if (trace.is_open())
            trace << toJson(step).dump() << "\n";
    });
    std::cout << out.text << std::endl;
    const auto& r = out.result;
    const double seconds = r.milliseconds / 1000.0;
    std::fprintf(stderr,
                 "%zu prompt tokens, %zu answer tokens (%s) in %.2f s: %.1f tokens/s, %lld forward "
                 "passes, %lld denoising steps\n",
                 prompt.size(), r.tokens.size(), toString(r.reason).c_str(), seconds,
                 seconds > 0 ? static_cast<double>(r.tokens.size()) / seconds : 0.0,
                 static_cast<long long>(r.forwardPasses), static_cast<long long>(r.denoisingSteps));
    return 0;
}

} // namespace dice::cli
