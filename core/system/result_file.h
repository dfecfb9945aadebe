// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dice {

// Every benchmark and self-test result file starts with the same header: what was run (the exact
// command), when, and on what (GPU, driver, CUDA, LibTorch), so that anyone can rerun it.
nlohmann::json resultFileHeader(const std::string& kind, const std::vector<std::string>& argv);

// "dice selftest --json" from argv, quoting words that need it.
std::string commandLine(const std::vector<std::string>& argv);

// UTC time as 2026-12-02T17:41:13Z.
std::string utcTimestamp();

} // namespace dice
