// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tasks/task.h"

#include "core/common/error.h"
#include "core/common/file_limits.h"
#include "core/common/file_util.h"
#include "core/common/number_format.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>

namespace dice {

using nlohmann::json;

std::string toString(DType dtype) {
    switch (dtype) {
    case DType::Float32:
        return "float32";
    case DType::Float16:
        return "float16";
    case DType::BFloat16:
        return "bfloat16";
    case DType::Float64:
        return "float64";
    case DType::Int32:
        return "int32";
    case DType::Int64:
        return "int64";
    case DType::Bool:
        return "bool";
    }
    return "float32";
}

std::optional<DType> parseDType(const std::string& text) {
    static const std::pair<const char*, DType> names[] = {
        {"float32", DType::Float32}, {"float", DType::Float32},     {"float16", DType::Float16},
        {"half", DType::Float16},    {"bfloat16", DType::BFloat16}, {"float64", DType::Float64},
        {"int32", DType::Int32},     {"int64", DType::Int64},       {"bool", DType::Bool}};
    for (const auto& [name, dtype] : names)
        if (text == name)
            return dtype;
    return std::nullopt;
}

int dtypeSize(DType dtype) {
    switch (dtype) {
    case DType::Float32:
    case DType::Int32:
        return 4;
    case DType::Float16:
    case DType::BFloat16:
        return 2;
    case DType::Float64:
    case DType::Int64:
        return 8;
    case DType::Bool:
        return 1;
    }
    return 4;
}

bool isFloating(DType dtype) {
    return dtype == DType::Float32 || dtype == DType::Float16 || dtype == DType::BFloat16 ||
           dtype == DType::Float64;
}

Tolerance Task::tolerance(DType dtype) const {
    auto found = tolerances.find(dtype);
    if (found != tolerances.end())
        return found->second;
    if (dtype == DType::Float16 || dtype == DType::BFloat16)
        return Tolerance{1e-2, 1e-2};
    if (!isFloating(dtype))
        return Tolerance{0, 0};
    return Tolerance{1e-4, 1e-4};
}

namespace {

std::string gibText(double bytes) {
    return formatFixed(bytes / static_cast<double>(std::int64_t(1) << 30), 2) + " GiB";
}

// Recursive-descent evaluator for dimension and FLOP expressions.
class ExpressionParser {
public:
    ExpressionParser(const std::string& text, const std::map<std::string, std::int64_t>& vars)
        : m_text(text)
        , m_vars(vars) {}

    double parse() {
        const double value = sum();
        skipSpaces();
        if (m_pos != m_text.size())
            fail("unexpected '" + std::string(1, m_text[m_pos]) + "'");
        return value;
    }

private:
    [[noreturn]] void fail(const std::string& why) const {
        throw Error("expression \"" + m_text + "\": " + why);
    }
    void skipSpaces() {
        while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos])))
            ++m_pos;
    }
    double sum() {
        double value = product();
        for (;;) {
            skipSpaces();
            if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-')) {
                const char op = m_text[m_pos++];
                const double rhs = product();
                value = op == '+' ? value + rhs : value - rhs;
            } else {
                return value;
            }
        }
    }
    double product() {
        double value = factor();
        for (;;) {
            skipSpaces();
            if (m_pos < m_text.size() && (m_text[m_pos] == '*' || m_text[m_pos] == '/')) {
                const char op = m_text[m_pos++];
                const double rhs = factor();
                if (op == '/' && rhs == 0)
                    fail("division by zero");
                value = op == '*' ? value * rhs : value / rhs;
            } else {
                return value;
            }
        }
    }
    double factor() {
        if (++m_depth > 64)
            fail("nested too deeply");
        skipSpaces();
        if (m_pos >= m_text.size())
            fail("ends too early");
        double value = 0;
        const char c = m_text[m_pos];
        if (c == '(') {
            ++m_pos;
            value = sum();
            skipSpaces();
            if (m_pos >= m_text.size() || m_text[m_pos] != ')')
                fail("missing ')'");
            ++m_pos;
        } else if (c == '-') {
            ++m_pos;
            value = -factor();
        } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
            size_t used = 0;
            try {
                value = std::stod(m_text.substr(m_pos), &used);
            } catch (const std::exception&) {
                fail("bad number");
            }
            m_pos += used;
        } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            const size_t start = m_pos;
            while (
                m_pos < m_text.size() &&
                (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_'))
                ++m_pos;
            const std::string name = m_text.substr(start, m_pos - start);
            auto found = m_vars.find(name);
            if (found == m_vars.end())
                fail("unknown variable '" + name + "'");
            value = static_cast<double>(found->second);
        } else {
            fail("unexpected '" + std::string(1, c) + "'");
        }
        --m_depth;
        return value;
    }

    const std::string& m_text;
    const std::map<std::string, std::int64_t>& m_vars;
    size_t m_pos = 0;
    int m_depth = 0;
};

