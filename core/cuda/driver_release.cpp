// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cuda/driver_release.h"

#include <dlfcn.h>

#include <cctype>
#include <fstream>
#include <sstream>

namespace dice {

namespace {

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu ..." -> "580.159.04"
std::string fromProc() {
    std::ifstream in("/proc/driver/nvidia/version");
    std::string line;
    if (!std::getline(in, line))
        return {};
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
        const bool dotted = word.find('.') != std::string::npos;
        const bool digits = !word.empty() && std::isdigit(static_cast<unsigned char>(word[0]));
        if (dotted && digits)
            return word;
    }
    return {};
}

std::string fromNvml() {
    void* handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle)
        return {};
    using Init = int (*)();
    using Version = int (*)(char*, unsigned);
    using Shutdown = int (*)();
    auto init = reinterpret_cast<Init>(dlsym(handle, "nvmlInit_v2"));
    auto version = reinterpret_cast<Version>(dlsym(handle, "nvmlSystemGetDriverVersion"));
    auto shutdown = reinterpret_cast<Shutdown>(dlsym(handle, "nvmlShutdown"));
    std::string out;
    if (init && version && shutdown && init() == 0) {
        char buffer[96] = {};
        if (version(buffer, sizeof(buffer)) == 0)
            out = buffer;
        shutdown();
    }
    dlclose(handle);
    return out;
}

} // namespace

std::string nvidiaDriverRelease() {
    std::string release = fromProc();
    if (release.empty())
        release = fromNvml();
    return release;
}

} // namespace dice
