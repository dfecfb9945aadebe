#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every command and subcommand that `dice --help` and its groups advertise answers `--help` with
its usage on standard output and exit status 0, as the top-level help promises ("'dice COMMAND
--help' describes a command's options"). The commands are read from the help texts themselves,
so a command added later is checked too.

  check_help.py DICE
"""

import re
import subprocess
import sys


def run(dice, words):
    return subprocess.run([dice] + words + ["--help"], capture_output=True, text=True, timeout=60)


def listed(text, heading):
    """The names in the two-space-indented list under `heading` ("commands:", "benchmarks:")."""
    names, inside = [], False
    for line in text.splitlines():
        if line.strip() == heading:
            inside = True
            continue
        if inside:
            match = re.match(r"^  ([a-z][a-z0-9-]*)\b", line)
            if match:
                names.append(match.group(1))
            elif line and not line.startswith("   "):
                inside = False
    return names


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    dice = argv[1]
    top = run(dice, [])
    commands = listed(top.stdout, "commands:")
    if top.returncode != 0 or len(commands) < 10:
        print("FAILED: dice --help listed %d commands (exit %d)" % (len(commands), top.returncode))
        return 1
    asked = [[c] for c in commands]
    benchmarks = listed(run(dice, ["bench"]).stdout, "benchmarks:")
    asked += [["bench", b] for b in benchmarks]
    # Subcommands a group names in its own usage lines ("dice train rl ...").
    for command in commands:
        text = run(dice, [command]).stdout
        for sub in re.findall(r"dice %s ([a-z][a-z-]+)\b" % command, text):
            if [command, sub] not in asked:
                asked.append([command, sub])
    asked.append(["eval", "--batch"])
    failures = []
    for words in asked:
        result = run(dice, words)
        first = (result.stdout.splitlines() or [""])[0]
        print("%d  dice %s --help: %s" % (result.returncode, " ".join(words), first[:80]))
        if result.returncode != 0 or not first.startswith("usage:"):
            failures.append("dice %s --help: exit %d, %r" % (" ".join(words), result.returncode,
                                                             (result.stderr or first)[:200]))
    for failure in failures:
        print("FAILED: " + failure)
    print("%d commands, %d problem(s)" % (len(asked), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
