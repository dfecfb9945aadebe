#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The embedded model on held-out tasks of the synthetic corpus: one greedy answer per task from
`dice generate`, the answers evaluated as a suite by `dice eval` (Exec, fast_p per level).

  bench/nano_eval.py --dice DICE --model DIR --corpus DIR --split heldout_variant \
      --limit N --work DIR [--device cuda] [--preset small|bench] [--kind generate|infill]
      [--style native|kernelbench] [--curation FILE] [--output FILE]
  bench/nano_eval.py --dice DICE --model DIR --tasks DIR --work DIR [--kind generate|infill]
      [--output FILE]

--curation keeps the tasks a curation report (dice data curate --report) kept, so that the
held-out variants are those of the families the model was trained on. --tasks evaluates every
task file of a folder (such as KernelBench problems imported by `dice import kernelbench`) with
the native generation prompt (`dice generate --task`), or with --kind infill fills the skeleton
of each task's built-in solution (every kernel body a hole, `dice generate --task --infill`).

For infilling, the answer is the text of the hole and the candidate is the skeleton of the prompt
with the hole filled. Prints the generation figures and writes WORK/candidates, WORK/tasks and the
report (the command, the machine from `dice info`, generation per task and the suite's JSON from
`dice eval`) to --output, by default WORK/report.json."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dice", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--corpus")
    p.add_argument("--tasks")
    p.add_argument("--curation")
    p.add_argument("--split", default="heldout_variant")
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--work", required=True)
    p.add_argument("--device", default="cuda")
    p.add_argument("--preset", default="bench")
    # Without it: 1,024 for a corpus prompt, and for --tasks the budget `dice generate --task`
    # gives (4,096 tokens, 2,048 for a fill, cut to what the model's positions leave).
    p.add_argument("--max-tokens", type=int)
    p.add_argument("--kind", default="generate", choices=["generate", "infill"])
    # The decoding the Generate area uses by default, unless asked otherwise: static decoding
    # commits one token a step (block length steps per block).
    p.add_argument("--strategy", default="dynamic", choices=["dynamic", "static"])
    p.add_argument("--threshold", type=float, default=0.9)
    # filtered: the distribution the token was drawn from, one-hot in greedy decoding (a block
    # in one pass), as dice generate and the Generate and Infill areas take it by default;
    # raw: the softmax of the logits (dice generate --raw-confidence).
    p.add_argument("--confidence", default="filtered", choices=["filtered", "raw"])
    # The corpus asks some tasks again as imported KernelBench problems (style "kernelbench");
    # each style is its own set.
    p.add_argument("--style", default="native", choices=["native", "kernelbench"])
    p.add_argument("--output")
    a = p.parse_args()
    if bool(a.corpus) == bool(a.tasks):
        p.error("one of --corpus and --tasks is needed")
    chosen = []
    if a.tasks:
        for name in sorted(os.listdir(a.tasks)):
            if name.endswith(".json"):
                task = json.load(open(os.path.join(a.tasks, name)))
                chosen.append({"task": name[:-5], "family": task.get("id", name[:-5]),
                               "level": task.get("level", 1),
                               "file": os.path.join(a.tasks, name)})
        chosen = chosen[:a.limit]
    else:
        kept = None
        if a.curation:
            report = json.load(open(a.curation))
            kept = {t["task"] for t in report.get("curation", report)["tasks"] if t["kept"]}
        rows = [json.loads(line) for line in open(os.path.join(a.corpus, "corpus.jsonl"))]
        families = {}
        # Spread the sample over families: the first task of each family, then the second, ...
        for r in rows:
            # An infilling question is judged by splicing its one hole: questions asked with
            # later holes still open (the Infill area's order) are left out here.
            if r["split"] != a.split or r["kind"] != a.kind:
                continue
            one_hole = a.kind != "infill" or r["prompt"].split("Skeleton:\n", 1)[-1].count(
                "{{hole") == 1
            style = r.get("style", "native")
            if one_hole and style == a.style and (kept is None or r["task"] in kept):
                families.setdefault(r["family"], []).append(r)
        rank = 0
        while len(chosen) < a.limit and any(len(v) > rank for v in families.values()):
            for name in sorted(families):
                if rank < len(families[name]) and len(chosen) < a.limit:
                    chosen.append(families[name][rank])
            rank += 1
    tasks = os.path.join(a.work, "tasks")
    candidates = os.path.join(a.work, "candidates")
    os.makedirs(tasks, exist_ok=True)
    os.makedirs(candidates, exist_ok=True)
    budget = []
    if a.max_tokens is not None or not a.tasks:
        budget = ["--max-tokens", str(a.max_tokens or 1024)]
    generations = []
    for r in chosen:
        source = r.get("file") or os.path.join(a.corpus, "tasks", r["task"] + ".json")
        shutil.copy(source, tasks)
        # An imported task's parameters (safetensors) sit beside its task file.
        for extra in os.listdir(os.path.dirname(source)):
            if extra.startswith(r["task"] + ".") and not extra.endswith(".json"):
                shutil.copy(os.path.join(os.path.dirname(source), extra), tasks)
        ask = ["--task", source] if a.tasks else ["--prompt", r["prompt"], "--chat"]
        if a.tasks and a.kind == "infill":
            # The skeleton of the task's built-in solution, every hole filled in order as the
            # Infill area's Fill all does; dice prints the filled program.
            ask.append("--infill")
        start = time.time()
        out = subprocess.run([a.dice, "generate", "--model", a.model] + ask +
                             ["--device", a.device] + budget + [
                              "--strategy", a.strategy, "--threshold", str(a.threshold),
                              "--temperature", "0"] +
                             (["--raw-confidence"] if a.confidence == "raw" else []),
                             capture_output=True, text=True)
        seconds = time.time() - start
        answer = out.stdout
        if a.kind == "infill" and not a.tasks:
            # The prompt ends with the skeleton; its one hole takes the answer.
            skeleton = r["prompt"].split("Skeleton:\n", 1)[1]
            answer = re.sub(r"\{\{hole(:[A-Za-z0-9_]+)?\}\}", lambda m: answer.rstrip("\n"),
                            skeleton, count=1)
        with open(os.path.join(candidates, r["task"] + ".dice"), "w") as f:
            f.write(answer)
        figures = out.stderr.strip().splitlines()[-1] if out.stderr.strip() else ""
        generations.append({"task": r["task"], "family": r["family"], "level": r["level"],
                            "seconds": seconds, "figures": figures, "rc": out.returncode})
        print(r["task"], "%.2f s" % seconds, figures, flush=True)
    ev = subprocess.run([a.dice, "eval", "--suite", tasks, "--candidates", candidates,
                         "--preset", a.preset, "--json", "--no-store"],
                        capture_output=True, text=True)
    try:
        suite = json.loads(ev.stdout)
    except json.JSONDecodeError:
        suite = {"error": ev.stdout[-2000:] + ev.stderr[-2000:]}
    info = subprocess.run([a.dice, "info", "--json"], capture_output=True, text=True)
    try:
        machine = json.loads(info.stdout)
    except json.JSONDecodeError:
        machine = {}
    command = "bench/nano_eval.py " + " ".join(
        os.path.basename(x) if os.path.isabs(x) else x for x in sys.argv[1:])
    report = {"kind": "nano-eval", "command": command,
              "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "machine": machine,
              "split": "tasks" if a.tasks else a.split, "answers": a.kind, "style": a.style, "preset": a.preset,
              "model": os.path.basename(os.path.normpath(a.model)),
              "decoding": {"strategy": a.strategy, "threshold": a.threshold,
                           "confidence": a.confidence, "temperature": 0},
              "generations": generations, "suite": suite}
    with open(a.output or os.path.join(a.work, "report.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(ev.stderr[-3000:])


if __name__ == "__main__":
    main()
