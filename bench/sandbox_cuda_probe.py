#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which layer of the KernelBench sandbox keeps CUDA from starting (docs/sandbox.md).

Starts `torch.cuda.init()` and one small GPU computation through dice-sandbox with the policy a
KernelBench answer on the GPU gets (resources/python/kernelbench_sandbox.py), then with one thing
changed at a time, and writes for each variant whether CUDA started and the last line it printed.

  sandbox_cuda_probe.py --sandbox DICE_SANDBOX --output FILE
"""

import argparse
import copy
import datetime
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "resources", "python"))
import kernelbench_sandbox  # noqa: E402

PROBE = ("import torch; torch.cuda.init(); "
         "print('cuda started:', torch.cuda.device_count(), torch.ones(4, device='cuda').sum().item())")


def unix_sockets_refused(p):
    p["allow_unix_sockets"] = False


def run_unhidden(p):
    p["private_folders"] = [f for f in p["private_folders"] if f != "/run"]


# Each variant changes the policy an answer with the GPU gets in one way.
VARIANTS = [
    ("as_configured", lambda p: None),
    ("unix_sockets_refused", unix_sockets_refused),
    ("run_not_hidden", run_unhidden),
    ("no_data_limit", lambda p: p["limits"].pop("data_bytes", None)),
    ("no_limits", lambda p: p.update(limits={})),
    ("no_system_call_filter", lambda p: p.update(filter_system_calls=False)),
    ("no_landlock", lambda p: p.update(restrict_files=False)),
    ("no_namespaces", lambda p: p.update(isolate_network=False, private_folders=[])),
    ("no_private_folders", lambda p: p.update(private_folders=[])),
    ("own_proc_entries_read_only", lambda p: p.update(own_process_writable=False)),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sandbox", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    import torch
    work = tempfile.mkdtemp(prefix="dice-sandbox-probe-")
    base = kernelbench_sandbox.policy([work], gpu=True)
    variants = []
    for name, change in VARIANTS:
        policy = copy.deepcopy(base)
        change(policy)
        run = subprocess.run(
            kernelbench_sandbox.command(args.sandbox, policy, [sys.executable, "-c", PROBE]),
            capture_output=True, text=True, env=kernelbench_sandbox.environment(work), timeout=300)
        said = (run.stdout + run.stderr).strip().splitlines()
        started = run.returncode == 0 and any(l.startswith("cuda started:") for l in said)
        variants.append({"variant": name, "cuda_started": started, "exit": run.returncode,
                         "last_line": said[-1][:400] if said else ""})
        print("%-28s %s" % (name, "started" if started else "failed: " + variants[-1]["last_line"]))
    report = {
        "kind": "sandbox-cuda-probe",
        "command": "bench/sandbox_cuda_probe.py --sandbox %s --output %s" % (
            os.path.basename(args.sandbox), os.path.basename(args.output)),
        "time": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {"gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none",
                    "torch": torch.__version__, "cuda": torch.version.cuda},
        "variants": variants,
    }
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    return 0 if variants[0]["cuda_started"] else 1


if __name__ == "__main__":
    sys.exit(main())
