#!/usr/bin/env python3
"""Runs docs/PYTHON.md as a reader would: its `pe-explorer` command lines (the indented lines
that start with it) and its ```python blocks, in the page's order, in a fresh folder, with the
commands run by the binary given. Python blocks share one namespace, as one session would.
A page whose code fails fails the test; matplotlib missing is the page's own printed skip.

usage: python_exports.py PE_EXPLORER [PYTHON.md]
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile


def blocks(page):
    """("sh", line) and ("py", code) items in page order."""
    out, lines, k = [], page.splitlines(), 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("```python"):
            end = lines.index("```", k + 1)
            out.append(("py", "\n".join(lines[k + 1:end]) + "\n"))
            k = end + 1
            continue
        if line.startswith("    pe-explorer "):
            out.append(("sh", line.strip()))
        k += 1
    return out


def main():
    binary = os.path.abspath(sys.argv[1])
    here = os.path.dirname(os.path.abspath(__file__))
    page_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "..", "docs", "PYTHON.md")
    items = blocks(open(page_path, encoding="utf-8").read())
    commands = sum(1 for kind, _ in items if kind == "sh")
    code = sum(1 for kind, _ in items if kind == "py")
    if commands < 4 or code < 3:
        print(f"FAIL: the page has {commands} commands and {code} Python blocks")
        return 1
    namespace = {"__name__": "__docs__"}
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        for kind, text in items:
            if kind == "sh":
                argv = shlex.split(text)
                argv[0] = binary
                r = subprocess.run(argv, capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"FAIL: {text}\n{r.stdout}{r.stderr}")
                    return 1
                print(f"ran: {text}")
            else:
                try:
                    exec(compile(text, "docs/PYTHON.md", "exec"), namespace)
                except Exception as e:  # the page's code failed: say where
                    print(f"FAIL in the block:\n{text}\n{type(e).__name__}: {e}")
                    return 1
    print(f"ok: {commands} commands and {code} Python blocks of docs/PYTHON.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
