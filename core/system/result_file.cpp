// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/system/result_file.h"

#include "core/system/system_info.h"

#include <cctype>
#include <ctime>
#include <filesystem>

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
    return nlohmann::json{{"kind", kind},
                          {"command", commandLine(argv)},
                          {"date", utcTimestamp()},
                          {"system", toJson(collectSystemInfo())}};
}

std::string resultFileStem(const std::string& kind) {
    const auto devices = queryDevices();
    std::string device = devices.empty() ? "cpu" : devices.front().name;
    std::string slug;
    for (char c : device) {
        if (std::isalnum(static_cast<unsigned char>(c)))
            slug += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        else if (!slug.empty() && slug.back() != '-')
            slug += '-';
    }
    while (!slug.empty() && slug.back() == '-')
        slug.pop_back();
    std::string stamp = utcTimestamp();
    std::string compact;
    for (char c : stamp)
        if (c != '-' && c != ':')
            compact += c;
    return kind + "-" + slug + "-" + compact;
}

} // namespace dice
