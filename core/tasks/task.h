// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dice {

enum class DType { Float32, Float16, BFloat16, Float64, Int32, Int64, Bool };

std::string toString(DType dtype);
std::optional<DType> parseDType(const std::string& text);
int dtypeSize(DType dtype);
bool isFloating(DType dtype);

// How the values of an input or a parameter are drawn. Everything is drawn from the task's seed,
// so two runs of one task see the same numbers.
struct InitSpec {
    enum class Kind { Normal, Uniform, RandInt, Bernoulli, UniformFanIn, Ones, File };
    Kind kind = Kind::Normal;
    double a = 0;       // mean, low, p
    double b = 1;       // std, high
    std::string fanIn;  // dimension expression for UniformFanIn
    std::string file;   // safetensors file, relative to the task file, for File
    std::string tensor; // tensor name inside that file
};

// A dimension is a number or the name of a preset variable.
struct DimSpec {
    std::string text;
};

struct TensorSpec {
    std::string name;
    DType dtype = DType::Float32;
    std::vector<DimSpec> shape;
    InitSpec init;
};

struct Tolerance {
    double atol = 1e-4;
    double rtol = 1e-4;
};

// One operator to implement, as read from a task file (docs/task-format.md).
struct Task {
    std::string path; // where it was loaded from
    std::string name;
    std::string title;
    int level = 1;
    std::string family;
    std::string description;
    std::uint64_t seed = 42;
    std::vector<TensorSpec> inputs;
    std::vector<TensorSpec> parameters;
    std::map<std::string, std::map<std::string, std::int64_t>> presets; // preset -> var -> value
    std::string reference;     // TorchScript source defining `reference`
    std::string pytorchModule; // KernelBench-style module text used in prompts
    std::map<DType, Tolerance> tolerances;
    std::string flops; // optional expression over preset variables
    std::vector<std::string> tags;

    bool hasPreset(const std::string& preset) const { return presets.count(preset) != 0; }
    Tolerance tolerance(DType dtype) const;
    // The concrete shape of a tensor under a preset; throws Error for unknown variables.
    std::vector<std::int64_t> shape(const TensorSpec& spec, const std::string& preset) const;
    // Evaluates an arithmetic expression (+ - * / parentheses, integers, preset variables).
    double evaluate(const std::string& expression, const std::string& preset) const;
};

// The most bytes a preset's inputs and parameters may take together: an evaluation holds them, a
// copy, the reference's outputs and the candidate's, so the largest built-in preset (17 GiB)
// fits on one GPU with room to spare. `small` is held to far less: every dry run and CPU test
// runs it.
inline constexpr std::int64_t kMaxPresetBytes = std::int64_t(32) << 30;
inline constexpr std::int64_t kMaxSmallPresetBytes = std::int64_t(1) << 30;
std::int64_t presetByteLimit(const std::string& preset);

// Parses a task from JSON text; `origin` names the file in error messages. Throws FileError naming
// the field that is wrong.
Task parseTask(const std::string& json, const std::string& origin);
// The same from a JSON value already parsed (a task inside a worker request); `origin` becomes
// the task's path.
Task taskFromJson(const nlohmann::json& json, const std::string& origin);
Task loadTask(const std::string& path);

// The task's hand-written solution: solutions/NAME.dice beside the folder of its task file (the
// built-in suite's and a corpus's layout); empty when there is none.
std::string taskSolutionPath(const Task& task);
// A task file's content (docs/task-format.md); the path is not part of it. taskFromJson reads it
// back to an equal task.
nlohmann::json toJson(const Task& task);
// toJson as the text of a task file.
std::string taskFileText(const Task& task);

struct TaskLoadProblem {
    std::string path;
    std::string message;
};

// All task files (*.json) in a folder, sorted by level then name; files that fail to load are
// reported, not fatal.
struct TaskSuite {
    std::vector<Task> tasks;
    std::vector<TaskLoadProblem> problems;
    const Task* find(const std::string& name) const;
};
TaskSuite loadTaskSuite(const std::string& directory);

// The built-in suite shipped in the data folder.
std::string builtinTaskDirectory();

// A task named on a command line: a task file, or the name of a built-in task. Throws Error when
// it is neither.
Task findTask(const std::string& nameOrPath);

} // namespace dice
