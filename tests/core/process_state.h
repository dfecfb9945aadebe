// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the tests of child processes wait for: a signal is only queued by kill(), so a test that
// means "a stopped worker" or "a worker that died while idle" waits until /proc says so.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

namespace dice::test {

// The state letter of /proc/PID[/task/TID]/stat (R, S, T, Z, ...), or 0 when it cannot be read.
inline char processState(const std::filesystem::path& statFile) {
    std::ifstream stat(statFile);
    const std::string text((std::istreambuf_iterator<char>(stat)),
                           std::istreambuf_iterator<char>());
    // The state follows the command name's closing parenthesis and a space.
    const std::size_t close = text.rfind(')');
    return close == std::string::npos || close + 2 >= text.size() ? 0 : text[close + 2];
}

// Waits until a child that was sent a fatal signal has ended (a zombie not yet reaped), so that a
// test sees a worker that died while idle and not one that dies while it is sent a request. The
// leader of a process with threads shows as a zombie while its other threads still exit, and
// waitpid() reports the child only once they are gone: both are waited for.
inline bool waitUntilEnded(pid_t pid) {
    const std::filesystem::path folder = "/proc/" + std::to_string(pid);
    for (int i = 0; i < 500; ++i) {
        const char state = processState(folder / "stat");
        if (state == 0)
            return true;
        if (state == 'Z') {
            std::error_code ec;
            int threads = 0;
            for (auto it = std::filesystem::directory_iterator(folder / "task", ec);
                 !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
                ++threads;
            if (threads <= 1)
                return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

// Waits until every thread of a process sent SIGSTOP has stopped: a thread that was running may
// otherwise still answer a request before it stops.
inline bool waitUntilStopped(pid_t pid) {
    const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
    for (int i = 0; i < 500; ++i) {
        bool all = true;
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(tasks, ec)) {
            const char state = processState(entry.path() / "stat");
            all = all && (state == 'T' || state == 't');
        }
        if (all && !ec)
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
}

} // namespace dice::test
