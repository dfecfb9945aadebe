// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/nvrtc_compiler.h"

#include "core/cuda/compile_log_parser.h"
#include "core/cuda/compiler_options.h"
#include "core/cuda/device_info.h"
#include "core/cuda/header_policy.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>

#if DICE_HAVE_CUDA_TOOLKIT
#include <dlfcn.h>
#include <nvrtc.h>
#endif

namespace dice {

NvrtcCompiler::NvrtcCompiler(std::size_t cacheEntries)
    : m_capacity(cacheEntries) {}

bool NvrtcCompiler::available() {
#if DICE_HAVE_CUDA_TOOLKIT
    return true;
#else
    return false;
#endif
}

std::string NvrtcCompiler::version() {
#if DICE_HAVE_CUDA_TOOLKIT
    int major = 0;
    int minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        return "unknown";
    return std::to_string(major) + "." + std::to_string(minor);
#else
    return "none";
#endif
}

bool NvrtcCompiler::hasFastCompile() {
#if DICE_HAVE_CUDA_TOOLKIT
    int major = 0;
    int minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        return false;
    return major > 12 || (major == 12 && minor >= 8);
#else
    return false;
#endif
}

std::string NvrtcCompiler::cudaIncludeDirectory() {
    namespace fs = std::filesystem;
    auto hasHeaders = [](const fs::path& dir) {
        std::error_code ec;
        return fs::exists(dir / "cuda_fp16.h", ec);
    };
    for (const char* variable : {"DICE_CUDA_INCLUDE", "CUDA_HOME", "CUDA_PATH"}) {
        if (const char* value = std::getenv(variable); value && *value) {
            const fs::path base(value);
            if (hasHeaders(base))
                return base.string();
            if (hasHeaders(base / "include"))
                return (base / "include").string();
        }
    }
#if DICE_HAVE_CUDA_TOOLKIT
    // The toolkit that holds the NVRTC library we run with.
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) && info.dli_fname) {
        const fs::path library = fs::weakly_canonical(fs::path(info.dli_fname));
        for (fs::path dir = library.parent_path(); !dir.empty() && dir != dir.root_path();
             dir = dir.parent_path()) {
            if (hasHeaders(dir / "include"))
                return (dir / "include").string();
        }
    }
#endif
    if (hasHeaders("/usr/local/cuda/include"))
        return "/usr/local/cuda/include";
#ifdef DICE_CUDA_INCLUDE_AT_BUILD
    if (hasHeaders(DICE_CUDA_INCLUDE_AT_BUILD))
        return DICE_CUDA_INCLUDE_AT_BUILD;
#endif
    return {};
}

std::string NvrtcCompiler::defaultArchitecture() {
    const auto devices = queryDevices();
    if (!devices.empty())
        return devices.front().architecture();
    return "sm_90";
}

std::size_t NvrtcCompiler::cacheHits() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_hits;
}

void NvrtcCompiler::clearCache() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_cache.clear();
    m_order.clear();
}

CompileResult NvrtcCompiler::compile(const std::string& source, const std::string& fileName,
                                     const CompileOptions& options) {
    const std::string arch =
        options.architecture.empty() ? defaultArchitecture() : options.architecture;
    std::string key = arch + '\x1f' + fileName + '\x1f' + (options.lineInfo ? "L" : "l") +
                      (options.fastMath ? "F" : "f") + '\x1f' + options.fastCompile;
    for (const auto& o : options.extraOptions)
        key += '\x1f' + o;
    key += '\x1e';
    for (const auto& n : options.nameExpressions)
        key += '\x1f' + n;
    key += '\x1e' + source;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto found = m_cache.find(key);
        if (found != m_cache.end()) {
            ++m_hits;
            m_order.splice(m_order.begin(), m_order, found->second.second);
            CompileResult hit = found->second.first;
            hit.fromCache = true;
            return hit;
        }
    }
    CompileResult result = compileUncached(source, fileName, options, arch);
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_capacity == 0 || m_cache.count(key))
        return result;
    m_order.push_front(key);
    m_cache.emplace(key, std::make_pair(result, m_order.begin()));
    while (m_cache.size() > m_capacity) {
        m_cache.erase(m_order.back());
        m_order.pop_back();
    }
    return result;
}

