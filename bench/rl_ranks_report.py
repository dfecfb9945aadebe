#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The result file of scripts/gpu-check.sh's rl-ranks step (docs/distributed.md).

    rl_ranks_report.py WORK OUTPUT RUN...

WORK holds rl.json, info.json and one run folder per RUN (the first is the one-process run the
others are compared with). For each run: its steps' metrics; against the first: whether every
rollout (tokens, commit steps, verdict, reward, advantage) is the same, the largest difference of
the gradient norms, and the largest difference of the final weights.
"""
import json
import os
import sys

import torch
from safetensors.torch import load_file


def lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main(argv):
    work, output, runs = argv[1], argv[2], argv[3:]
    commands = {
        "one": "dice train rl --config rl.json --output one",
        "nccl-1": "WORLD_SIZE=1 RANK=0 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29517 "
                  "dice train rl --config rl.json --output nccl-1",
    }
    report = {"kind": "rl-ranks", "system": json.load(open(os.path.join(work, "info.json"))),
              "config": json.load(open(os.path.join(work, "rl.json"))), "runs": {}}
    base = runs[0]
    base_weights = load_file(os.path.join(work, base, "model", "model.safetensors"))
    base_metrics = lines(os.path.join(work, base, "metrics.jsonl"))
    for run in runs:
        folder = os.path.join(work, run)
        entry = {"command": commands.get(run, "dice train rl --config rl.json --output %s "
                                              "--nproc %s" % (run, run.split("-")[-1]))}
        if not os.path.exists(os.path.join(folder, "metrics.jsonl")):
            entry["error"] = "the run wrote no metrics"
            report["runs"][run] = entry
            continue
        metrics = lines(os.path.join(folder, "metrics.jsonl"))
        entry["steps"] = [{k: m.get(k) for k in (
            "step", "ranks", "rollouts", "correct", "rollouts_kept", "optimizer_steps",
            "grad_norm", "loss_policy", "kl", "buckets_overlapped", "sample_seconds",
            "judge_seconds", "update_seconds", "peak_memory_bytes")} for m in metrics]
        same_rollouts = True
        keys = ("task", "tokens", "commit_step", "verdict", "reward", "advantage", "kept")
        for step in range(1, len(metrics) + 1):
            a = lines(os.path.join(work, base, "rollouts", "%d.jsonl" % step))
            b = lines(os.path.join(folder, "rollouts", "%d.jsonl" % step))
            if len(a) != len(b) or any(x[k] != y[k] for x, y in zip(a, b) for k in keys):
                same_rollouts = False
        entry["rollouts_same_as_one_process"] = same_rollouts
        entry["grad_norm_largest_difference"] = max(
            (abs(x["grad_norm"] - y["grad_norm"]) for x, y in zip(base_metrics, metrics)),
            default=0.0)
        weights = load_file(os.path.join(folder, "model", "model.safetensors"))
        entry["weights_largest_difference"] = max(
            (weights[name].double() - tensor.double()).abs().max().item()
            for name, tensor in base_weights.items())
        report["runs"][run] = entry
    with open(output, "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps({run: {k: v for k, v in e.items() if k != "steps"}
                      for run, e in report["runs"].items()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