// An integer that get<std::int64_t> would wrap to a negative value.
bool tooLargeForInt64(const json& value) {
    return value.is_number_unsigned() &&
           value.get<std::uint64_t>() >
               static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
}

bool validName(const std::string& name) {
    if (name.empty() || name.size() > 96 || std::isdigit(static_cast<unsigned char>(name[0])))
        return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

class TaskReader {
public:
    explicit TaskReader(std::string origin)
        : m_origin(std::move(origin)) {}

    [[noreturn]] void fail(const std::string& where, const std::string& why) const {
        throw FileError(m_origin, where.empty() ? why : where + ": " + why);
    }

    const json& field(const json& object, const char* key, const std::string& where) const {
        if (!object.contains(key))
            fail(where, std::string("missing field \"") + key + "\"");
        return object[key];
    }

    std::string string(const json& object, const char* key, const std::string& where,
                       bool required = true) const {
        if (!object.contains(key)) {
            if (required)
                fail(where, std::string("missing field \"") + key + "\"");
            return {};
        }
        if (!object[key].is_string())
            fail(where + "." + key, "must be a string");
        return object[key].get<std::string>();
    }

    double number(const json& value, const std::string& where) const {
        if (!value.is_number())
            fail(where, "must be a number");
        return value.get<double>();
    }

    InitSpec init(const json& j, const std::string& where) const {
        InitSpec spec;
        if (!j.is_object())
            fail(where, "must be an object such as {\"kind\": \"normal\"}");
        const std::string kind = string(j, "kind", where);
        auto param = [&](const char* key, double fallback) {
            return j.contains(key) ? number(j[key], where + "." + key) : fallback;
        };
        if (kind == "normal") {
            spec.kind = InitSpec::Kind::Normal;
            spec.a = param("mean", 0);
            spec.b = param("std", 1);
            if (spec.b < 0)
                fail(where + ".std", "must not be negative");
        } else if (kind == "uniform") {
            spec.kind = InitSpec::Kind::Uniform;
            spec.a = param("low", 0);
            spec.b = param("high", 1);
            if (spec.b < spec.a)
                fail(where, "high is below low");
        } else if (kind == "randint") {
            spec.kind = InitSpec::Kind::RandInt;
            spec.a = param("low", 0);
            spec.b = param("high", 2);
            if (spec.b <= spec.a)
                fail(where, "high must be above low");
        } else if (kind == "bernoulli") {
            spec.kind = InitSpec::Kind::Bernoulli;
            spec.a = param("p", 0.5);
            if (spec.a < 0 || spec.a > 1)
                fail(where + ".p", "must be between 0 and 1");
        } else if (kind == "uniform_fan_in") {
            spec.kind = InitSpec::Kind::UniformFanIn;
            spec.fanIn = string(j, "fan_in", where);
        } else if (kind == "ones") {
            spec.kind = InitSpec::Kind::Ones;
        } else if (kind == "file") {
            spec.kind = InitSpec::Kind::File;
            spec.file = string(j, "file", where);
            spec.tensor = string(j, "tensor", where);
            if (spec.file.find("..") != std::string::npos ||
                (!spec.file.empty() && spec.file[0] == '/'))
                fail(where + ".file", "must be a file name beside the task file");
        } else {
            fail(where + ".kind", "unknown kind \"" + kind +
                                      "\" (normal, uniform, randint, bernoulli, uniform_fan_in, "
                                      "ones, file)");
        }
        return spec;
    }

    TensorSpec tensor(const json& j, const std::string& where) const {
        if (!j.is_object())
            fail(where, "must be an object");
        TensorSpec spec;
        spec.name = string(j, "name", where);
        if (!validName(spec.name))
            fail(where + ".name", "\"" + spec.name + "\" is not a valid identifier");
        const std::string dtype = j.contains("dtype") ? string(j, "dtype", where) : "float32";
        const auto parsed = parseDType(dtype);
        if (!parsed)
            fail(where + ".dtype", "unknown dtype \"" + dtype + "\"");
        spec.dtype = *parsed;
        const json& shape = field(j, "shape", where);
        if (!shape.is_array())
            fail(where + ".shape", "must be a list");
        if (shape.size() > 8)
            fail(where + ".shape", "more than 8 dimensions");
        for (size_t i = 0; i < shape.size(); ++i) {
            DimSpec dim;
            if (shape[i].is_number_integer()) {
                if (tooLargeForInt64(shape[i]))
                    fail(where + ".shape[" + std::to_string(i) + "]", "too large");
                if (shape[i].get<std::int64_t>() < 0)
                    fail(where + ".shape[" + std::to_string(i) + "]", "negative size");
                dim.text = std::to_string(shape[i].get<std::int64_t>());
            } else if (shape[i].is_string()) {
                dim.text = shape[i].get<std::string>();
                if (dim.text.empty())
                    fail(where + ".shape[" + std::to_string(i) + "]", "empty expression");
            } else {
                fail(where + ".shape[" + std::to_string(i) + "]",
                     "must be a number or a preset variable");
            }
            spec.shape.push_back(dim);
        }
        spec.init = j.contains("init") ? init(j["init"], where + ".init") : InitSpec{};
        return spec;
    }

    Task readText(const std::string& text) {
        json root;
        try {
            root = json::parse(text);
        } catch (const json::exception& e) {
            fail("", std::string("not valid JSON: ") + e.what());
        }
        return read(root);
    }

    Task read(const json& root) {
        if (!root.is_object())
            fail("", "the top level must be a JSON object");
        const std::string format = string(root, "format", "");
        if (format != "dice-task/1")
            fail("format", "unsupported \"" + format + "\" (this version reads dice-task/1)");
        Task task;
        task.path = m_origin;
        task.name = string(root, "name", "");
        if (!validName(task.name))
            fail("name", "\"" + task.name + "\" is not a valid identifier");
        task.title = string(root, "title", "", false);
        if (task.title.empty())
            task.title = task.name;
        const json& level = field(root, "level", "");
        // Compared as written: get<int> would read 4294967297 as 1.
        if (!level.is_number_integer() || tooLargeForInt64(level) ||
            level.get<std::int64_t>() < 1 || level.get<std::int64_t>() > 3)
            fail("level", "must be 1, 2 or 3");
        task.level = static_cast<int>(level.get<std::int64_t>());
        task.family = string(root, "family", "", false);
        task.description = string(root, "description", "");
        if (root.contains("seed")) {
            if (!root["seed"].is_number_unsigned())
                fail("seed", "must be a non-negative integer");
            task.seed = root["seed"].get<std::uint64_t>();
        }
        const json& inputs = field(root, "inputs", "");
        if (!inputs.is_array() || inputs.empty())
            fail("inputs", "must be a non-empty list");
        for (size_t i = 0; i < inputs.size(); ++i)
            task.inputs.push_back(tensor(inputs[i], "inputs[" + std::to_string(i) + "]"));
        if (root.contains("parameters")) {
            const json& params = root["parameters"];
            if (!params.is_array())
                fail("parameters", "must be a list");
            for (size_t i = 0; i < params.size(); ++i)
                task.parameters.push_back(
                    tensor(params[i], "parameters[" + std::to_string(i) + "]"));
        }
        const json& presets = field(root, "presets", "");
        if (!presets.is_object() || presets.empty())
            fail("presets", "must be an object of presets such as {\"small\": {...}}");
        for (auto it = presets.begin(); it != presets.end(); ++it) {
            if (!it.value().is_object())
                fail("presets." + it.key(), "must be an object of variables");
            auto& vars = task.presets[it.key()];
            for (auto v = it.value().begin(); v != it.value().end(); ++v) {
                if (!v.value().is_number_integer() || tooLargeForInt64(v.value()))
                    fail("presets." + it.key() + "." + v.key(), "must be an integer below 2^63");
                if (!validName(v.key()))
                    fail("presets." + it.key(), "\"" + v.key() + "\" is not a valid name");
                vars[v.key()] = v.value().get<std::int64_t>();
            }
        }
        if (!task.hasPreset("small"))
            fail("presets", "needs a \"small\" preset (used by CPU tests)");
        task.reference = string(root, "reference", "");
        if (task.reference.find("def reference(") == std::string::npos)
            fail("reference", "must define a TorchScript function named reference");
        task.pytorchModule = string(root, "pytorch_module", "", false);
        task.flops = string(root, "flops", "", false);
        if (root.contains("tolerance")) {
            const json& tol = root["tolerance"];
            if (!tol.is_object())
                fail("tolerance", "must be an object keyed by dtype");
            for (auto it = tol.begin(); it != tol.end(); ++it) {
                const auto dtype = parseDType(it.key());
                if (!dtype)
                    fail("tolerance", "unknown dtype \"" + it.key() + "\"");
                if (!it.value().is_object())
                    fail("tolerance." + it.key(), "must be {\"atol\": .., \"rtol\": ..}");
                Tolerance t;
                t.atol = it.value().contains("atol")
                             ? number(it.value()["atol"], "tolerance." + it.key() + ".atol")
                             : 0;
                t.rtol = it.value().contains("rtol")
                             ? number(it.value()["rtol"], "tolerance." + it.key() + ".rtol")
                             : 0;
                if (t.atol < 0 || t.rtol < 0)
                    fail("tolerance." + it.key(), "must not be negative");
                task.tolerances[*dtype] = t;
            }
        }
        if (root.contains("tags")) {
            if (!root["tags"].is_array())
                fail("tags", "must be a list of strings");
            for (const auto& tag : root["tags"]) {
                if (!tag.is_string())
                    fail("tags", "must be a list of strings");
                task.tags.push_back(tag.get<std::string>());
            }
        }
        // Every shape and expression must resolve under every preset, and no preset may ask
        // for more memory than an evaluation can hold. The preset's name by key, not by
        // structured binding: C++17 lets no lambda capture those.
        for (const auto& entry : task.presets) {
            const std::string& preset = entry.first;
            double presetBytes = 0;
            auto check = [&](const std::vector<TensorSpec>& specs, const char* kind) {
                for (const auto& spec : specs) {
                    try {
                        const auto dims = task.shape(spec, preset);
                        double bytes = dtypeSize(spec.dtype);
                        for (const auto d : dims)
                            bytes *= static_cast<double>(d);
                        presetBytes += bytes;
                        if (spec.init.kind == InitSpec::Kind::UniformFanIn &&
                            task.evaluate(spec.init.fanIn, preset) <= 0)
                            fail(std::string(kind) + " " + spec.name, "fan_in must be positive");
                    } catch (const FileError&) {
                        throw;
                    } catch (const Error& e) {
                        fail(std::string(kind) + " " + spec.name + " under preset " + preset,
                             e.what());
                    }
                }
            };
            check(task.inputs, "input");
            check(task.parameters, "parameter");
            const std::int64_t cap = presetByteLimit(preset);
            if (presetBytes > static_cast<double>(cap))
                fail("presets." + preset,
                     "its inputs and parameters take " + gibText(presetBytes) +
                         "; a preset may ask for at most " + gibText(static_cast<double>(cap)) +
                         (preset == "small" ? " (the small preset runs in every dry run and CPU "
                                              "test)"
                                            : ""));
            if (!task.flops.empty()) {
                try {
                    task.evaluate(task.flops, preset);
                } catch (const Error& e) {
                    fail("flops", e.what());
                }
            }
        }
        return task;
    }

private:
    std::string m_origin;
};

} // namespace

