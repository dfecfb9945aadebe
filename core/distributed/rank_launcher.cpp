// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/distributed/rank_launcher.h"

#include "core/common/child_process.h"
#include "core/common/error.h"
#include "core/distributed/rank_environment.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace dice {

int freeTcpPort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        throw Error("cannot open a socket to find a free port");
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof address;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    ::close(fd);
    if (port == 0)
        throw Error("cannot find a free TCP port on this host");
    return port;
}

RankLaunchResult launchRanks(const RankLaunch& launch) {
    if (launch.ranks < 1)
        throw Error("the number of processes must be at least 1");
    if (launch.argv.empty())
        throw Error("nothing to launch");
    const int port = launch.masterPort > 0 ? launch.masterPort : freeTcpPort();
    std::vector<std::unique_ptr<ChildProcess>> children;
    RankLaunchResult result;
    for (int rank = 0; rank < launch.ranks; ++rank) {
        ChildCommand command(launch.argv);
        command.environment = rankVariables(rank, launch.ranks, launch.masterAddress, port);
        for (const auto& [name, value] : multicastSwitches())
            if (!std::getenv(name.c_str()))
                command.environment.emplace_back(name, value);
        ChildStart how;
        how.in = ChildStream::Null;
        how.out = ChildStream::Inherit;
        how.err = ChildStream::Inherit;
        // The parent's group, so that Ctrl+C reaches every rank as it reaches a lone trainer.
        how.ownGroup = false;
        how.endsWithStarter = true;
        auto child = std::make_unique<ChildProcess>();
        std::string error;
        if (!child->start(command, how, &error)) {
            for (auto& started : children)
                started->kill(SIGTERM);
            for (auto& started : children)
                started->wait(10000);
            throw Error("rank " + std::to_string(rank) + " could not be started: " + error);
        }
        children.push_back(std::move(child));
    }
    std::vector<bool> done(children.size(), false);
    std::size_t remaining = children.size();
    bool asked = false;
    const auto now = [] { return std::chrono::steady_clock::now(); };
    auto killAt = std::chrono::steady_clock::time_point::max();
    while (remaining > 0) {
        if (launch.stop && launch.stop->load() && !asked) {
            asked = true;
            for (std::size_t rank = 0; rank < children.size(); ++rank)
                if (!done[rank])
                    children[rank]->kill(SIGTERM);
        }
        for (std::size_t rank = 0; rank < children.size(); ++rank) {
            if (done[rank] || children[rank]->running())
                continue;
            done[rank] = true;
            --remaining;
            const ChildExit& end = children[rank]->exitStatus();
            if (end.ok() || !result.failure.empty())
                continue;
            result.failure = "rank " + std::to_string(rank) + " " + end.describe();
            result.exitCode = end.exited() && end.exitCode > 0 ? end.exitCode : 1;
            for (std::size_t other = 0; other < children.size(); ++other)
                if (!done[other])
                    children[other]->kill(SIGTERM);
            killAt = now() + std::chrono::milliseconds(launch.graceMs);
        }
        if (now() >= killAt) {
            for (std::size_t rank = 0; rank < children.size(); ++rank)
                if (!done[rank])
                    children[rank]->kill(SIGKILL);
            killAt = std::chrono::steady_clock::time_point::max();
        }
        if (remaining > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return result;
}

} // namespace dice
