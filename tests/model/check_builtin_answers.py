#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The embedded model on the workbench's own 46 tasks, as a teacher meets it: one greedy answer
per built-in task on the CPU (bench/nano_eval.py, `dice generate --task` and `dice eval --suite`),
and at least MIN_SHARE of the answers must compile and pass the host part's dry run. On a machine
without a GPU that is all the evaluator can say; with one, a compiled answer's run counts too.

  check_builtin_answers.py DICE MODEL_DIR TASKS_DIR NANO_EVAL MIN_SHARE
"""

import json
import os
import subprocess
import sys
import tempfile


def fails_before_the_gpu(result):
    """The answer does not parse as the dialect, does not compile, or its host part fails its
    dry run on meta tensors."""
    if result["verdict"] in ("invalid_candidate", "compile_error"):
        return True
    return result["verdict"] == "runtime_error" and "dry run" in result["message"]


def main(argv):
    dice, model, tasks, nano_eval, min_share = argv[1:6]
    with tempfile.TemporaryDirectory() as work:
        report_path = os.path.join(work, "report.json")
        run = subprocess.run([sys.executable, nano_eval, "--dice", dice, "--model", model,
                              "--tasks", tasks, "--limit", "100", "--device", "cpu",
                              "--work", work, "--output", report_path],
                             capture_output=True, text=True, timeout=1500)
        if run.returncode != 0 or not os.path.exists(report_path):
            print("FAIL nano_eval.py: exit %d: %s" % (run.returncode, run.stderr[-1000:]))
            return 1
        with open(report_path, encoding="utf-8") as f:
            report = json.load(f)
    suite = report["suite"]
    if "results" not in suite:
        print("FAIL dice eval --suite gave no results: %s" % suite.get("error", "")[-1000:])
        return 1
    results = suite["results"]
    expected = len([n for n in os.listdir(tasks) if n.endswith(".json")])
    failures = []
    if len(results) != expected:
        failures.append("%d results for %d built-in tasks" % (len(results), expected))
    failed = [r for r in results if fails_before_the_gpu(r)]
    passed = len(results) - len(failed)
    for r in failed:
        print("%s: %s: %s" % (r["task"], r["verdict"], r["message"].splitlines()[0][:200]))
    print("%d of %d answers compile and pass the host part's dry run" % (passed, len(results)))
    if passed < float(min_share) * expected:
        failures.append("%d of %d pass, fewer than %s of them" % (passed, expected, min_share))
    for failure in failures:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