std::int64_t presetByteLimit(const std::string& preset) {
    return preset == "small" ? kMaxSmallPresetBytes : kMaxPresetBytes;
}

std::vector<std::int64_t> Task::shape(const TensorSpec& spec, const std::string& preset) const {
    auto found = presets.find(preset);
    if (found == presets.end())
        throw Error("task " + name + " has no preset \"" + preset + "\"");
    std::vector<std::int64_t> dims;
    for (const auto& dim : spec.shape) {
        const double value = ExpressionParser(dim.text, found->second).parse();
        if (value < 0 || value > 9.0e15 || std::floor(value) != value)
            throw Error("dimension \"" + dim.text + "\" of " + spec.name + " is " +
                        std::to_string(value) + ", not a size");
        dims.push_back(static_cast<std::int64_t>(value));
    }
    return dims;
}

double Task::evaluate(const std::string& expression, const std::string& preset) const {
    auto found = presets.find(preset);
    if (found == presets.end())
        throw Error("task " + name + " has no preset \"" + preset + "\"");
    return ExpressionParser(expression, found->second).parse();
}

Task parseTask(const std::string& text, const std::string& origin) {
    return TaskReader(origin).readText(text);
}

Task taskFromJson(const json& value, const std::string& origin) {
    return TaskReader(origin).read(value);
}

