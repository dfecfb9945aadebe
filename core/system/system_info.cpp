// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/system/system_info.h"

#include "core/common/version.h"
#include "core/cuda/cuda_driver.h"
#include "core/cuda/cupti_tracer.h"
#include "core/cuda/driver_release.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/cuda/torch_cuda_bridge.h"
#include "core/system/libtorch_info.h"

#include <nlohmann/json.hpp>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace dice {

namespace {

std::string readCpuModel() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos)
                return line.substr(line.find_first_not_of(' ', colon + 1));
        }
    }
    return "unknown";
}

std::string readOperatingSystem() {
    std::string pretty;
    std::ifstream in("/etc/os-release");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("PRETTY_NAME=", 0) == 0) {
            pretty = line.substr(12);
            if (pretty.size() >= 2 && pretty.front() == '"')
                pretty = pretty.substr(1, pretty.size() - 2);
        }
    }
    utsname u{};
    if (uname(&u) == 0)
        pretty += (pretty.empty() ? "" : ", ") + std::string(u.sysname) + " " + u.release + " " +
                  u.machine;
    return pretty.empty() ? "unknown" : pretty;
}

std::string formatBytes(std::int64_t bytes) {
    std::ostringstream out;
    out.precision(1);
    out << std::fixed << static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0) << " GiB";
    return out.str();
}

} // namespace

SystemInfo collectSystemInfo() {
    SystemInfo info;
    info.productVersion = kProductVersion;
    info.buildType = kBuildType;
    info.compiler = kCompiler;
    info.operatingSystem = readOperatingSystem();
    info.cpuModel = readCpuModel();
    info.cpuCores = static_cast<int>(std::thread::hardware_concurrency());
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && pageSize > 0)
        info.memoryBytes = static_cast<std::int64_t>(pages) * pageSize;

    info.libtorchVersion = libtorchVersion();
    info.libtorchCuda = torchcuda::builtWithCuda();
    info.libtorchCudaVersion = torchcuda::cudaVersion();
    info.libtorchThreads = libtorchThreads();

    info.cudaToolkitVersion = kCudaToolkitVersion;
    info.nvrtcVersion = NvrtcCompiler::version();
    info.cuptiVersion = CuptiTracer::version();
    info.cudaIncludeDirectory = NvrtcCompiler::cudaIncludeDirectory();

    const auto& driver = cu::Driver::instance();
    info.driverAvailable = driver.available();
    info.driverVersion = cu::formatCudaVersion(driver.version());
    info.driverRelease = nvidiaDriverRelease();
    info.driverStatus = driver.available() ? "ok" : driver.unavailableReason();
    info.devices = queryDevices();
    return info;
}

nlohmann::json toJson(const DeviceInfo& d) {
    return nlohmann::json{{"index", d.index},
                          {"name", d.name},
                          {"architecture", d.architecture()},
                          {"compute_capability",
                           std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor)},
                          {"multiprocessors", d.multiprocessors},
                          {"memory_bytes", d.totalMemoryBytes},
                          {"l2_bytes", d.l2CacheBytes},
                          {"clock_khz", d.clockKHz},
                          {"memory_clock_khz", d.memoryClockKHz},
                          {"memory_bus_bits", d.memoryBusWidthBits},
                          {"peak_bandwidth_bytes_per_s", d.peakBandwidth()},
                          {"peak_fp32_flops", d.peakFp32Flops()},
                          {"peak_tensor_flops", d.peakTensorFlops()},
                          {"max_threads_per_block", d.maxThreadsPerBlock},
                          {"max_threads_per_multiprocessor", d.maxThreadsPerMultiprocessor},
                          {"max_blocks_per_multiprocessor", d.maxBlocksPerMultiprocessor},
                          {"registers_per_multiprocessor", d.registersPerMultiprocessor},
                          {"shared_memory_per_multiprocessor", d.sharedMemoryPerMultiprocessor},
                          {"shared_memory_per_block_optin", d.sharedMemoryPerBlockOptin}};
}

