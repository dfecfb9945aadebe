#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The include graph of core/ and of widgets/, folder by folder.

Each tree has its rooms in one order, lowest first (LAYERS below, which docs/architecture.md
explains). A file may include headers of its own room and of rooms below it, never above: so the
graph has no upward arrow and, therefore, no cycle. Rooms that are not listed, and includes of a
listed room that is not there, are errors too, so the list stays the truth about the tree.

    check_layers.py [--graph] [ROOT]

--graph prints each tree's arrows (room -> the rooms it includes) as the architecture page shows
them. Exits 1 and names every offending include when the order is broken.
"""
import os
import re
import sys

LAYERS = {
    "core": [
        "common", "cuda", "system", "tokenizer", "tasks", "model", "diffusion", "engine",
        "prompts", "infill", "eval", "worker", "suite", "store", "kernelbench", "reward", "data",
        "distributed", "train", "bench", "selftest",
    ],
    "widgets": [
        "state", "editor", "plots", "tasks", "model", "generate", "infill", "profile", "finetune",
        "shell",
    ],
}
# Folders that hold no room: the precompiled header.
IGNORED = {"core": {"pch"}, "widgets": set()}

INCLUDE = re.compile(r'^\s*#\s*include\s+"(core|widgets|app)/([A-Za-z0-9_]+)/')
# Qt stays out of core (it builds where there is no Qt), LibTorch out of widgets (Qt's keyword
# macros break its headers).
FOREIGN = {"core": re.compile(r'^\s*#\s*include\s+<(Q[A-Za-z]+|qt[a-z]*/)'),
           "widgets": re.compile(r'^\s*#\s*include\s+<(torch|ATen|c10)/')}


def rooms_of(root, tree):
    base = os.path.join(root, tree)
    return sorted(d for d in os.listdir(base)
                  if os.path.isdir(os.path.join(base, d)) and d not in IGNORED[tree])


def arrows(root, tree):
    """(room, included tree, included room, file, line number) for every include."""
    found = []
    base = os.path.join(root, tree)
    for room in rooms_of(root, tree):
        for folder, _, files in os.walk(os.path.join(base, room)):
            for name in sorted(files):
                if not name.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        if FOREIGN[tree].match(line):
                            found.append((room, "foreign", line.strip(),
                                          os.path.relpath(path, root), number))
                            continue
                        m = INCLUDE.match(line)
                        if m:
                            found.append((room, m.group(1), m.group(2),
                                          os.path.relpath(path, root), number))
    return found


def check(root):
    problems = []
    graphs = {}
    for tree, order in LAYERS.items():
        rank = {room: i for i, room in enumerate(order)}
        present = rooms_of(root, tree)
        for room in present:
            if room not in rank:
                problems.append(f"{tree}/{room}/ is not in the layer list of {tree}")
        for room in order:
            if room not in present:
                problems.append(f"{tree}/{room}/ is in the layer list but not in the tree")
        graph = {room: set() for room in present}
        for room, other_tree, other, path, number in arrows(root, tree):
            if other_tree == "foreign":
                problems.append(f"{path}:{number}: {tree}/ must not include {other}")
                continue
            if other_tree != tree:
                # app -> widgets -> core: widgets include core freely, nothing includes app.
                if other_tree == "app" or tree == "core":
                    problems.append(f"{path}:{number}: {tree}/ includes {other_tree}/{other}/")
                continue
            if other == room:
                continue
            graph.setdefault(room, set()).add(other)
            if other not in rank or room not in rank:
                continue
            if rank[other] > rank[room]:
                problems.append(f"{path}:{number}: {tree}/{room}/ includes {tree}/{other}/, "
                                f"a room above it")
        graphs[tree] = graph
    return problems, graphs


def main(argv):
    show = "--graph" in argv
    args = [a for a in argv if a != "--graph"]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    problems, graphs = check(os.path.abspath(root))
    if show:
        for tree, order in LAYERS.items():
            print(f"{tree}/ (lowest first)")
            for room in order:
                below = sorted(graphs[tree].get(room, ()), key=order.index)
                print(f"  {room:12} -> {' '.join(below) if below else '(nothing)'}")
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"check_layers: {len(problems)} include(s) break the order of the rooms",
              file=sys.stderr)
        return 1
    if not show:
        print("check_layers: core/ and widgets/ include only their own and lower rooms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
