#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks that the programs given take the C++ runtime's functions from the C++ runtime.

PyTorch's wheels export a copy of parts of libstdc++ from libtorch.so (std::filesystem,
std::chrono's time zones); a program that binds its own calls of those to that copy crashes
(CMakeLists.txt, dice_cxx_runtime, says how). With a shared libstdc++ the dynamic linker searches
libraries in the order of the program's DT_NEEDED entries, so libstdc++.so must come before every
LibTorch library there. With a static libstdc++ the program must not import those functions at all.
"""
import subprocess
import sys

TORCH_PREFIXES = ("libtorch", "libc10")
# Mangled prefixes of the families libtorch.so exports a copy of.
COPIED_FAMILIES = ("_ZNSt10filesystem", "_ZNKSt10filesystem", "_ZNSt6chrono", "_ZNKSt6chrono")


def run(*command):
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def needed(program):
    libs = []
    for line in run("readelf", "-d", "-W", program).splitlines():
        if "(NEEDED)" in line and "[" in line:
            libs.append(line[line.index("[") + 1:line.rindex("]")])
    return libs


def imported(program):
    names = []
    for line in run("nm", "-D", "--undefined-only", program).splitlines():
        name = line.split()[-1].split("@")[0]
        if name.startswith(COPIED_FAMILIES):
            names.append(name)
    return names


def problem(program):
    libs = needed(program)
    torch = [i for i, lib in enumerate(libs) if lib.startswith(TORCH_PREFIXES)]
    if not torch:
        return None
    runtime = [i for i, lib in enumerate(libs) if lib.startswith("libstdc++.so")]
    if runtime:
        if runtime[0] < torch[0]:
            return None
        return (f"libstdc++.so comes after {libs[torch[0]]} "
                f"(load order: {', '.join(libs)})")
    names = imported(program)
    if not names:
        return None
    return (f"the C++ runtime is linked statically, yet {len(names)} of its functions are "
            f"imported and bind to LibTorch's copy, such as {names[0]}")


def main(programs):
    failures = [f"{p}: {why}" for p in programs if (why := problem(p))]
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: check_runtime_first.py PROGRAM...")
    sys.exit(main(sys.argv[1:]))
