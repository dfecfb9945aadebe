// SPDX-License-Identifier: GPL-3.0-or-later
// The sandbox of untrusted programs (core/system/sandbox.h, dice-sandbox) and the evaluation
// worker's own confinement (core/worker/sandbox.h): each layer asked for is applied or the
// program does not run, and a confined process reaches neither the user's files nor the network.
#include "core/common/child_process.h"
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/system/sandbox.h"
#include "core/worker/sandbox.h"

#include <QtTest>

#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

namespace {

using nlohmann::json;

const char* const kSecret = "the-user's-secret-5e1d";

void writeText(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
}

// A policy for running a system program: the system's folders readable and executable, one
// folder writable.
json systemPolicy(const std::string& writable) {
    return {{"readable", {"/usr", "/lib", "/lib64", "/bin", "/etc", "/proc"}},
            {"executable", {"/usr", "/lib", "/lib64", "/bin"}},
            {"writable", {writable}},
            {"devices", {"/dev/null"}}};
}

dice::ChildResult runSandboxed(const json& policy, const std::vector<std::string>& program) {
    std::vector<std::string> argv = {DICE_BIN_DIR "/dice-sandbox", "--policy", policy.dump(), "--"};
    argv.insert(argv.end(), program.begin(), program.end());
    dice::ChildRunOptions options;
    options.timeoutMs = 30000;
    return dice::runChild({argv}, options);
}

// Confinement of files needs Landlock (Linux 5.13 and later, when enabled).
bool haveLandlock() {
    return dice::landlockAbi() > 0;
}

} // namespace

class TestSandbox : public QObject {
    Q_OBJECT

private slots:
    void policyRoundTrips() {
        dice::SandboxPolicy p;
        p.readable = {"/usr", "/opt/torch"};
        p.executable = {"/usr/bin"};
        p.writable = {"/tmp/build"};
        p.devices = {"/dev/null"};
        p.privateFolders = {"/dev/shm"};
        p.allowUnixSockets = true;
        p.ownProcessWritable = true;
        p.requireAll = false;
        p.limits.dataBytes = 1ull << 33;
        p.limits.cpuSeconds = 60;
        const dice::SandboxPolicy back = dice::sandboxPolicyFromJson(dice::toJson(p));
        QCOMPARE(dice::toJson(back).dump(), dice::toJson(p).dump());
        QVERIFY(!back.requireAll);
        QCOMPARE(back.limits.dataBytes, p.limits.dataBytes);
    }

    void policyRejectsBadFields_data() {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<QString>("message");
        QTest::newRow("not an object") << "[]"
                                       << "not a JSON object";
        QTest::newRow("unknown field") << R"({"readable": [], "network": true})"
                                       << "unknown field \"network\"";
        QTest::newRow("relative path") << R"({"writable": ["build"]})"
                                       << "\"build\" is not an absolute path";
        QTest::newRow("path as number") << R"({"readable": [3]})"
                                        << "not a path";
        QTest::newRow("negative limit") << R"({"limits": {"data_bytes": -1}})"
                                        << "must be a whole number";
        QTest::newRow("fractional limit") << R"({"limits": {"cpu_seconds": 1.5}})"
                                          << "must be a whole number";
        QTest::newRow("unknown limit") << R"({"limits": {"stack_bytes": 1}})"
                                       << "unknown limit \"stack_bytes\"";
        QTest::newRow("flag as text") << R"({"require_all": "yes"})"
                                      << "must be true or false";
        QTest::newRow("too many private folders")
            << R"({"private_folders": ["/a","/b","/c","/d","/e","/f","/g","/h","/i"]})"
            << "at most 8 private folders";
    }

    void policyRejectsBadFields() {
        QFETCH(QString, policy);
        QFETCH(QString, message);
        try {
            dice::sandboxPolicyFromJson(json::parse(policy.toStdString()));
            QFAIL("accepted");
        } catch (const dice::Error& e) {
            QVERIFY2(std::string(e.what()).find(message.toStdString()) != std::string::npos,
                     e.what());
        }
    }

