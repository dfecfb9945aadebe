// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/arguments.h"

#include "core/common/error.h"
#include "core/cuda/torch_cuda_bridge.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include <unistd.h>

namespace dice::cli {

Arguments::Arguments(const std::vector<std::string>& args, const std::vector<std::string>& flags,
                     const std::vector<std::string>& options) {
    auto contains = [](const std::vector<std::string>& list, const std::string& s) {
        return std::find(list.begin(), list.end(), s) != list.end();
    };
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) {
            m_positionals.push_back(arg);
            continue;
        }
        std::string name = arg.substr(2);
        std::string value;
        bool hasValue = false;
        if (const auto eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
            hasValue = true;
        }
        if (contains(flags, name)) {
            if (hasValue) {
                m_error = "option --" + name + " takes no value";
                return;
            }
            m_flags.push_back(name);
        } else if (contains(options, name)) {
            if (!hasValue) {
                if (i + 1 >= args.size()) {
                    m_error = "option --" + name + " needs a value";
                    return;
                }
                value = args[++i];
            }
            m_values[name] = value;
        } else {
            m_error = "unknown option --" + name;
            return;
        }
    }
}

bool Arguments::flag(const std::string& name) const {
    return std::find(m_flags.begin(), m_flags.end(), name) != m_flags.end();
}

bool Arguments::has(const std::string& name) const {
    return m_values.count(name) != 0;
}

std::string Arguments::value(const std::string& name, const std::string& fallback) const {
    auto found = m_values.find(name);
    return found == m_values.end() ? fallback : found->second;
}

int Arguments::integer(const std::string& name, int fallback) const {
    auto found = m_values.find(name);
    if (found == m_values.end())
        return fallback;
    char* end = nullptr;
    const long v = std::strtol(found->second.c_str(), &end, 10);
    if (end == found->second.c_str() || *end != '\0')
        throw UsageError("--" + name + " needs an integer, not \"" + found->second + "\"");
    return static_cast<int>(v);
}

double Arguments::number(const std::string& name, double fallback) const {
    auto found = m_values.find(name);
    if (found == m_values.end())
        return fallback;
    char* end = nullptr;
    const double v = std::strtod(found->second.c_str(), &end);
    if (end == found->second.c_str() || *end != '\0')
        throw UsageError("--" + name + " needs a number, not \"" + found->second + "\"");
    return v;
}

std::vector<int> gpuIndexList(const std::string& list) {
    std::vector<int> devices;
    std::stringstream stream(list);
    std::string item;
    while (std::getline(stream, item, ',')) {
        char* end = nullptr;
        const long v = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || v < 0 || v > 1024)
            throw UsageError("--devices takes GPU indices such as 0,0,1, not '" + list + "'");
        devices.push_back(static_cast<int>(v));
    }
    return devices;
}

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty())
            out.push_back(item);
    return out;
}

bool progressShown() {
    static const bool terminal = ::isatty(STDERR_FILENO) == 1;
    return terminal;
}

ModelDevice modelDevice(const Arguments& args) {
    const bool gpu = torchcuda::builtWithCuda() && torchcuda::available();
    const std::string device = args.value("device", gpu ? "cuda" : "cpu");
    if (device == "cuda" && !gpu)
        throw Error("--device cuda: " + std::string(torchcuda::builtWithCuda()
                                                        ? "LibTorch sees no GPU"
                                                        : "this LibTorch has no CUDA"));
    if (device != "cuda" && device != "cpu")
        throw UsageError("--device must be cuda or cpu, not \"" + device + "\"");
    return device == "cuda" ? ModelDevice::Cuda : ModelDevice::Cpu;
}

} // namespace dice::cli
