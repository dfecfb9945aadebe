#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The sandbox of the KernelBench dialect's untrusted Python (docs/sandbox.md).

A KernelBench answer, its build, and a problem file being imported run through dice-sandbox, the
workbench's launcher: no network (a user and network namespace of their own), the filesystem
readable only where the interpreter, PyTorch, the CUDA toolkit and the system libraries live,
writable only beneath the folders named here, resource limits, no_new_privs and a system-call
filter. This module writes the policy, so that the evaluation worker and the importer confine
their children the same way.

Usage, for the workbench's own C++ side (the importer):
  kernelbench_sandbox.py --sandbox-program PATH [--write DIR]... [--read PATH]... [--gpu]
                         [--report-fd N] [--data-limit BYTES] -- PROGRAM [ARGUMENT...]
"""

import glob
import json
import os
import site
import stat
import sys

# Where a Debian or Ubuntu machine keeps what an interpreter, a compiler and CUDA need.
SYSTEM_READABLE = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc",
                   "/opt", "/proc", "/sys")
SYSTEM_EXECUTABLE = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/opt")
PLAIN_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")

GIB = 1 << 30
# An answer's build runs nvcc, cicc and ptxas, which need a few GiB for the largest sources; the
# answer's own host memory is under the same cap.
DEFAULT_LIMITS = {
    "data_bytes": 32 * GIB,
    "file_size_bytes": 8 * GIB,
    "open_files": 4096,
    "cpu_seconds": 3600,
}


class SandboxUnavailable(Exception):
    """dice-sandbox is not there: nothing untrusted may run."""


def sandbox_program(explicit=""):
    """The launcher named on the command line, else $DICE_SANDBOX_PROGRAM."""
    path = explicit or os.environ.get("DICE_SANDBOX_PROGRAM", "")
    if not path:
        raise SandboxUnavailable(
            "no sandbox launcher was named (dice-sandbox; the workbench passes it, or set "
            "DICE_SANDBOX_PROGRAM)")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise SandboxUnavailable("the sandbox launcher %s is not an executable file" % path)
    return os.path.abspath(path)


def interpreter_paths():
    """The folders this interpreter and its packages live in (a virtual environment, pyenv, a
    user site folder beneath the home folder): readable and executable, nothing else of $HOME."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix,
             os.path.dirname(os.path.realpath(sys.executable))}
    try:
        paths.update(site.getsitepackages())
    except AttributeError:
        pass
    user_site = getattr(site, "USER_SITE", None)
    if user_site and os.path.isdir(user_site):
        paths.add(user_site)
    for name in ("torch", "nvidia", "triton"):
        try:
            module = __import__(name)
            location = getattr(module, "__file__", None) or next(iter(module.__path__), None)
            if location:
                paths.add(os.path.dirname(os.path.realpath(location)))
        except Exception:  # noqa: BLE001 - a package that is missing needs no path
            continue
    for variable in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(variable):
            paths.add(os.environ[variable])
    return sorted(os.path.realpath(p) for p in paths if p and os.path.isabs(p))


def gpu_devices():
    """The GPU's device files (character devices only: /dev/nvidia-caps is a folder of them)."""
    paths = glob.glob("/dev/nvidia*") + glob.glob("/dev/nvidia-caps/*") + \
        glob.glob("/dev/dri/renderD*")
    return sorted(p for p in paths if os.path.exists(p) and stat.S_ISCHR(os.stat(p).st_mode))


def private_folders(named):
    """/tmp, /dev/shm and /run become empty folders of the program's own, unless a folder it is
    given lies beneath them: the GPU's programs may open Unix sockets, and the daemons' sockets
    (a session bus, a container engine) live there (docs/sandbox.md)."""
    private = []
    for folder in ("/tmp", "/dev/shm", "/run"):
        if not os.path.isdir(folder) or os.path.islink(folder):
            continue
        inside = [p for p in named
                  if os.path.realpath(p) == folder or os.path.realpath(p).startswith(folder + "/")]
        if not inside:
            private.append(folder)
    return private


