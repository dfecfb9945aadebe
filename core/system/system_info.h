// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/device_info.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace dice {

// What this machine and this build offer: the answer to `dice info`, the GUI's status bar and the
// header of every benchmark result file.
struct SystemInfo {
    std::string productVersion;
    std::string buildType;
    std::string compiler;
    std::string operatingSystem;
    std::string cpuModel;
    int cpuCores = 0;
    std::int64_t memoryBytes = 0;

    std::string libtorchVersion;
    bool libtorchCuda = false;
    std::string libtorchCudaVersion;
    int libtorchThreads = 0;

    std::string cudaToolkitVersion; // headers the build saw, "none" without
    std::string nvrtcVersion;
    std::string cuptiVersion;
    std::string cudaIncludeDirectory;

    bool driverAvailable = false;
    std::string driverVersion; // CUDA version the driver supports: "13.0", or "none"
    std::string driverRelease; // the NVIDIA driver's own release: "580.159.04"
    std::string driverStatus;  // why the driver is unavailable
    std::vector<DeviceInfo> devices;
};

SystemInfo collectSystemInfo();

nlohmann::json toJson(const DeviceInfo& device);
nlohmann::json toJson(const SystemInfo& info);
SystemInfo systemInfoFromJson(const nlohmann::json& json);
// Human-readable report, one fact per line.
std::string formatSystemInfo(const SystemInfo& info);

} // namespace dice
