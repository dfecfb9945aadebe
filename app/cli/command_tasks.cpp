// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/tasks/task.h"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>

namespace dice::cli {

int commandTasks(const Invocation& in) {
    const Arguments args(in.args, {"json", "help"}, {"dir"});
    if (!args.ok()) {
        std::cerr << "dice tasks: " << args.error() << "\n";
        return 2;
    }
    if (args.flag("help")) {
        std::cout << "usage: dice tasks [--dir DIR] [--json] [NAME]\n\nLists the tasks of a "
                     "suite (the built-in one by default), or shows one task.\n";
        return 0;
    }
    const std::string dir = args.value("dir", builtinTaskDirectory());
    const TaskSuite suite = loadTaskSuite(dir);
    for (const auto& p : suite.problems)
        std::cerr << "warning: " << p.message << "\n";
    if (!args.positionals().empty()) {
        const Task* task = suite.find(args.positionals().front());
        if (!task) {
            std::cerr << "dice tasks: no task named '" << args.positionals().front() << "' in "
                      << dir << "\n";
            return 1;
        }
        if (args.flag("json")) {
            std::cout << taskFileText(*task);
        } else {
            std::cout << task->title << " (" << task->name << ", level " << task->level << ")\n\n"
                      << task->description << "\n\nReference (TorchScript):\n"
                      << task->reference << "\n";
        }
        return 0;
    }
    if (args.flag("json")) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& t : suite.tasks)
            list.push_back(
                {{"name", t.name}, {"title", t.title}, {"level", t.level}, {"family", t.family}});
        std::cout << list.dump(2) << "\n";
        return 0;
    }
    for (const auto& t : suite.tasks)
        std::cout << "L" << t.level << "  " << std::left << std::setw(28) << t.name << t.title
                  << "\n";
    std::cout << suite.tasks.size() << " tasks";
    if (!suite.problems.empty())
        std::cout << ", " << suite.problems.size() << " could not be read";
    std::cout << "\n";
    return suite.problems.empty() ? 0 : 1;
}

} // namespace dice::cli
