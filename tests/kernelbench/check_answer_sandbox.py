#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The KernelBench dialect's sandbox against hostile answers, on the CPU (no GPU needed).

Starts resources/python/kernelbench_worker.py with the built dice-sandbox, evaluates every answer
of resources/hacks/kernelbench (hostile.json) against its ReLU problem on the CPU, and checks each
verdict, that nothing was written outside the answer's build folder, that neither a file of the
user's nor a variable of the worker's environment leaked into any reply, and that forged result
lines did not reach the client.

  check_answer_sandbox.py DICE_SANDBOX SCRIPTS_DIR HOSTILE_DIR
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

SECRET = "the-user's-secret-7f3a9c"
# In the worker's environment only: the answer's environment is an allow-list without it.
ENV_SECRET = "the-environment's-secret-4b1d2e"



def expectations(folder):
    """hostile.json: the problem file and, for each answer, the verdict and flag it must get and
    the problem file it is judged against, whether it is a timing control, and its tolerance
    (None for the worker's own)."""
    with open(os.path.join(folder, "hostile.json"), encoding="utf-8") as f:
        table = json.load(f)
    if table.get("format") != "dice-kernelbench-hostile/1":
        raise SystemExit("hostile.json: unknown format %r" % table.get("format"))
    return {a["name"]: (a["verdict"], a.get("flag"), a.get("problem", table["problem"]),
                        bool(a.get("timing_control")), a.get("tolerance"))
            for a in table["answers"]}


# What a sandboxed program finds of Unix sockets and of /run, one word each.
SOCKET_PROBE = """
import os, socket
try:
    socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close()
    opened = "opened"
except OSError:
    opened = "refused"
print(opened, "empty" if not os.listdir("/run") else "listed")
"""


def check_socket_policy(sandbox, scripts):
    """CUDA's runtime needs socket(AF_UNIX) (cudaGetDeviceCount fails with error 304 without it),
    so a program with the GPU may open Unix sockets; the daemons' sockets in /run are hidden from
    it behind an empty /run of its own. Without the GPU, no Unix socket at all."""
    sys.path.insert(0, scripts)
    import kernelbench_sandbox
    failures = []
    if not os.path.isdir("/run") or not os.listdir("/run"):
        print("note: this machine has no populated /run; only the socket rule is checked")
    work = tempfile.mkdtemp(prefix="dice-sandbox-socket-")
    try:
        for gpu, wanted in ((True, "opened empty"), (False, "refused empty")):
            policy = kernelbench_sandbox.policy([work], gpu=gpu)
            run = subprocess.run(
                kernelbench_sandbox.command(sandbox, policy, [sys.executable, "-c", SOCKET_PROBE]),
                capture_output=True, text=True, env=kernelbench_sandbox.environment(work),
                timeout=120)
            got = run.stdout.strip()
            print("unix sockets, gpu=%s: %s" % (gpu, got or run.stderr.strip()[-300:]))
            if os.path.isdir("/run") and os.listdir("/run") and got != wanted:
                failures.append("gpu=%s: %r, expected %r" % (gpu, got, wanted))
            elif got.split()[:1] != wanted.split()[:1]:
                failures.append("gpu=%s: %r, expected %r" % (gpu, got, wanted))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return failures


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    sandbox, scripts, fixtures = argv[1:]
    socket_failures = check_socket_policy(sandbox, scripts)
    work = tempfile.mkdtemp(prefix="dice-sandbox-test-")
    outside = os.path.join(work, "outside")
    os.makedirs(outside)
    with open(os.path.join(outside, "secret"), "w") as f:
        f.write(SECRET)
    failures = list(socket_failures)
    try:
        worker = subprocess.Popen(
            [sys.executable, os.path.join(scripts, "kernelbench_worker.py"),
             "--sandbox-program", sandbox],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env=dict(os.environ, DICE_TEST_SECRET=ENV_SECRET))
        expected = expectations(fixtures)
        for request_id, (name, expectation) in enumerate(sorted(expected.items()), start=7001):
            verdict, flag, problem_file, timing_control, tolerance = expectation
            with open(os.path.join(fixtures, problem_file), encoding="utf-8") as f:
                problem = f.read()
            source = open(os.path.join(fixtures, name + ".py")).read().replace("OUTSIDE", outside)
            options = {"device_type": "cpu", "build_dir": os.path.join(work, "build"),
                       "timing_trials": 20, "warmups": 2}
            if tolerance is not None:
                options.update(atol=tolerance, rtol=tolerance)
            worker.stdin.write(json.dumps({
                "protocol": "dice-evald", "version": 1, "id": request_id, "type": "evaluate",
                "task": name, "reference": problem, "candidate": source,
                "options": options}) + "\n")
            worker.stdin.flush()
            while True:
                line = worker.stdout.readline()
                if not line:
                    failures.append("%s: the worker died" % name)
                    return report(failures)
                if SECRET in line:
                    failures.append("%s: the user's file leaked into a reply" % name)
                if ENV_SECRET in line:
                    failures.append("%s: the worker's environment leaked into a reply" % name)
                reply = json.loads(line)
                if reply.get("id") != request_id:
                    failures.append("%s: a reply with id %s reached the client" %
                                    (name, reply.get("id")))
                    continue
                if reply["type"] != "progress":
                    break
            if reply["type"] != "result":
                failures.append("%s: %s" % (name, reply.get("message")))
                continue
            evaluation = reply["evaluation"]
            got = evaluation["verdict"]
            print("%-17s %-18s %s" % (name, got, evaluation["message"].splitlines()[0][:100]))
            if got != verdict:
                failures.append("%s: verdict %s, expected %s (%s)" %
                                (name, got, verdict, evaluation["message"][:300]))
            flags = [f["code"] for f in evaluation.get("flags", [])]
            if flag and flag not in flags:
                failures.append("%s: no %s flag (flags: %s)" %
                                (name, flag, ", ".join(flags)))
            if timing_control:
                failures.extend(timing_control_problems(name, evaluation))
            layers = evaluation.get("sandbox") or {}
            for layer in ("network", "landlock", "seccomp"):
                if not str(layers.get(layer, "")).startswith(("applied", "isolated")):
                    print("  note: %s: %s" % (layer, layers.get(layer)))
            written = sorted(os.listdir(outside))
            if written != ["secret"]:
                failures.append("%s: wrote outside its build folder: %s" % (name, written))
        worker.stdin.close()
        worker.wait(timeout=60)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report(failures)


