// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/kernelbench/python_runtime.h"

#include "core/common/child_process.h"
#include "core/common/error.h"
#include "core/common/file_util.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

namespace dice::kernelbench {

namespace {

constexpr int kProbeTimeoutMs = 120000;

} // namespace

std::string pythonScript(const std::string& name) {
    if (const char* dir = std::getenv("DICE_PYTHON_SCRIPTS"); dir && *dir)
        return (std::filesystem::path(dir) / name).string();
    return (std::filesystem::path(dataDirectory()) / "python" / name).string();
}

std::vector<std::string> pythonCandidates() {
    namespace fs = std::filesystem;
    std::vector<std::string> names;
    if (const char* chosen = std::getenv("DICE_PYTHON"); chosen && *chosen)
        names.push_back(chosen);
    if (const char* path = std::getenv("PATH")) {
        std::string dirs = path;
        size_t start = 0;
        while (start <= dirs.size()) {
            const size_t end = std::min(dirs.find(':', start), dirs.size());
            const std::string dir = dirs.substr(start, end - start);
            if (!dir.empty())
                names.push_back((fs::path(dir) / "python3").string());
            start = end + 1;
        }
    }
    names.push_back("/usr/bin/python3");
    names.push_back("/usr/local/bin/python3");
    std::vector<std::string> unique;
    std::vector<std::string> seen;
    for (const auto& name : names) {
        std::error_code ec;
        if (!fs::exists(name, ec) || ::access(name.c_str(), X_OK) != 0)
            continue;
        const std::string real = fs::weakly_canonical(name, ec).string();
        bool duplicate = false;
        for (const auto& s : seen)
            duplicate = duplicate || s == real;
        if (duplicate)
            continue;
        seen.push_back(real);
        unique.push_back(name);
    }
    return unique;
}

PythonInfo probePython(const std::string& name) {
    // A name without a slash as PATH finds it: the cache and the report name the file.
    const std::string onPath = findExecutable(name);
    const std::string executable = onPath.empty() ? name : onPath;
    static std::mutex mutex;
    static std::map<std::string, PythonInfo> cache;
    {
        std::lock_guard<std::mutex> lock(mutex);
        auto found = cache.find(executable);
        if (found != cache.end())
            return found->second;
    }
    PythonInfo info;
    info.executable = executable;
    const std::string script = pythonScript("kernelbench_worker.py");
    ChildRunOptions probe;
    probe.timeoutMs = kProbeTimeoutMs;
    const ChildResult run = runChild({{executable, script, "--probe"}}, probe);
    if (!run.ok()) {
        info.error = !run.exit.started() ? run.exit.startError
                     : run.exit.timedOut
                         ? "the probe did not finish in time"
                         : "the probe failed (" + run.exit.describe() + "): " + run.err;
    } else {
        try {
            const auto j = nlohmann::json::parse(run.out);
            info.version = j.value("python_version", std::string());
            info.torch = j.value("torch", false);
            info.torchVersion = j.value("torch_version", std::string());
            info.torchCuda = j.value("torch_cuda", std::string());
            info.cudaAvailable = j.value("cuda_available", false);
            info.gpus = j.value("gpus", 0);
            info.device = j.value("device", std::string());
            info.nvcc = j.value("nvcc", std::string());
            info.ninja = j.value("ninja", false);
            for (const auto& p : j.value("problems", nlohmann::json::array()))
                if (p.is_string())
                    info.problems.push_back(p.get<std::string>());
        } catch (const nlohmann::json::exception& e) {
            info.error = std::string("the probe printed something unreadable: ") + e.what();
        }
    }
    std::lock_guard<std::mutex> lock(mutex);
    cache[executable] = info;
    return info;
}

std::optional<PythonInfo> findPython(PythonNeed need, std::vector<PythonInfo>* tried) {
    for (const auto& candidate : pythonCandidates()) {
        const PythonInfo info = probePython(candidate);
        if (tried)
            tried->push_back(info);
        if (!info.error.empty())
            continue;
        if (need == PythonNeed::Any || (need == PythonNeed::Torch && info.torch) ||
            (need == PythonNeed::CudaTorch && info.canEvaluate()))
            return info;
    }
    return std::nullopt;
}

std::string explainMissingPython(const std::vector<PythonInfo>& tried, PythonNeed need) {
    const char* what = need == PythonNeed::CudaTorch
                           ? "KernelBench candidates need python3 with a CUDA build of PyTorch, a "
                             "visible GPU, nvcc and ninja (torch.utils.cpp_extension.load_inline)"
                       : need == PythonNeed::Torch ? "importing KernelBench problems needs python3 "
                                                     "with PyTorch (a CPU build is enough)"
                                                   : "this needs python3";
    std::string text = what;
    if (tried.empty())
        return text + "; no python3 was found (set DICE_PYTHON to choose one).";
    text += ". Tried:";
    for (const auto& info : tried) {
        text += "\n  " + info.executable + ": ";
        if (!info.error.empty())
            text += info.error;
        else if (!info.torch)
            text += "no PyTorch";
        else if (need == PythonNeed::CudaTorch && !info.problems.empty()) {
            for (size_t i = 0; i < info.problems.size(); ++i)
                text += (i ? "; " : "") + info.problems[i];
        } else
            text += "PyTorch " + info.torchVersion;
    }
    text += "\nSet DICE_PYTHON to the interpreter to use.";
    return text;
}

} // namespace dice::kernelbench
