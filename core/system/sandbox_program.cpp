// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/file_util.h"
#include "core/system/sandbox.h"

#include <cstdlib>
#include <filesystem>

namespace dice {

std::string sandboxProgram() {
    if (const char* chosen = std::getenv("DICE_SANDBOX_PROGRAM"); chosen && *chosen)
        return chosen;
    return (std::filesystem::path(executableDirectory()) / "dice-sandbox").string();
}

} // namespace dice
