// SPDX-License-Identifier: GPL-3.0-or-later
// The one way core starts programs: exit statuses, signals, time limits that reach a whole
// process group, lines as they arrive, large outputs, failures to start, and no descriptor of the
// parent leaking into the child. The children are the system's own /bin/sh and coreutils.
#include "core/common/child_process.h"

#include <QtTest>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace {

dice::ChildResult shell(const std::string& script, const dice::ChildRunOptions& options = {}) {
    return dice::runChild({{"/bin/sh", "-c", script}}, options);
}

// The fields of /proc/PID/stat after the command's name: the state letter ('Z' for a zombie),
// the parent, the process group, ...; empty when there is no such process.
std::vector<std::string> processStat(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(stat, text))
        return {};
    const auto close = text.rfind(')');
    if (close == std::string::npos)
        return {};
    std::istringstream fields(text.substr(close + 1));
    std::vector<std::string> out;
    for (std::string field; fields >> field;)
        out.push_back(field);
    return out;
}

char processState(pid_t pid) {
    const auto stat = processStat(pid);
    return stat.empty() ? 0 : stat[0][0];
}

pid_t processGroup(pid_t pid) {
    const auto stat = processStat(pid);
    return stat.size() < 3 ? 0 : static_cast<pid_t>(std::stol(stat[2]));
}

} // namespace

