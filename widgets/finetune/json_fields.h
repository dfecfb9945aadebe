// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <nlohmann/json.hpp>

// Fields of a run folder's JSON read without trusting it: a run folder is outside input (another
// machine's trainer, a hand-edited file), so a missing field or one of the wrong type reads as the
// fallback instead of throwing.
namespace dice::runjson {

inline const nlohmann::json* find(const nlohmann::json& j, const char* key) {
    if (!j.is_object())
        return nullptr;
    const auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
}

inline QString text(const nlohmann::json& j, const char* key) {
    const nlohmann::json* v = find(j, key);
    return v && v->is_string() ? QString::fromStdString(v->get<std::string>()) : QString();
}

inline double number(const nlohmann::json& j, const char* key, double fallback = 0) {
    const nlohmann::json* v = find(j, key);
    return v && v->is_number() ? v->get<double>() : fallback;
}

inline qint64 integer(const nlohmann::json& j, const char* key, qint64 fallback = 0) {
    const nlohmann::json* v = find(j, key);
    return v && v->is_number_integer() ? v->get<qint64>() : fallback;
}

inline bool flag(const nlohmann::json& j, const char* key) {
    const nlohmann::json* v = find(j, key);
    return v && v->is_boolean() && v->get<bool>();
}

} // namespace dice::runjson