Task loadTask(const std::string& path) {
    return parseTask(readTextFile(path, limits::kTaskFile), path);
}

namespace {
json initToJson(const InitSpec& init) {
    switch (init.kind) {
    case InitSpec::Kind::Normal:
        return {{"kind", "normal"}, {"mean", init.a}, {"std", init.b}};
    case InitSpec::Kind::Uniform:
        return {{"kind", "uniform"}, {"low", init.a}, {"high", init.b}};
    case InitSpec::Kind::RandInt:
        return {{"kind", "randint"}, {"low", init.a}, {"high", init.b}};
    case InitSpec::Kind::Bernoulli:
        return {{"kind", "bernoulli"}, {"p", init.a}};
    case InitSpec::Kind::UniformFanIn:
        return {{"kind", "uniform_fan_in"}, {"fan_in", init.fanIn}};
    case InitSpec::Kind::Ones:
        return {{"kind", "ones"}};
    case InitSpec::Kind::File:
        return {{"kind", "file"}, {"file", init.file}, {"tensor", init.tensor}};
    }
    return {};
}

json tensorToJson(const TensorSpec& spec) {
    json shape = json::array();
    for (const auto& d : spec.shape) {
        const bool numeric =
            !d.text.empty() && std::all_of(d.text.begin(), d.text.end(), [](char c) {
                return std::isdigit(static_cast<unsigned char>(c));
            });
        if (numeric)
            shape.push_back(std::stoll(d.text));
        else
            shape.push_back(d.text);
    }
    return {{"name", spec.name},
            {"dtype", toString(spec.dtype)},
            {"shape", shape},
            {"init", initToJson(spec.init)}};
}
} // namespace

