#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`dice data builtin`: one generation example for every built-in task, infilling examples for
their kernel bodies, answers without comment lines, and with --text the same prompts and answers
as plain text for `dice tokenizer train`.

  check_data_builtin.py DICE TASKS_DIR
"""

import json
import os
import subprocess
import sys
import tempfile


def main(argv):
    dice, tasks_dir = argv[1], argv[2]
    tasks = sorted(name[:-5] for name in os.listdir(tasks_dir) if name.endswith(".json"))
    failures = []
    with tempfile.TemporaryDirectory() as work:
        lines_path = os.path.join(work, "builtin.jsonl")
        text_path = os.path.join(work, "builtin.txt")
        out = subprocess.run([dice, "data", "builtin", "--output", lines_path, "--text", text_path],
                             capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            print("FAIL exit %d: %s" % (out.returncode, out.stderr[-400:]))
            return 1
        with open(lines_path, encoding="utf-8") as f:
            examples = [json.loads(line) for line in f]
        with open(text_path, encoding="utf-8") as f:
            text = f.read()

        generated = sorted(e["task"] for e in examples if e["kind"] == "generate")
        if generated != tasks:
            failures.append("generation examples for %r, built-in tasks %r" % (generated, tasks))
        if not any(e["kind"] == "infill" for e in examples):
            failures.append("no infilling example")
        if "%d examples of %d built-in tasks" % (len(examples), len(tasks)) not in out.stdout:
            failures.append("the summary line is %r" % out.stdout)
        for e in examples:
            if e["split"] != "train":
                failures.append("%s: split %r" % (e["id"], e["split"]))
            if e["kind"] == "generate":
                if "{{hole" in e["answer"] or not e["answer"].startswith("#pragma dice device"):
                    failures.append("%s: the answer is not a whole program" % e["id"])
                if "Task:" not in e["prompt"] or "Reference:" not in e["prompt"]:
                    failures.append("%s: the prompt is not the native task prompt" % e["id"])
            elif "Skeleton:" not in e["prompt"] or "{{hole" not in e["prompt"]:
                failures.append("%s: an infilling prompt without a skeleton" % e["id"])
            comments = [line for line in e["answer"].splitlines() if line.lstrip().startswith("//")]
            if comments:
                failures.append("%s: a comment line in the answer: %r" % (e["id"], comments[0]))
        expected = "".join(e["prompt"] + "\n" + e["answer"] + "\n" for e in examples)
        if text != expected:
            failures.append("--text is not the examples' prompts and answers in order")

        out = subprocess.run([dice, "data", "builtin", "--text", text_path],
                             capture_output=True, text=True, timeout=60)
        if out.returncode != 2 or "--output" not in out.stderr:
            failures.append("without --output: exit %d, %r" % (out.returncode, out.stderr))

    for failure in failures[:20]:
        print("FAIL", failure)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
