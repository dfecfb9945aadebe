// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/kernelbench/python_runtime.h"

#include "core/common/error.h"
#include "core/common/file_util.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

namespace dice::kernelbench {

namespace {

constexpr int kProbeTimeoutMs = 120000;

void drain(int fd, std::string& buffer, bool& open) {
    char chunk[65536];
    for (;;) {
        const ssize_t n = ::read(fd, chunk, sizeof(chunk));
        if (n > 0) {
            buffer.append(chunk, static_cast<size_t>(n));
            continue;
        }
        if (n == 0)
            open = false;
        else if (errno == EINTR)
            continue;
        return;
    }
}

} // namespace

ProcessResult runProcess(const std::vector<std::string>& argv, int timeoutMs,
                         const std::function<void(const std::string&)>& onLine) {
    ProcessResult result;
    if (argv.empty()) {
        result.startError = "no program to run";
        return result;
    }
    int out[2], err[2];
    if (::pipe(out) != 0) {
        result.startError = std::string("cannot create a pipe: ") + std::strerror(errno);
        return result;
    }
    if (::pipe(err) != 0) {
        ::close(out[0]);
        ::close(out[1]);
        result.startError = std::string("cannot create a pipe: ") + std::strerror(errno);
        return result;
    }
    std::vector<std::string> args = argv;
    std::vector<char*> raw;
    for (auto& a : args)
        raw.push_back(a.data());
    raw.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
        result.startError = std::string("cannot start ") + argv[0] + ": " + std::strerror(errno);
        for (int fd : {out[0], out[1], err[0], err[1]})
            ::close(fd);
        return result;
    }
    if (pid == 0) {
        // Only async-signal-safe calls from here to exec.
        const int devnull = ::open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            ::dup2(devnull, 0);
        ::dup2(out[1], 1);
        ::dup2(err[1], 2);
        for (int fd : {out[0], out[1], err[0], err[1]})
            ::close(fd);
        ::execvp(raw[0], raw.data());
        const char message[] = "exec failed\n";
        [[maybe_unused]] const ssize_t written = ::write(2, message, sizeof(message) - 1);
        ::_exit(127);
    }
    ::close(out[1]);
    ::close(err[1]);
    ::fcntl(out[0], F_SETFL, ::fcntl(out[0], F_GETFL) | O_NONBLOCK);
    ::fcntl(err[0], F_SETFL, ::fcntl(err[0], F_GETFL) | O_NONBLOCK);
    bool outOpen = true;
    bool errOpen = true;
    size_t delivered = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (outOpen || errOpen) {
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) {
            ::kill(pid, SIGKILL);
            result.timedOut = true;
            break;
        }
        const int wait = static_cast<int>(
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count());
        pollfd fds[2] = {{outOpen ? out[0] : -1, POLLIN, 0}, {errOpen ? err[0] : -1, POLLIN, 0}};
        const int ready = ::poll(fds, 2, std::min(wait, 1000));
        if (ready < 0 && errno != EINTR)
            break;
        if (outOpen && fds[0].revents)
            drain(out[0], result.out, outOpen);
        if (errOpen && fds[1].revents)
            drain(err[0], result.err, errOpen);
        if (onLine) {
            for (;;) {
                const size_t newline = result.out.find('\n', delivered);
                if (newline == std::string::npos)
                    break;
                onLine(result.out.substr(delivered, newline - delivered));
                delivered = newline + 1;
            }
        }
    }
    ::close(out[0]);
    ::close(err[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFEXITED(status))
        result.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        result.exitCode = 128 + WTERMSIG(status);
    if (result.exitCode == 127 && result.err.find("exec failed") != std::string::npos)
        result.startError = "cannot run " + argv[0];
    if (onLine && delivered < result.out.size())
        onLine(result.out.substr(delivered));
    return result;
}

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

std::string resolveExecutable(const std::string& name) {
    if (name.empty() || name.find('/') != std::string::npos)
        return name;
    if (const char* path = std::getenv("PATH")) {
        const std::string dirs = path;
        size_t start = 0;
        while (start <= dirs.size()) {
            const size_t end = std::min(dirs.find(':', start), dirs.size());
            const std::string candidate =
                (std::filesystem::path(dirs.substr(start, end - start)) / name).string();
            if (end > start && ::access(candidate.c_str(), X_OK) == 0)
                return candidate;
            start = end + 1;
        }
    }
    return name;
}

PythonInfo probePython(const std::string& name) {
    const std::string executable = resolveExecutable(name);
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
    const ProcessResult run = runProcess({executable, script, "--probe"}, kProbeTimeoutMs);
    if (!run.ok()) {
        info.error = !run.startError.empty() ? run.startError
                     : run.timedOut          ? "the probe did not finish in time"
                                             : "the probe failed (exit status " +
                                          std::to_string(run.exitCode) + "): " + run.err;
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
