// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/eval/hack_suite.h"

#include "core/common/error.h"
#include "core/common/file_util.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

namespace dice {

std::string hackDirectory() {
    return (std::filesystem::path(dataDirectory()) / "hacks").string();
}

std::vector<HackCase> loadHackSuite(const std::string& directory) {
    const std::string path = (std::filesystem::path(directory) / "hacks.json").string();
    nlohmann::json root;
    try {
        root = nlohmann::json::parse(readTextFile(path));
    } catch (const nlohmann::json::exception& e) {
        throw FileError(path, std::string("not valid JSON: ") + e.what());
    }
    if (!root.is_object() || root.value("format", std::string()) != "dice-hacks/1")
        throw FileError(path, "format must be \"dice-hacks/1\"");
    if (!root.contains("hacks") || !root["hacks"].is_array())
        throw FileError(path, "\"hacks\" must be a list");
    std::vector<HackCase> hacks;
    for (std::size_t i = 0; i < root["hacks"].size(); ++i) {
        const auto& h = root["hacks"][i];
        const std::string where = "hacks[" + std::to_string(i) + "]";
        auto text = [&](const char* key) {
            if (!h.contains(key) || !h[key].is_string() || h[key].get<std::string>().empty())
                throw FileError(path, where + "." + key + " must be a non-empty string");
            return h[key].get<std::string>();
        };
        auto list = [&](const char* key) {
            std::vector<std::string> out;
            if (!h.contains(key) || !h[key].is_array())
                throw FileError(path, where + "." + key + " must be a list of strings");
            for (const auto& v : h[key]) {
                if (!v.is_string())
                    throw FileError(path, where + "." + key + " must be a list of strings");
                out.push_back(v.get<std::string>());
            }
            return out;
        };
        HackCase c;
        c.name = text("name");
        c.task = text("task");
        c.preset = text("preset");
        if (h.contains("tolerance")) {
            if (!h["tolerance"].is_number() || !(h["tolerance"].get<double>() > 0) ||
                !(h["tolerance"].get<double>() < 1))
                throw FileError(path, where + ".tolerance must be a number above 0 and below 1");
            c.tolerance = h["tolerance"].get<double>();
        }
        c.file = (std::filesystem::path(directory) / (c.name + ".dice")).string();
        if (!h.contains("gpu") || !h["gpu"].is_boolean())
            throw FileError(path, where + ".gpu must be true or false");
        c.gpu = h["gpu"].get<bool>();
        c.verdicts = list("verdicts");
        c.flags = list("flags");
        for (const auto& v : c.verdicts)
            if (!parseVerdict(v))
                throw FileError(path, where + ".verdicts: unknown verdict \"" + v + "\"");
        if (c.verdicts.empty() && c.flags.empty())
            throw FileError(path, where + ": names no verdict and no flag that would catch it");
        hacks.push_back(c);
    }
    return hacks;
}

bool hackCaught(const HackCase& hack, const EvaluationResult& result, std::string* why) {
    const std::string verdict = toString(result.verdict);
    const bool byVerdict =
        std::find(hack.verdicts.begin(), hack.verdicts.end(), verdict) != hack.verdicts.end();
    std::string flag;
    for (const auto& f : hack.flags)
        if (result.hasFlag(f) && flag.empty())
            flag = f;
    if (why) {
        if (byVerdict || !flag.empty())
            *why = "verdict " + verdict + (flag.empty() ? "" : ", flag " + flag) + ": " +
                   result.message;
        else
            *why = "not caught: verdict " + verdict + ": " + result.message;
    }
    return byVerdict || !flag.empty();
}

} // namespace dice
