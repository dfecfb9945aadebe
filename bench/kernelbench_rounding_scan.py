#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""How far a right float32 answer of each KernelBench problem may be from its reference under the
judge's rule for an output as a whole (docs/task-format.md): every problem's Model is run in float32
and in float64 on the CPU, with the problem's integer constants capped so that all of them fit,
and the float32 output's L2 distance from the float64 one is given as a share of the rule's bound,
(atol + rtol)·||ref|| + eps·sqrt(n). A share near or above 1 names a problem whose right answers
the rule could fail (an output that is rounding noise, for one).

  bench/kernelbench_rounding_scan.py --kernelbench DIR [--cap 32] [--tolerance 1e-4]
      [--output FILE]
"""
import argparse
import glob
import json
import math
import os
import signal
import sys
import time
import types


class Overtime(Exception):
    pass


def overtime(*_):
    raise Overtime()


def scan(torch, path, cap, tolerance):
    """The worst share of the bound over the problem's floating outputs, and the largest value of
    the float64 output (small values are what the rule is about)."""
    module = types.ModuleType("problem")
    exec(compile(open(path, encoding="utf-8").read(), path, "exec"), module.__dict__)
    for name, value in list(module.__dict__.items()):
        if isinstance(value, int) and not isinstance(value, bool) and value > cap \
                and not name.startswith("_"):
            module.__dict__[name] = cap
    torch.manual_seed(0)
    init = module.get_init_inputs()
    torch.manual_seed(0)
    narrow = module.Model(*init).eval()
    wide = module.Model(*init).eval()
    wide.load_state_dict(narrow.state_dict())
    wide = wide.double()
    torch.manual_seed(1)
    inputs = module.get_inputs()
    with torch.no_grad():
        got = narrow(*inputs)
        want = wide(*[x.double() if torch.is_tensor(x) and x.is_floating_point() else x
                      for x in inputs])
    got = got if isinstance(got, (tuple, list)) else [got]
    want = want if isinstance(want, (tuple, list)) else [want]
    share = 0.0
    largest = 0.0
    eps = torch.finfo(torch.float32).eps
    for a, b in zip(got, want):
        if not torch.is_tensor(a) or not a.is_floating_point() or b.numel() == 0:
            continue
        size = float(torch.linalg.vector_norm(b))
        if size == 0:
            continue
        bound = 2 * tolerance * size + eps * math.sqrt(b.numel())
        share = max(share, float(torch.linalg.vector_norm(a.double() - b)) / bound)
        largest = max(largest, float(b.abs().max()))
    return share, largest


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--kernelbench", required=True)
    p.add_argument("--cap", type=int, default=32)
    p.add_argument("--tolerance", type=float, default=1e-4)
    p.add_argument("--seconds", type=int, default=60, help="per problem")
    p.add_argument("--output")
    a = p.parse_args()
    import torch
    torch.set_num_threads(2)
    signal.signal(signal.SIGALRM, overtime)
    problems = []
    for path in sorted(glob.glob(os.path.join(a.kernelbench, "level*", "*.py"))):
        entry = {"problem": os.path.relpath(path, a.kernelbench)}
        signal.alarm(a.seconds)
        try:
            entry["share_of_bound"], entry["largest_reference_value"] = scan(
                torch, path, a.cap, a.tolerance)
        except Overtime:
            entry["error"] = "over %d s" % a.seconds
        except Exception as e:  # a problem that does not run at the capped sizes
            entry["error"] = repr(e)[:200]
        finally:
            signal.alarm(0)
        problems.append(entry)
    ran = [e for e in problems if "share_of_bound" in e]
    ran.sort(key=lambda e: -e["share_of_bound"])
    for e in ran[:10]:
        print("%10.3g  %s" % (e["share_of_bound"], e["problem"]))
    summary = {"problems": len(problems), "ran": len(ran),
               "over_the_bound": sum(1 for e in ran if e["share_of_bound"] > 1),
               "over_a_tenth": sum(1 for e in ran if e["share_of_bound"] > 0.1)}
    print(summary)
    if a.output:
        command = "bench/kernelbench_rounding_scan.py " + " ".join(
            os.path.basename(x) if os.path.isabs(x) else x for x in sys.argv[1:])
        with open(a.output, "w") as f:
            json.dump({"kind": "kernelbench-rounding-scan", "command": command,
                       "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                       "torch": torch.__version__, "cap": a.cap, "tolerance": a.tolerance,
                       "summary": summary, "problems": ran + [e for e in problems
                                                             if "error" in e]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
