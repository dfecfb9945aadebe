// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/bench/model_bench.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/common/number_format.h"
#include "core/cuda/device_info.h"
#include "core/cuda/torch_cuda_bridge.h"
#include "core/model/cpu_threads.h"
#include "core/system/result_file.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace dice::cli {

namespace {

int runModelBench(const Invocation& in, const std::vector<std::string>& rest) {
    const Arguments args(rest, {"help", "no-graphs", "no-transformers"},
                         {"device", "shapes", "dtype", "batch", "output", "iterations", "tokens",
                          "cached", "python", "bandwidth", "threads"});
    if (!args.ok()) {
        std::cerr << "dice bench model: " << args.error() << "\n";
        return 2;
    }
    if (args.flag("help")) {
        std::cout
            << "usage: dice bench model [--device cuda|cpu] [--shapes 1.7b,4b,8b|20m] [--dtype "
               "bf16]\n"
               "                        [--batch 1,16] [--iterations N] [--tokens N] [--cached N]\n"
               "                        [--no-graphs] [--no-transformers] [--python PYTHON]\n"
               "                        [--bandwidth BYTES_PER_S] [--threads N] [--output FILE]\n\n"
               "Times the model engine with random weights in the SDAR/DICE shapes: milliseconds\n"
               "per denoising pass (a block of 4 over 512 cached tokens), tokens per second of a\n"
               "512-token generation with static and dynamic decoding, peak GPU memory, and the\n"
               "same pass through Hugging Face transformers (bench/hf_qwen3_bench.py), each "
               "beside\n"
               "the weight-streaming bound (weight bytes / the GPU's peak memory bandwidth, or\n"
               "4.8 TB/s, an H200's, on the CPU), and the kernels that fill a GPU pass.\n"
               "--threads sets LibTorch's CPU threads (default: one per hardware thread).\n";
        return 0;
    }
    ModelBenchOptions options;
    const bool gpu = torchcuda::builtWithCuda() && torchcuda::available();
    const std::string device = args.value("device", gpu ? "cuda" : "cpu");
    if (device == "cuda") {
        if (!gpu)
            throw Error("--device cuda: " + std::string(torchcuda::builtWithCuda()
                                                            ? "LibTorch sees no GPU"
                                                            : "this LibTorch has no CUDA"));
        options.device = ModelDevice::Cuda;
    } else if (device == "cpu") {
        options.device = ModelDevice::Cpu;
    } else {
        throw UsageError("--device must be cuda or cpu, not \"" + device + "\"");
    }
    const bool cpu = options.device == ModelDevice::Cpu;
    options.shapes = splitList(args.value("shapes", cpu ? "20m" : "1.7b,4b,8b"));
    for (const auto& s : options.shapes)
        benchmarkShape(s);
    const std::string dtype = args.value("dtype", cpu ? "fp32" : "bf16");
    const auto parsed = parseModelDType(dtype);
    if (!parsed)
        throw UsageError("--dtype must be bf16, fp16 or fp32, not \"" + dtype + "\"");
    options.dtype = *parsed;
    options.batches.clear();
    for (const auto& b : splitList(args.value("batch", "1,16"))) {
        char* end = nullptr;
        const long v = std::strtol(b.c_str(), &end, 10);
        if (*end != '\0' || v <= 0 || v > 4096)
            throw UsageError("--batch needs positive integers, not \"" + b + "\"");
        options.batches.push_back(v);
    }
    options.passIterations = args.integer("iterations", cpu ? 20 : 50);
    options.generateTokens = args.integer("tokens", 512);
    options.cached = args.integer("cached", 512);
    // The bound is the GPU's own: a ratio against another GPU's bandwidth would say little.
    double peak = 4.8e12;
    std::string bandwidthSource = "an H200's, for reference";
    if (!cpu && !args.has("bandwidth")) {
        const auto devices = queryDevices();
        if (!devices.empty() && devices.front().peakBandwidth() > 0) {
            peak = devices.front().peakBandwidth();
            bandwidthSource = devices.front().name + "'s peak";
        } else {
            bandwidthSource = "an H200's (this GPU's peak was not reported)";
        }
    }
    options.bandwidth = args.number("bandwidth", peak);
    if (options.passIterations <= 0 || options.generateTokens <= 0 || options.cached <= 0 ||
        !(options.bandwidth > 0))
        throw UsageError("--iterations, --tokens, --cached and --bandwidth must be positive");
    options.cudaGraphs = !args.flag("no-graphs");
    options.cpuThreads = args.integer("threads", 0);
    const char* pythonEnv = std::getenv("PYTHON");
    options.python = args.value("python", pythonEnv && *pythonEnv ? pythonEnv : "python3");
    const auto script = std::filesystem::path(dataDirectory()) / "bench" / "hf_qwen3_bench.py";
    if (!args.flag("no-transformers")) {
        if (!std::filesystem::exists(script))
            throw Error(script.string() + " is missing (use --no-transformers to skip it)");
        options.transformersScript = script.string();
    }
    options.log = [](const std::string& line) { std::cerr << line << std::endl; };

    nlohmann::json report = resultFileHeader("bench-model", in.argv);
    report["options"] = {
        {"device", device},
        {"dtype", toString(options.dtype)},
        {"cached", options.cached},
        {"block", options.blockLength},
        {"iterations", options.passIterations},
        {"generate_tokens", options.generateTokens},
        {"bandwidth_bytes_per_s", options.bandwidth},
        {"bandwidth_source", args.has("bandwidth") ? "--bandwidth" : bandwidthSource},
        {"cuda_graphs", options.cudaGraphs},
        {"cpu_threads", setCpuThreads(options.cpuThreads)}};
    report["results"] = runModelBenchmark(options);
    if (args.has("output"))
        writeFileAtomically(args.value("output"), report.dump(2) + "\n");

    std::cout << "shape  batch  pass ms  bound ms  x bound  transformers ms  speedup  "
                 "static tok/s  dynamic tok/s\n";
    for (const auto& shape : report["results"]) {
        for (const auto& pass : shape["denoise_pass"]) {
            const auto batch = pass["batch"].get<std::int64_t>();
            std::string staticRate = "-", dynamicRate = "-";
            for (const auto& g : shape["generation"]) {
                if (g["batch"].get<std::int64_t>() != batch)
                    continue;
                const std::string rate = formatFixed(g["tokens_per_s"].get<double>(), 1);
                if (g["strategy"] == "low_confidence_static")
                    staticRate = rate;
                else
                    dynamicRate = rate;
            }
            std::cout << shape["shape"].get<std::string>() << "  " << batch << "  "
                      << formatFixed(pass["median_ms"].get<double>(), 3) << "  "
                      << formatFixed(pass["bound_ms"].get<double>(), 3) << "  "
                      << formatFixed(pass["ratio_to_bound"].get<double>(), 2) << "  "
                      << (pass.contains("transformers_median_ms")
                              ? formatFixed(pass["transformers_median_ms"].get<double>(), 3)
                              : std::string("-"))
                      << "  "
                      << (pass.contains("speedup_vs_transformers")
                              ? formatFixed(pass["speedup_vs_transformers"].get<double>(), 1) + "x"
                              : std::string("-"))
                      << "  " << staticRate << "  " << dynamicRate << "\n";
        }
        // What fills a GPU pass: the three longest kernels and the idle time between kernels.
        for (const auto& pass : shape["denoise_pass"]) {
            if (!pass.contains("kernels") || !pass["kernels"].contains("kernels"))
                continue;
            const auto& k = pass["kernels"];
            std::cout << shape["shape"].get<std::string>() << " batch "
                      << pass["batch"].get<std::int64_t>() << ": kernels busy "
                      << formatFixed(k["busy_ms_per_pass"].get<double>(), 3) << " ms, idle "
                      << formatFixed(k["idle_ms_per_pass"].get<double>(), 3) << " ms;";
            int listed = 0;
            for (const auto& e : k["kernels"]) {
                if (listed++ == 3)
                    break;
                std::cout << (listed == 1 ? " " : ", ")
                          << e["name"].get<std::string>().substr(0, 60) << " "
                          << formatFixed(100 * e["share_of_pass"].get<double>(), 1) << "%";
            }
            std::cout << "\n";
        }
        if (shape.contains("transformers") && shape["transformers"].contains("error"))
            std::cout << shape["shape"].get<std::string>()
                      << ": transformers: " << shape["transformers"]["error"].get<std::string>()
                      << "\n";
    }
    return 0;
}

} // namespace

int benchModel(const Invocation& in) {
    const std::vector<std::string> rest(in.args.begin() + 1, in.args.end());
    return runModelBench(in, rest);
}

} // namespace dice::cli
