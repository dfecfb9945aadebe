// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

// Child processes: the one way core starts another program. A program is always started from an
// argument vector (never through a shell), in a process group of its own so that a timeout or a
// kill reaches everything it started, with no descriptor of the parent but its standard streams,
// and with every failure to start it reported in words before it is waited for.
namespace dice {

// Where one of the child's standard streams goes.
enum class ChildStream {
    Pipe,    // a pipe to the parent (captured by runChild, read and written by ChildProcess)
    Inherit, // the parent's own stream
    Null     // /dev/null
};

// What to start. argv[0] is the program: a path, or a name looked up on the parent's PATH.
struct ChildCommand {
    ChildCommand() = default;
    // From an argument vector alone: runChild({{"nvdisasm", "-c", file}}).
    ChildCommand(std::vector<std::string> arguments)
        : argv(std::move(arguments)) {}

    std::vector<std::string> argv;
    // Set in the child's environment, over the parent's variables of the same name.
    std::vector<std::pair<std::string, std::string>> environment;
    // Empty: the parent's working folder.
    std::string workingDirectory;
};

// How ChildProcess starts a child.
struct ChildStart {
    ChildStream in = ChildStream::Pipe;
    ChildStream out = ChildStream::Pipe;
    ChildStream err = ChildStream::Pipe;
    // A process group of its own, which kill() signals as a whole (what the child started goes
    // too). Otherwise the parent's group, where a terminal's Ctrl+C reaches the child as well,
    // and kill() signals the child alone.
    bool ownGroup = true;
    // SIGKILL for the child when the thread that started it ends, so that a parent that dies
    // takes the child along. Linux ties this to the thread, not the process: only for a child
    // the starting thread waits for.
    bool endsWithStarter = false;
};

// How a child ended, or why it never ran.
struct ChildExit {
    std::string startError; // not empty when the program could not be started
    int exitCode = -1;      // its exit status when it exited
    int signal = 0;         // the signal that ended it, when one did
    bool timedOut = false;  // it ran past its time and its process group was killed

    bool started() const { return startError.empty(); }
    bool exited() const { return started() && signal == 0 && exitCode >= 0; }
    bool ok() const { return exited() && exitCode == 0 && !timedOut; }
    // In plain words: "exited with status 3", "was killed by signal 11 (Segmentation fault)",
    // "did not finish within 500 ms and was killed", or the start error.
    std::string describe() const;
};

// The file a program name stands for: a name with a slash as it is, else the first executable
// file of that name in a folder of $PATH; empty when there is none.
std::string findExecutable(const std::string& name);
// The same, looking only in the given folders.
std::string findExecutable(const std::string& name, const std::vector<std::string>& folders);

// A running child with pipes to the streams asked for: for a caller that talks with
// it while it runs (a worker answering requests on stdin and stdout). The parent's ends of the
// pipes are non-blocking and close-on-exec. Not thread-safe: one owner drives it. Destroying it
// kills the child's process group and reaps the child.
class ChildProcess {
public:
    ChildProcess() = default;
    ~ChildProcess();
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    // Starts the command; false with the reason (a missing program, a working folder that
    // cannot be entered, ...) in *error. A child that is already running is killed first.
    bool start(const ChildCommand& command, const ChildStart& how, std::string* error);

    // Whether the child has not been reaped yet; a child that has exited is reaped here and its
    // end kept in exitStatus().
    bool running();
    pid_t pid() const { return m_pid; }
    const ChildExit& exitStatus() const { return m_exit; }

    // The parent's ends of the pipes (-1 for a stream that is not a pipe, or closed).
    int stdinFd() const { return m_in; }
    int stdoutFd() const { return m_out; }
    int stderrFd() const { return m_err; }

    // Writes all of data to the child's stdin, waiting while the pipe is full; false when the
    // child no longer reads it. A write to a child that died never raises SIGPIPE. `written`,
    // when given, receives how many bytes went into the pipe.
    bool write(const std::string& data, std::size_t* written = nullptr);
    // Bytes written to the child's stdin that are still in the pipe: the child has not read
    // them. They stay there after the child has ended, until the pipe is closed.
    std::size_t stdinUnread() const;
    void closeStdin();

    enum class ReadState { Open, EndOfFile };
    // Appends whatever the child's stdout or stderr holds now, without waiting.
    ReadState readStdout(std::string& buffer) { return readAvailable(m_out, buffer); }
    ReadState readStderr(std::string& buffer) { return readAvailable(m_err, buffer); }
    void closeStdout();
    void closeStderr();

    // Sends a signal to the child's process group (to the child alone when it shares ours).
    void kill(int signal);
    // Waits up to timeoutMs for the child to exit (a negative limit: as long as it takes); past
    // it the process group is killed with SIGKILL and the child reaped, and the end says it
    // timed out. The pipes stay open, so what the child wrote can still be read.
    ChildExit wait(int timeoutMs);
    // Closes the parent's ends of the pipes.
    void closePipes();

private:
    static ReadState readAvailable(int fd, std::string& buffer);
    void reaped(int status);

    pid_t m_pid = -1;
    bool m_ownGroup = true;
    int m_in = -1;
    int m_out = -1;
    int m_err = -1;
    ChildExit m_exit;
};

// A run to completion.
struct ChildRunOptions {
    // Written to the child's stdin, which is then closed; without it stdin is /dev/null.
    std::optional<std::string> input;
    // Past this the child's process group is killed; 0 or less: no limit.
    int timeoutMs = 0;
    // Past this long without a line on stdout (from the start, or from the last line) the child's
    // process group is killed too, and ChildResult::silent says so; 0 or less: no limit.
    int idleTimeoutMs = 0;
    // Each line of stdout or stderr, without its newline, as it arrives; a last line without a
    // newline comes when the stream ends, and a line longer than captureLimit comes in pieces.
    std::function<void(const std::string&)> onStdoutLine;
    std::function<void(const std::string&)> onStderrLine;
    // Pipe: captured (and given to the line callback); Inherit or Null: neither.
    ChildStream out = ChildStream::Pipe;
    ChildStream err = ChildStream::Pipe;
    // Bytes kept of each captured stream: its beginning; the rest is counted as dropped.
    std::size_t captureLimit = std::size_t(64) << 20;
};

struct ChildResult {
    ChildExit exit;
    std::string out;
    std::string err;
    std::size_t outDropped = 0; // bytes past captureLimit
    std::size_t errDropped = 0;
    bool silent = false; // killed for saying nothing on stdout for idleTimeoutMs
    bool ok() const { return exit.ok(); }
};

// Runs a command to its end (or to its time limit) and collects its output. The child has a process
// group of its own and ends with the thread that runs it.
ChildResult runChild(const ChildCommand& command, const ChildRunOptions& options = {});

} // namespace dice
