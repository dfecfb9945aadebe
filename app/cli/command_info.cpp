// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/system/system_info.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace dice::cli {

int commandInfo(const Invocation& in) {
    const Arguments args(in.args, {"json", "help"}, {});
    if (!args.ok()) {
        std::cerr << "dice info: " << args.error() << "\n";
        return 2;
    }
    if (args.flag("help")) {
        std::cout << "usage: dice info [--json]\n\nPrints what this machine and build offer: GPUs, "
                     "driver, CUDA toolkit, NVRTC, CUPTI and LibTorch.\n";
        return 0;
    }
    const SystemInfo info = collectSystemInfo();
    if (args.flag("json"))
        std::cout << toJson(info).dump(2) << "\n";
    else
        std::cout << formatSystemInfo(info);
    return 0;
}

} // namespace dice::cli