json toJson(const Task& task) {
    json j;
    j["format"] = "dice-task/1";
    j["name"] = task.name;
    j["title"] = task.title;
    j["level"] = task.level;
    if (!task.family.empty())
        j["family"] = task.family;
    j["description"] = task.description;
    j["seed"] = task.seed;
    j["inputs"] = json::array();
    for (const auto& t : task.inputs)
        j["inputs"].push_back(tensorToJson(t));
    if (!task.parameters.empty()) {
        j["parameters"] = json::array();
        for (const auto& t : task.parameters)
            j["parameters"].push_back(tensorToJson(t));
    }
    j["presets"] = json::object();
    for (const auto& [preset, vars] : task.presets) {
        j["presets"][preset] = json::object();
        for (const auto& [k, v] : vars)
            j["presets"][preset][k] = v;
    }
    j["reference"] = task.reference;
    if (!task.flops.empty())
        j["flops"] = task.flops;
    if (!task.tolerances.empty()) {
        j["tolerance"] = json::object();
        for (const auto& [dtype, tol] : task.tolerances)
            j["tolerance"][toString(dtype)] = {{"atol", tol.atol}, {"rtol", tol.rtol}};
    }
    if (!task.tags.empty())
        j["tags"] = task.tags;
    if (!task.pytorchModule.empty())
        j["pytorch_module"] = task.pytorchModule;
    return j;
}

std::string taskFileText(const Task& task) {
    return toJson(task).dump(2) + "\n";
}

const Task* TaskSuite::find(const std::string& name) const {
    for (const auto& t : tasks)
        if (t.name == name)
            return &t;
    return nullptr;
}

TaskSuite loadTaskSuite(const std::string& directory) {
    namespace fs = std::filesystem;
    TaskSuite suite;
    std::error_code ec;
    if (!fs::is_directory(directory, ec)) {
        suite.problems.push_back({directory, "task folder not found"});
        return suite;
    }
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(directory, ec)) {
        if (entry.is_regular_file() && entry.path().extension() == ".json")
            files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
        try {
            suite.tasks.push_back(loadTask(file.string()));
        } catch (const Error& e) {
            suite.problems.push_back({file.string(), e.what()});
        }
    }
    std::stable_sort(suite.tasks.begin(), suite.tasks.end(), [](const Task& a, const Task& b) {
        return a.level != b.level ? a.level < b.level : a.name < b.name;
    });
    return suite;
}

std::string builtinTaskDirectory() {
    return (std::filesystem::path(dataDirectory()) / "tasks").string();
}

Task findTask(const std::string& nameOrPath) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(nameOrPath, ec))
        return loadTask(nameOrPath);
    const TaskSuite suite = loadTaskSuite(builtinTaskDirectory());
    if (const Task* t = suite.find(nameOrPath))
        return *t;
    throw Error("no built-in task named '" + nameOrPath + "' and no such task file");
}

std::string taskSolutionPath(const Task& task) {
    if (task.path.empty())
        return {};
    const std::filesystem::path solution =
        std::filesystem::path(task.path).parent_path().parent_path() / "solutions" /
        (task.name + ".dice");
    std::error_code ec;
    return std::filesystem::is_regular_file(solution, ec) ? solution.string() : std::string();
}

} // namespace dice