    void missingLayersNameWhatFailed() {
        dice::SandboxPolicy p;
        const dice::SandboxPlan plan(p);
        dice::SandboxOutcome whole;
        whole.namespaces = 0;
        whole.noNewPrivs = 0;
        whole.landlock = 0;
        whole.seccomp = 0;
        QVERIFY(plan.missingLayers(whole).empty());
        dice::SandboxOutcome partial = whole;
        partial.landlock = ENOSYS;
        partial.namespaces = EPERM;
        partial.limits[2] = EPERM;
        QCOMPARE(plan.missingLayers(partial),
                 (std::vector<std::string>{"limits", "namespaces", "landlock"}));
        // A layer that was not asked for is not missing.
        p.restrictFiles = false;
        p.isolateNetwork = false;
        QCOMPARE(dice::SandboxPlan(p).missingLayers(partial), std::vector<std::string>{"limits"});
    }

    void launcherConfinesAProgram() {
        if (!haveLandlock())
            QSKIP("this kernel offers no Landlock: dice-sandbox refuses to run anything here");
        const dice::TemporaryFolder work("dice-sandbox-test");
        const std::string inside = work.path() + "/inside";
        const std::string outside = work.path() + "/outside";
        std::filesystem::create_directories(inside);
        std::filesystem::create_directories(outside);
        writeText(outside + "/secret", kSecret);
        const std::string script = "echo ok > " + inside + "/written; echo no > " + outside +
                                   "/planted; cat " + outside + "/secret; exit 0";
        const auto run = runSandboxed(systemPolicy(inside), {"/bin/sh", "-c", script});
        QVERIFY2(run.exit.exited() && run.exit.exitCode == 0, run.err.c_str());
        QVERIFY(std::filesystem::exists(inside + "/written"));
        QVERIFY(!std::filesystem::exists(outside + "/planted"));
        QVERIFY(run.out.find(kSecret) == std::string::npos);
        QVERIFY(run.err.find(kSecret) == std::string::npos);
    }

    void launcherRefusesSocketsAndPtrace() {
        const dice::TemporaryFolder work("dice-sandbox-test");
        // A network socket and a trace of the parent: both refused (EPERM from the filter or
        // EACCES from Landlock); the Python interpreter of the system is enough to try.
        if (!std::filesystem::exists("/usr/bin/python3"))
            QSKIP("no /usr/bin/python3");
        const std::string code = "import ctypes, socket, sys\n"
                                 "try:\n"
                                 "    socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n"
                                 "    print('socket opened')\n"
                                 "except OSError as e:\n"
                                 "    print('socket refused', e.errno)\n"
                                 "libc = ctypes.CDLL(None, use_errno=True)\n"
                                 "r = libc.ptrace(16, __import__('os').getppid(), 0, 0)\n"
                                 "print('ptrace', 'refused' if r != 0 else 'attached')\n";
        const auto run = runSandboxed(systemPolicy(work.path()), {"/usr/bin/python3", "-c", code});
        QVERIFY2(run.exit.exited() && run.exit.exitCode == 0, (run.out + run.err).c_str());
        QVERIFY2(run.out.find("socket refused") != std::string::npos, run.out.c_str());
        QVERIFY2(run.out.find("ptrace refused") != std::string::npos, run.out.c_str());
    }

    void ownProcessEntriesBecomeWritableOnRequest() {
        if (!haveLandlock())
            QSKIP("this kernel offers no Landlock: dice-sandbox refuses to run anything here");
        if (!std::filesystem::exists("/usr/bin/python3"))
            QSKIP("no /usr/bin/python3");
        const dice::TemporaryFolder work("dice-sandbox-test");
        // What the CUDA driver does as it starts (cuInit fails with CUDA_ERROR_OPERATING_SYSTEM
        // where it cannot, seen on an H200): names a thread of its own through procfs. The
        // parent's entries stay closed either way.
        const std::string code = "import os, threading\n"
                                 "done = threading.Event()\n"
                                 "t = threading.Thread(target=done.wait)\n"
                                 "t.start()\n"
                                 "def attempt(label, path):\n"
                                 "    try:\n"
                                 "        fd = os.open(path, os.O_WRONLY)\n"
                                 "        os.write(fd, b'dice-test')\n"
                                 "        os.close(fd)\n"
                                 "        print(label, 'written')\n"
                                 "    except OSError as e:\n"
                                 "        print(label, 'refused', e.errno)\n"
                                 "attempt('thread', '/proc/self/task/%d/comm' % t.native_id)\n"
                                 "attempt('parent', '/proc/%d/comm' % os.getppid())\n"
                                 "done.set()\n"
                                 "t.join()\n";
        json policy = systemPolicy(work.path());
        const auto closed = runSandboxed(policy, {"/usr/bin/python3", "-c", code});
        QVERIFY2(closed.exit.exited() && closed.exit.exitCode == 0, closed.err.c_str());
        QVERIFY2(closed.out.find("thread refused 13") != std::string::npos, closed.out.c_str());
        QVERIFY2(closed.out.find("parent refused 13") != std::string::npos, closed.out.c_str());

        policy["own_process_writable"] = true;
        const auto open = runSandboxed(policy, {"/usr/bin/python3", "-c", code});
        QVERIFY2(open.exit.exited() && open.exit.exitCode == 0, open.err.c_str());
        QVERIFY2(open.out.find("thread written") != std::string::npos, open.out.c_str());
        QVERIFY2(open.out.find("parent refused 13") != std::string::npos, open.out.c_str());
    }

