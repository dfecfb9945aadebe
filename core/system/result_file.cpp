// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/system/result_file.h"

#include "core/system/system_info.h"

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <initializer_list>

namespace dice {

std::string utcTimestamp() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buffer[32];
    std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buffer;
}

std::string commandLine(const std::vector<std::string>& argv) {
    std::string out;
    for (size_t i = 0; i < argv.size(); ++i) {
        std::string word = argv[i];
        if (i == 0)
            word = std::filesystem::path(word).filename().string();
        const bool plain =
            !word.empty() && word.find_first_of(" \t\"'$\\;&|<>()") == std::string::npos;
        if (!out.empty())
            out += ' ';
        if (plain) {
            out += word;
        } else {
            out += '\'';
            for (char c : word) {
                if (c == '\'')
                    out += "'\\''";
                else
                    out += c;
            }
            out += '\'';
        }
    }
    return out;
}

nlohmann::json resultFileHeader(const std::string& kind, const std::vector<std::string>& argv) {
    nlohmann::json header{{"kind", kind},
                          {"command", commandLine(argv)},
                          {"date", utcTimestamp()},
                          {"system", toJson(collectSystemInfo())}};
    // The variables that change what the command measures, where set: a rerun needs them too.
    nlohmann::json environment = nlohmann::json::object();
    for (const char* name :
         {"DICE_EVALD_NO_SANDBOX", "DICE_KERNELBENCH_NO_SANDBOX", "DICE_EVALD_MEMORY_LIMIT",
          "DICE_SANDBOX_PARTIAL", "CUDA_VISIBLE_DEVICES"})
        if (const char* value = std::getenv(name))
            environment[name] = value;
    if (!environment.empty())
        header["environment"] = environment;
    return header;
}

} // namespace dice