def policy(writable, readable=(), gpu=True, limits=None):
    """The policy of one sandboxed program: `writable` folders are its only writable places (they
    are created here), `readable` adds files and folders it may read (a problem file, the
    worker's scripts)."""
    for folder in writable:
        os.makedirs(folder, exist_ok=True)
    python = interpreter_paths()
    chosen = dict(DEFAULT_LIMITS)
    chosen.update(limits or {})
    return {
        "readable": sorted(set(SYSTEM_READABLE) | set(python) |
                           {os.path.realpath(p) for p in readable} |
                           {os.path.realpath(p) for p in writable}),
        "executable": sorted(set(SYSTEM_EXECUTABLE) | set(python)),
        "writable": sorted(os.path.realpath(p) for p in writable),
        "devices": list(PLAIN_DEVICES) + (gpu_devices() if gpu else []),
        "private_folders": private_folders(list(writable) + list(readable)),
        "isolate_network": True,
        "restrict_files": True,
        "filter_system_calls": True,
        # CUDA's runtime opens a Unix socket as it starts (its daemons'): where socket(AF_UNIX)
        # fails, cudaGetDeviceCount fails with error 304 (docs/sandbox.md).
        "allow_unix_sockets": gpu,
        # The CUDA driver names its threads through /proc/self/task/TID/comm as it starts.
        "own_process_writable": gpu,
        # A layer that cannot be applied stops the program (docs/sandbox.md), unless the user
        # accepts a partial sandbox on this machine.
        "require_all": os.environ.get("DICE_SANDBOX_PARTIAL", "") in ("", "0"),
        "limits": chosen,
    }


def command(program, sandbox_policy, argv, report_fd=None):
    """The command line that runs argv inside the sandbox."""
    line = [program]
    if report_fd is not None:
        line += ["--report-fd", str(report_fd)]
    return line + ["--policy", json.dumps(sandbox_policy, sort_keys=True), "--"] + list(argv)


# What an interpreter, PyTorch, its extension builds and CUDA read from the environment. Nothing
# else is passed on: a token or password in the user's environment must not reach an answer.
PASSED_VARIABLES = (
    "PATH", "LANG", "LANGUAGE", "LD_LIBRARY_PATH", "PYTHONPATH",
    "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDNN_HOME",
    "TORCH_CUDA_ARCH_LIST", "TORCH_EXTENSIONS_DIR", "PYTORCH_NVCC",
    "CC", "CXX", "MAX_JOBS", "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS",
    "OMP_NUM_THREADS", "MKL_NUM_THREADS",
)
PASSED_PREFIXES = ("LC_", "NVIDIA_")


def environment(writable_root):
    """The environment of a sandboxed program: the allow-listed variables of this one, the home
    and temporary folders in its own writable folder (the compilers write there), output
    unbuffered."""
    env = {name: value for name, value in os.environ.items()
           if name in PASSED_VARIABLES or name.startswith(PASSED_PREFIXES)}
    temporary = os.path.join(writable_root, "tmp")
    os.makedirs(temporary, exist_ok=True)
    env["HOME"] = writable_root
    env["TMPDIR"] = temporary
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    return env


def main(argv):
    program = ""
    writable = []
    readable = []
    gpu = False
    report_fd = None
    limits = {}
    rest = []
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest = argv[i + 1:]
            break
        if arg in ("--sandbox-program", "--write", "--read", "--report-fd",
                   "--data-limit") and i + 1 < len(argv):
            value = argv[i + 1]
            if arg == "--data-limit":
                if not value.isdigit() or int(value) < (256 << 20):
                    print("kernelbench_sandbox.py: --data-limit needs a number of bytes, at least "
                          "256 MiB", file=sys.stderr)
                    return 2
                limits["data_bytes"] = int(value)
            elif arg == "--sandbox-program":
                program = value
            elif arg == "--write":
                writable.append(os.path.abspath(value))
            elif arg == "--read":
                readable.append(os.path.abspath(value))
            else:
                report_fd = int(value)
            i += 2
            continue
        if arg == "--gpu":
            gpu = True
            i += 1
            continue
        if arg in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        print("kernelbench_sandbox.py: unknown argument %s" % arg, file=sys.stderr)
        return 2
    if not rest:
        print("kernelbench_sandbox.py: no program after --", file=sys.stderr)
        return 2
    try:
        launcher = sandbox_program(program)
    except SandboxUnavailable as e:
        print("kernelbench_sandbox.py: %s" % e, file=sys.stderr)
        return 126
    if not writable:
        writable = [os.path.join(os.environ.get("TMPDIR", "/tmp"), "dice-sandbox-%d" % os.getpid())]
    # The workbench's own scripts (the importer among them) are read from beside this one.
    readable.append(os.path.dirname(os.path.abspath(__file__)))
    line = command(launcher, policy(writable, readable, gpu, limits), rest, report_fd)
    os.execve(launcher, line, environment(writable[0]))
    return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv))