def timing_control_problems(name, evaluation):
    """A timing control's calls: the pings ran the problem's reference, and at most a few calls
    (not most, as when the pings ran no model) were raised to their round trip."""
    check = evaluation.get("timing_check") or {}
    problems = []
    if check.get("ping_workload") != "reference":
        problems.append("%s: the pings ran %r, not the reference" %
                        (name, check.get("ping_workload")))
    calls = len(check.get("reported_ms", []))
    print("  timing: %s of %d calls raised to their round trip; the pings ran %s" %
          (check.get("raised_calls"), calls, check.get("ping_workload")))
    if calls == 0 or check.get("raised_calls", calls) * 2 > calls:
        problems.append("%s: %s of %d honest calls were raised to their round trip" %
                        (name, check.get("raised_calls"), calls))
    # Every stage of a whole evaluation is accounted for, and together they are its time.
    stages = evaluation.get("stages_ms") or {}
    expected = ["static_check", "reference", "answer_start", "calibration", "load",
                "correctness", "timing", "answer_end"]
    if sorted(stages) != sorted(expected) or any(v < 0 for v in stages.values()):
        problems.append("%s: stages %s, expected %s" % (name, stages, expected))
    elif not 0.9 * evaluation["wall_ms"] <= sum(stages.values()) <= evaluation["wall_ms"]:
        problems.append("%s: the stages add up to %.1f ms of the evaluation's %.1f ms" %
                        (name, sum(stages.values()), evaluation["wall_ms"]))
    if not str(check.get("exchange", "")).startswith("host"):
        problems.append("%s: on the CPU the tensors crossed through %r" %
                        (name, check.get("exchange")))
    return problems


def report(failures):
    for failure in failures:
        print("FAILED: " + failure)
    print("%d problem(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