    void launcherRefusesAPartialSandbox() {
        if (!haveLandlock())
            QSKIP("this kernel offers no Landlock: dice-sandbox refuses to run anything here");
        const dice::TemporaryFolder work("dice-sandbox-test");
        // Inside a sandbox no new namespace can be made, so a second one cannot apply its own:
        // it refuses to run the program, unless the policy allows a partial sandbox.
        json inner = systemPolicy(work.path());
        json outer = systemPolicy(work.path());
        outer["readable"].push_back(DICE_BIN_DIR);
        outer["executable"].push_back(DICE_BIN_DIR);
        const std::string marker = work.path() + "/ran";
        const auto refused =
            runSandboxed(outer, {DICE_BIN_DIR "/dice-sandbox", "--policy", inner.dump(), "--",
                                 "/bin/sh", "-c", "echo > " + marker});
        QVERIFY2(refused.exit.exited() && refused.exit.exitCode == 125, refused.err.c_str());
        QVERIFY2(refused.err.find("could not apply namespaces") != std::string::npos,
                 refused.err.c_str());
        QVERIFY(!std::filesystem::exists(marker));

        inner["require_all"] = false;
        const auto allowed =
            runSandboxed(outer, {DICE_BIN_DIR "/dice-sandbox", "--policy", inner.dump(), "--",
                                 "/bin/sh", "-c", "echo > " + marker});
        QVERIFY2(allowed.exit.exited() && allowed.exit.exitCode == 0, allowed.err.c_str());
        QVERIFY(std::filesystem::exists(marker));
    }

    void workerReadsOnlyWhatItIsGiven() {
        if (!haveLandlock())
            QSKIP("this kernel offers no Landlock: dice-sandbox refuses to run anything here");
        const dice::TemporaryFolder work("dice-worker-sandbox-test");
        const std::string given = work.path() + "/task";
        const std::string other = work.path() + "/home";
        std::filesystem::create_directories(given);
        std::filesystem::create_directories(other);
        writeText(given + "/params.safetensors", "parameters");
        writeText(other + "/secret", kSecret);
        // The worker may open Unix sockets (CUDA needs them); the daemons' sockets in /run must be
        // out of its sight.
        std::error_code ec;
        const bool runListed =
            std::filesystem::is_directory("/run", ec) && !std::filesystem::is_empty("/run", ec);
        // The worker confines itself while it has one thread: so does this child of the test.
        const pid_t child = ::fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            dice::applyWorkerSandbox({given});
            int result = 0;
            const int allowed = ::open((given + "/params.safetensors").c_str(), O_RDONLY);
            if (allowed < 0)
                result |= 1;
            const int denied = ::open((other + "/secret").c_str(), O_RDONLY);
            if (denied >= 0 || errno != EACCES)
                result |= 2;
            const int written = ::open((given + "/planted").c_str(), O_WRONLY | O_CREAT, 0600);
            if (written >= 0)
                result |= 4;
            if (runListed) {
                DIR* run = ::opendir("/run");
                int entries = 0;
                while (run && ::readdir(run))
                    ++entries;
                if (!run || entries > 2)
                    result |= 8;
                if (run)
                    ::closedir(run);
            }
            ::_exit(result);
        }
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
        QVERIFY(!std::filesystem::exists(given + "/planted"));
    }
};

QTEST_GUILESS_MAIN(TestSandbox)
#include "tst_sandbox.moc"