nlohmann::json toJson(const SystemInfo& info) {
    nlohmann::json devices = nlohmann::json::array();
    for (const auto& d : info.devices)
        devices.push_back(toJson(d));
    return nlohmann::json{{"product",
                           {{"name", "DICE Workbench"},
                            {"version", info.productVersion},
                            {"build_type", info.buildType},
                            {"compiler", info.compiler}}},
                          {"host",
                           {{"os", info.operatingSystem},
                            {"cpu", info.cpuModel},
                            {"cores", info.cpuCores},
                            {"memory_bytes", info.memoryBytes}}},
                          {"libtorch",
                           {{"version", info.libtorchVersion},
                            {"cuda", info.libtorchCuda},
                            {"cuda_version", info.libtorchCudaVersion},
                            {"threads", info.libtorchThreads}}},
                          {"cuda",
                           {{"toolkit", info.cudaToolkitVersion},
                            {"nvrtc", info.nvrtcVersion},
                            {"cupti", info.cuptiVersion},
                            {"include_dir_found", !info.cudaIncludeDirectory.empty()},
                            {"driver_available", info.driverAvailable},
                            {"driver_version", info.driverVersion},
                            {"driver_release", info.driverRelease},
                            {"driver_status", info.driverStatus}}},
                          {"devices", devices}};
}

SystemInfo systemInfoFromJson(const nlohmann::json& json) {
    SystemInfo info;
    auto text = [](const nlohmann::json& j, const char* key) {
        return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
    };
    const auto empty = nlohmann::json::object();
    const auto& product = json.contains("product") ? json["product"] : empty;
    const auto& libtorch = json.contains("libtorch") ? json["libtorch"] : empty;
    const auto& cuda = json.contains("cuda") ? json["cuda"] : empty;
    info.productVersion = text(product, "version");
    info.libtorchVersion = text(libtorch, "version");
    info.libtorchCuda = libtorch.value("cuda", false);
    info.libtorchCudaVersion = text(libtorch, "cuda_version");
    info.cudaToolkitVersion = text(cuda, "toolkit");
    info.nvrtcVersion = text(cuda, "nvrtc");
    info.cuptiVersion = text(cuda, "cupti");
    info.driverAvailable = cuda.value("driver_available", false);
    info.driverVersion = text(cuda, "driver_version");
    info.driverRelease = text(cuda, "driver_release");
    info.driverStatus = text(cuda, "driver_status");
    if (json.contains("devices") && json["devices"].is_array()) {
        for (const auto& d : json["devices"]) {
            if (!d.is_object())
                continue;
            DeviceInfo device;
            device.index = d.value("index", 0);
            device.name = text(d, "name");
            const std::string cc = text(d, "compute_capability");
            const auto dot = cc.find('.');
            if (dot != std::string::npos) {
                device.computeMajor = std::atoi(cc.substr(0, dot).c_str());
                device.computeMinor = std::atoi(cc.substr(dot + 1).c_str());
            }
            device.multiprocessors = d.value("multiprocessors", 0);
            device.totalMemoryBytes = d.value("memory_bytes", std::int64_t{0});
            info.devices.push_back(device);
        }
    }
    return info;
}

std::string formatSystemInfo(const SystemInfo& info) {
    std::ostringstream out;
    out << "DICE Workbench " << info.productVersion << " (" << info.buildType << ", "
        << info.compiler << ")\n";
    out << "Host:            " << info.operatingSystem << "\n";
    out << "CPU:             " << info.cpuModel << ", " << info.cpuCores << " threads, "
        << formatBytes(info.memoryBytes) << "\n";
    out << "LibTorch:        " << info.libtorchVersion
        << (info.libtorchCuda ? " with CUDA " + info.libtorchCudaVersion : " (CPU only)") << ", "
        << info.libtorchThreads << " threads\n";
    out << "CUDA toolkit:    " << info.cudaToolkitVersion << "\n";
    out << "NVRTC:           " << info.nvrtcVersion
        << (info.cudaIncludeDirectory.empty() ? " (CUDA headers not found)" : "") << "\n";
    out << "CUPTI:           " << info.cuptiVersion << "\n";
    out << "CUDA driver:     "
        << (info.driverAvailable ? info.driverRelease + (info.driverRelease.empty() ? "" : ", ") +
                                       "CUDA " + info.driverVersion
                                 : "unavailable (" + info.driverStatus + ")")
        << "\n";
    if (info.devices.empty()) {
        out << "GPUs:            none\n";
    } else {
        for (const auto& d : info.devices) {
            out << "GPU " << d.index << ":           " << d.name << ", " << d.architecture() << ", "
                << d.multiprocessors << " SMs, " << formatBytes(d.totalMemoryBytes) << ", L2 "
                << d.l2CacheBytes / (1024 * 1024) << " MiB\n";
        }
    }
    return out.str();
}

} // namespace dice
