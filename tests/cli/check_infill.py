#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`dice generate --infill` with the embedded model: the skeleton of a built-in solution comes
back with its holes filled and everything around them as it was, a given skeleton is filled in
hole order, and wrong uses are refused before any model is loaded.

  check_infill.py DICE MODEL_DIR
"""

import os
import re
import subprocess
import sys
import tempfile

HOLE = re.compile(r"\{\{hole(:[A-Za-z0-9_]+)?\}\}")


def run(dice, *args):
    return subprocess.run([dice, "generate", *args], capture_output=True, text=True, timeout=240)


def main(argv):
    dice, model = argv[1], argv[2]
    failures = []
    common = ["--model", model, "--threads", "2", "--max-tokens", "24"]

    out = run(dice, *common, "--task", "relu", "--infill")
    if out.returncode != 0:
        failures.append("relu --infill: exit %d: %s" % (out.returncode, out.stderr[-400:]))
    else:
        filled = out.stdout
        if HOLE.search(filled):
            failures.append("relu --infill: a hole is left in the program")
        if "hole relu_map:" not in out.stderr:
            failures.append("relu --infill: no figures for the hole relu_map")
        # The skeleton keeps the signature and the host part; only the body between is new.
        for kept in ("#pragma dice device", "relu_map(const float* __restrict__ x",
                     "#pragma dice host", 'dice.launch("relu_map"'):
            if kept not in filled:
                failures.append("relu --infill: %r is gone from the program" % kept)

    with tempfile.TemporaryDirectory() as work:
        skeleton = os.path.join(work, "two.dice")
        with open(skeleton, "w") as f:
            f.write("#pragma dice device\n"
                    "extern \"C\" __global__ void first_kernel(float* y)\n"
                    "{\n    {{hole:first}}\n}\n"
                    "extern \"C\" __global__ void second_kernel(float* y)\n"
                    "{\n    {{hole:second}}\n}\n"
                    "#pragma dice host\n"
                    "def forward(x: Tensor) -> Tensor:\n    return x\n")
        out = run(dice, *common, "--task", "relu", "--infill", "--skeleton", skeleton)
        if out.returncode != 0:
            failures.append("--skeleton: exit %d: %s" % (out.returncode, out.stderr[-400:]))
        else:
            order = re.findall(r"^hole (\w+):", out.stderr, re.M)
            if order != ["first", "second"]:
                failures.append("--skeleton: holes filled in the order %r" % order)
            if HOLE.search(out.stdout):
                failures.append("--skeleton: a hole is left in the program")
            if not out.stdout.endswith("def forward(x: Tensor) -> Tensor:\n    return x\n"):
                failures.append("--skeleton: the text after the last hole changed")

        plain = os.path.join(work, "plain.dice")
        with open(plain, "w") as f:
            f.write("#pragma dice device\n__global__ void k(float* y) { y[0] = 1.0f; }\n")
        out = run(dice, *common, "--task", "relu", "--infill", "--skeleton", plain)
        if out.returncode != 1 or "no hole" not in out.stderr:
            failures.append("a skeleton without a hole: exit %d, %r" %
                            (out.returncode, out.stderr[-200:]))

    for args, why in ((["--infill"], "--infill without --task"),
                      (["--task", "relu", "--skeleton", "x.dice"], "--skeleton without --infill")):
        out = run(dice, "--model", model, *args)
        if out.returncode != 2:
            failures.append("%s: exit %d, expected 2" % (why, out.returncode))

    for failure in failures:
        print("FAIL", failure)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