class TestChildProcess : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void exitStatusIsReported() {
        const auto ok = shell("exit 0");
        QVERIFY(ok.ok());
        QCOMPARE(ok.exit.exitCode, 0);
        const auto three = shell("exit 3");
        QVERIFY(!three.ok());
        QVERIFY(three.exit.exited());
        QCOMPARE(three.exit.exitCode, 3);
        QCOMPARE(three.exit.signal, 0);
        QCOMPARE(three.exit.describe(), std::string("exited with status 3"));
    }

    void signalThatEndedTheChildIsReported() {
        const auto run = shell("kill -SEGV $$");
        QVERIFY(!run.ok());
        QVERIFY(!run.exit.exited());
        QCOMPARE(run.exit.signal, SIGSEGV);
        QVERIFY(!run.exit.timedOut);
        QVERIFY2(run.exit.describe().find("signal 11") != std::string::npos,
                 run.exit.describe().c_str());
    }

    void outputAndErrorAreCapturedApart() {
        const auto run = shell("echo out; echo err >&2; printf 'no newline'");
        QVERIFY(run.ok());
        QCOMPARE(run.out, std::string("out\nno newline"));
        QCOMPARE(run.err, std::string("err\n"));
    }

    // The idle limit counts from the last line: a child that keeps talking runs past it, one
    // that falls silent is killed, and the result says which limit ended it.
    void silenceKillsTheChild() {
        dice::ChildRunOptions options;
        options.idleTimeoutMs = 400;
        int lines = 0;
        options.onStdoutLine = [&lines](const std::string&) { ++lines; };
        const auto talking = shell("for i in 1 2 3 4 5 6; do echo $i; sleep 0.15; done", options);
        QVERIFY(talking.ok());
        QVERIFY(!talking.silent);
        QCOMPARE(lines, 6);

        const auto start = std::chrono::steady_clock::now();
        const auto quiet = shell("echo 1; echo 2; sleep 60", options);
        QVERIFY(quiet.silent);
        QVERIFY(quiet.exit.timedOut);
        QCOMPARE(quiet.exit.signal, SIGKILL);
        QCOMPARE(lines, 8);
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
    }

    void timeoutKillsTheWholeGroup() {
        // The shell starts a grandchild that holds stdout open and would outlive it.
        pid_t grandchild = 0;
        dice::ChildRunOptions options;
        options.timeoutMs = 500;
        options.onStdoutLine = [&grandchild](const std::string& line) {
            grandchild = static_cast<pid_t>(std::atoi(line.c_str()));
        };
        const auto start = std::chrono::steady_clock::now();
        const auto run = shell("sleep 60 & echo $!; wait", options);
        const auto elapsed = std::chrono::steady_clock::now() - start;
        QVERIFY(run.exit.timedOut);
        QCOMPARE(run.exit.signal, SIGKILL);
        QVERIFY(!run.ok());
        QVERIFY(elapsed < std::chrono::seconds(10));
        QVERIFY(elapsed >= std::chrono::milliseconds(500));
        QVERIFY(grandchild > 0);
        // Killed with its group: gone, or a zombie waiting for init.
        for (int i = 0; i < 200 && processState(grandchild) != 0 && processState(grandchild) != 'Z';
             ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        const char state = processState(grandchild);
        QVERIFY2(state == 0 || state == 'Z', std::string(1, state).c_str());
    }

    void childWithinItsTimeIsNotKilled() {
        dice::ChildRunOptions options;
        options.timeoutMs = 20000;
        const auto run = shell("sleep 0.2; echo done", options);
        QVERIFY(run.ok());
        QVERIFY(!run.exit.timedOut);
        QCOMPARE(run.out, std::string("done\n"));
    }

    void linesArriveInOrder() {
        // Sleeps between the writes, so that each arrives on its own; a line cut in two by a
        // pause still comes whole.
        std::vector<std::string> lines;
        dice::ChildRunOptions options;
        options.onStdoutLine = [&lines](const std::string& line) {
            lines.push_back("out " + line);
        };
        options.onStderrLine = [&lines](const std::string& line) {
            lines.push_back("err " + line);
        };
        const auto run = shell("echo one; sleep 0.3; echo two >&2; sleep 0.3; printf 'thr'; "
                               "sleep 0.3; printf 'ee\\nfour'",
                               options);
        QVERIFY(run.ok());
        const std::vector<std::string> expected = {"out one", "err two", "out three", "out four"};
        QCOMPARE(lines, expected);
        QCOMPARE(run.out, std::string("one\nthree\nfour"));
    }

    void largeOutputOnBothStreams() {
        // 2 MB on each stream at once: a parent that read one stream to its end first would wait
        // forever on a child blocked writing the other.
        int lines = 0;
        dice::ChildRunOptions options;
        options.onStdoutLine = [&lines](const std::string& line) {
            if (line == "0123456789abcdef")
                ++lines;
        };
        const auto run =
            shell("i=0; while [ $i -lt 4 ]; do head -c 524288 /dev/zero | tr '\\0' e "
                  ">&2 & i=$((i+1)); done; yes 0123456789abcdef | head -n 131072; wait",
                  options);
        QVERIFY2(run.ok(), run.exit.describe().c_str());
        QCOMPARE(lines, 131072);
        QCOMPARE(run.out.size(), std::size_t(131072 * 17));
        QCOMPARE(run.err.size(), std::size_t(4 * 524288));
        QCOMPARE(run.err.find_first_not_of('e'), std::string::npos);
        QCOMPARE(run.outDropped, std::size_t(0));
    }

    void captureStopsAtItsLimit() {
        dice::ChildRunOptions options;
        options.captureLimit = 1000;
        const auto run = shell("yes abc | head -n 10000", options);
        QVERIFY(run.ok());
        QCOMPARE(run.out.size(), std::size_t(1000));
        QCOMPARE(run.out.substr(0, 8), std::string("abc\nabc\n"));
        QCOMPARE(run.outDropped, std::size_t(40000 - 1000));
    }

    void inputReachesTheChild() {
        dice::ChildRunOptions options;
        // More than a pipe holds, so that writing and reading must go on together.
        std::string input;
        for (int i = 0; i < 50000; ++i)
            input += "line " + std::to_string(i) + "\n";
        options.input = input;
        const auto run = dice::runChild({{"cat"}}, options);
        QVERIFY(run.ok());
        QCOMPARE(run.out, input);
        // Without input, stdin is at its end at once.
        const auto empty = dice::runChild({{"cat"}});
        QVERIFY(empty.ok());
        QCOMPARE(empty.out, std::string());
    }

    void childThatIgnoresItsInputDoesNotHurtTheParent() {
        dice::ChildRunOptions options;
        options.input = std::string(4 << 20, 'x');
        const auto run = shell("exec 0<&-; echo closed", options);
        QVERIFY(run.ok());
        QCOMPARE(run.out, std::string("closed\n"));
    }

    void environmentAndWorkingFolder() {
        dice::ChildCommand command{{"/bin/sh", "-c", "echo \"$DICE_CHILD_TEST:$HOME\"; pwd"}};
        command.environment = {{"DICE_CHILD_TEST", "added"}, {"HOME", "/replaced"}};
        command.workingDirectory = "/";
        const auto run = dice::runChild(command);
        QVERIFY(run.ok());
        QCOMPARE(run.out, std::string("added:/replaced\n/\n"));
        command.workingDirectory = "/nonexistent-folder-of-the-test";
        const auto missing = dice::runChild(command);
        QVERIFY(!missing.exit.started());
        QVERIFY2(missing.exit.startError.find("/nonexistent-folder-of-the-test") !=
                     std::string::npos,
                 missing.exit.startError.c_str());
        QVERIFY2(missing.exit.startError.find("No such file") != std::string::npos,
                 missing.exit.startError.c_str());
    }

    void missingExecutableIsReportedClearly() {
        const auto byName = dice::runChild({{"dice-no-such-program", "--flag"}});
        QVERIFY(!byName.exit.started());
        QVERIFY(!byName.ok());
        QCOMPARE(byName.exit.startError,
                 std::string("cannot start dice-no-such-program: it was not found on PATH"));
        const auto byPath = dice::runChild({{"/nonexistent/dice-no-such-program"}});
        QVERIFY(!byPath.exit.started());
        QCOMPARE(byPath.exit.startError,
                 std::string("cannot start /nonexistent/dice-no-such-program: No such file or "
                             "directory"));
        // A file that is there but cannot be run.
        const QString plain = QDir::temp().filePath(QStringLiteral("dice-child-not-a-program"));
        {
            QFile file(plain);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("not a program\n");
        }
        const auto notExecutable = dice::runChild({{plain.toStdString()}});
        QFile::remove(plain);
        QVERIFY(!notExecutable.exit.started());
        QVERIFY2(notExecutable.exit.startError.find("Permission denied") != std::string::npos,
                 notExecutable.exit.startError.c_str());
        QCOMPARE(dice::runChild({}).exit.startError, std::string("no program to run"));
    }

    void findExecutableLooksInTheGivenFolders() {
        QCOMPARE(dice::findExecutable("sh", {"/nonexistent", "/bin"}), std::string("/bin/sh"));
        QCOMPARE(dice::findExecutable("sh", {"/nonexistent"}), std::string());
        // A folder is not a program.
        QCOMPARE(dice::findExecutable("bin", {"/"}), std::string());
        QCOMPARE(dice::findExecutable("./relative"), std::string("./relative"));
        QVERIFY(!dice::findExecutable("sh").empty());
    }

    void noDescriptorLeaksIntoTheChild() {
        // A descriptor opened without close-on-exec, as another thread or a library might.
        const QString probe = QDir::temp().filePath(QStringLiteral("dice-child-leak-probe"));
        const int fd = ::open(probe.toLocal8Bit().constData(), O_CREAT | O_WRONLY, 0600);
        QVERIFY(fd >= 0);
        const auto run = shell("ls /proc/$$/fd");
        ::close(fd);
        ::unlink(probe.toLocal8Bit().constData());
        QVERIFY(run.ok());
        std::istringstream in(run.out);
        std::vector<std::string> fds;
        for (std::string line; std::getline(in, line);)
            fds.push_back(line);
        // The shell's stdin, stdout and stderr, and nothing else.
        QCOMPARE(fds, (std::vector<std::string>{"0", "1", "2"}));
    }

    void streamsCanBeInheritedOrDiscarded() {
        dice::ChildRunOptions options;
        options.out = dice::ChildStream::Null;
        options.err = dice::ChildStream::Null;
        const auto run = shell("echo lost; echo lost >&2; exit 4", options);
        QCOMPARE(run.exit.exitCode, 4);
        QVERIFY(run.out.empty());
        QVERIFY(run.err.empty());
    }

    void longLivedChildTalksBothWays() {
        dice::ChildProcess child;
        std::string error;
        QVERIFY2(child.start({{"cat"}}, dice::ChildStart(), &error), error.c_str());
        QVERIFY(child.pid() > 0);
        QVERIFY(child.running());
        QVERIFY(child.write("ping\n"));
        std::string echoed;
        for (int i = 0; i < 500 && echoed != "ping\n"; ++i) {
            child.readStdout(echoed);
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        QCOMPARE(echoed, std::string("ping\n"));
        child.closeStdin();
        const auto end = child.wait(10000);
        QVERIFY(end.ok());
        QVERIFY(!child.running());
        QCOMPARE(child.readStdout(echoed), dice::ChildProcess::ReadState::EndOfFile);
        // Writing to a child that is gone fails instead of raising SIGPIPE.
        QVERIFY(!child.write("late\n"));
    }

    void longLivedChildCanBeKilled() {
        dice::ChildProcess child;
        std::string error;
        QVERIFY(child.start({{"sleep", "60"}}, dice::ChildStart(), &error));
        child.kill(SIGKILL);
        const auto end = child.wait(10000);
        QCOMPARE(end.signal, SIGKILL);
        QVERIFY(!end.timedOut);
        QVERIFY(!child.running());
        // A wait that runs out kills it and says so.
        QVERIFY(child.start({{"sleep", "60"}}, dice::ChildStart(), &error));
        const auto late = child.wait(100);
        QVERIFY(late.timedOut);
        QCOMPARE(late.signal, SIGKILL);
    }

    void processGroupIsTheChildsOwnOrOurs() {
        dice::ChildProcess own;
        std::string error;
        QVERIFY(own.start({{"sleep", "60"}}, dice::ChildStart(), &error));
        QCOMPARE(processGroup(own.pid()), own.pid());
        dice::ChildStart shared;
        shared.ownGroup = false;
        dice::ChildProcess ours;
        QVERIFY(ours.start({{"sleep", "60"}}, shared, &error));
        QCOMPARE(processGroup(ours.pid()), ::getpgrp());
        // kill() reaches the child alone, not the group it shares with us.
        ours.kill(SIGKILL);
        QCOMPARE(ours.wait(10000).signal, SIGKILL);
        own.kill(SIGKILL);
        QCOMPARE(own.wait(10000).signal, SIGKILL);
    }

    void childEndsWithTheThreadThatStartedIt() {
        dice::ChildProcess child;
        dice::ChildStart how;
        how.endsWithStarter = true;
        bool started = false;
        std::thread starter([&] {
            std::string error;
            started = child.start({{"sleep", "60"}}, how, &error);
        });
        starter.join();
        QVERIFY(started);
        const auto end = child.wait(10000);
        QCOMPARE(end.signal, SIGKILL);
        QVERIFY(!end.timedOut);
    }

    void childThatDiedIsSeenByRunning() {
        dice::ChildProcess child;
        std::string error;
        QVERIFY(child.start({{"/bin/sh", "-c", "exit 7"}}, dice::ChildStart(), &error));
        for (int i = 0; i < 500 && child.running(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        QVERIFY(!child.running());
        QCOMPARE(child.exitStatus().exitCode, 7);
        QCOMPARE(child.pid(), pid_t(-1));
    }
};

QTEST_GUILESS_MAIN(TestChildProcess)
#include "tst_child_process.moc"
