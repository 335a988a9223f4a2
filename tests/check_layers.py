#!/usr/bin/env python3
"""The floors of core/ and app/: every `#include "folder/..."` in a folder's files must name the
folder itself or one the folder builds on, as the libraries link them (core/CMakeLists.txt,
app/CMakeLists.txt). The build refuses most wrong includes (each library sees only the folders
of what it links); this also catches a header that no file of its own library includes and an
include by a relative path ("../"). A new folder must be given its place here.

Usage: check_layers.py [ROOT]. Prints each include that runs against the floors; exit 1 if any.
"""
import os
import re
import sys

# The folders each folder may include besides itself (what its library links, directly or not).
CORE = {
    "base": set(),
    "io": {"base"},
    "text": {"io", "base"},
    "encoding": {"io", "base"},
    "figure": {"text", "io", "base"},
    "model": {"encoding", "figure", "text", "io", "base"},
    "arch": {"model", "encoding", "figure", "text", "io", "base"},
    "analysis": {"model", "encoding", "figure", "text", "io", "base"},
    "views": {"arch", "analysis", "model", "encoding", "figure", "text", "io", "base"},
    "session": {"views", "arch", "analysis", "model", "encoding", "figure", "text", "io", "base"},
}
CORE_ALL = set(CORE)
APP = {
    "options": set(),
    "cli": {"options"} | CORE_ALL,
    "jobs": set(CORE_ALL),
    "ui": {"jobs", "options"} | CORE_ALL,
    "panels": {"ui", "jobs", "options"} | CORE_ALL,
    "frame": {"panels", "ui", "jobs", "options"} | CORE_ALL,
    "window": {"frame", "panels", "ui", "jobs", "options"} | CORE_ALL,
}
# Known exceptions, each to go: (file, include).
ALLOWED = set()

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def check(root):
    problems = []
    for top, floors in (("core", CORE), ("app", APP)):
        top_dir = os.path.join(root, top)
        for folder in sorted(os.listdir(top_dir)):
            path = os.path.join(top_dir, folder)
            if not os.path.isdir(path):
                continue
            if folder not in floors:
                problems.append(f"{top}/{folder}/: a folder with no floor in tests/check_layers.py")
                continue
            visible = floors[folder] | {folder}
            for dirpath, _, files in os.walk(path):
                for name in sorted(files):
                    if not name.endswith((".h", ".cpp", ".inc")):
                        continue
                    file = os.path.join(dirpath, name)
                    rel = os.path.relpath(file, root)
                    with open(file, encoding="utf-8", errors="replace") as f:
                        text = f.read()
                    for m in INCLUDE.finditer(text):
                        inc = m.group(1)
                        if (rel, inc) in ALLOWED:
                            continue
                        if inc.startswith("..") or "/../" in inc:
                            problems.append(f"{rel}: includes \"{inc}\" by a relative path")
                            continue
                        if "/" not in inc:
                            continue  # a file beside it
                        target = inc.split("/")[0]
                        if target not in visible:
                            problems.append(f"{rel}: {top}/{folder} includes \"{inc}\", "
                                            f"a folder it does not build on")
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} include(s) against the floors")
        return 1
    print("layers: every include follows the floors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