CompileResult NvrtcCompiler::compileUncached(const std::string& source, const std::string& fileName,
                                             const CompileOptions& options,
                                             const std::string& arch) {
    CompileResult result;
    result.architecture = arch;
#if !DICE_HAVE_CUDA_TOOLKIT
    (void)source;
    (void)options;
    Diagnostic d;
    d.file = fileName;
    d.severity = Severity::Error;
    d.message = "this build has no NVRTC (the CUDA toolkit was not found when it was configured)";
    result.diagnostics.push_back(d);
    result.log = d.message;
    return result;
#else
    const auto start = std::chrono::steady_clock::now();
    const std::string include = cudaIncludeDirectory();
    // NVRTC would open any path an #include names and quote its lines back: nothing reaches it
    // that includes more than the toolkit's headers.
    result.diagnostics = checkDeviceIncludes(source, fileName, include);
    if (!result.diagnostics.empty()) {
        for (const auto& d : result.diagnostics)
            result.log += d.file + "(" + std::to_string(d.line) + "): error: " + d.message + "\n";
        result.milliseconds =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        return result;
    }
    if (!isFastCompileLevel(options.fastCompile)) {
        Diagnostic d;
        d.file = fileName;
        d.message = "unknown fast-compile level \"" + options.fastCompile + "\" (min, mid or max)";
        result.diagnostics.push_back(d);
        result.log = d.message;
        return result;
    }
    nvrtcProgram program = nullptr;
    nvrtcResult rc =
        nvrtcCreateProgram(&program, source.c_str(), fileName.c_str(), 0, nullptr, nullptr);
    if (rc != NVRTC_SUCCESS) {
        Diagnostic d;
        d.file = fileName;
        d.message = std::string("NVRTC could not create the program: ") + nvrtcGetErrorString(rc);
        result.diagnostics.push_back(d);
        result.log = d.message;
        return result;
    }
    std::vector<std::string> args;
    args.push_back("--gpu-architecture=" + arch);
    args.push_back("-std=c++17");
    args.push_back("--ptxas-options=-v");
    if (options.lineInfo)
        args.push_back("-lineinfo");
    if (options.fastMath)
        args.push_back("--use_fast_math");
    if (!options.fastCompile.empty() && hasFastCompile())
        args.push_back("--Ofast-compile=" + options.fastCompile);
    // Headers come from the toolkit's folder only, never from beside the process.
    args.push_back("--no-source-include");
    for (const std::string& folder : toolkitIncludeFolders(include))
        args.push_back("-I" + folder);
    for (const auto& o : options.extraOptions)
        args.push_back(o);
    std::vector<const char*> argv;
    argv.reserve(args.size());
    for (const auto& a : args)
        argv.push_back(a.c_str());
    for (const auto& name : options.nameExpressions)
        nvrtcAddNameExpression(program, name.c_str());

    rc = nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
    size_t logSize = 0;
    if (nvrtcGetProgramLogSize(program, &logSize) == NVRTC_SUCCESS && logSize > 1) {
        result.log.resize(logSize);
        nvrtcGetProgramLog(program, result.log.data());
        result.log.resize(logSize - 1);
    }
    result.diagnostics = parseNvrtcLog(result.log);
    result.resources = parsePtxasInfo(result.log);
    if (rc == NVRTC_SUCCESS) {
        size_t ptxSize = 0;
        if (nvrtcGetPTXSize(program, &ptxSize) == NVRTC_SUCCESS && ptxSize > 0) {
            result.ptx.resize(ptxSize);
            nvrtcGetPTX(program, result.ptx.data());
            result.ptx.resize(ptxSize - 1);
        }
        size_t cubinSize = 0;
        if (nvrtcGetCUBINSize(program, &cubinSize) == NVRTC_SUCCESS && cubinSize > 0) {
            result.cubin.resize(cubinSize);
            nvrtcGetCUBIN(program, result.cubin.data());
        }
        for (const auto& name : options.nameExpressions) {
            const char* lowered = nullptr;
            if (nvrtcGetLoweredName(program, name.c_str(), &lowered) == NVRTC_SUCCESS && lowered)
                result.loweredNames[name] = lowered;
        }
        result.ok = true;
    } else if (result.errorCount() == 0) {
        Diagnostic d;
        d.file = fileName;
        d.message = std::string("NVRTC failed: ") + nvrtcGetErrorString(rc);
        if (!result.log.empty())
            d.message += " (" + result.log.substr(0, 400) + ")";
        result.diagnostics.push_back(d);
    }
    nvrtcDestroyProgram(&program);
    result.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
#endif
}

} // namespace dice
