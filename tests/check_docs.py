#!/usr/bin/python3
"""The documents stay whole: every flag the binary's help lists (`--help`, `export --help`,
`check --help`) is in docs/CLI.md, and every relative link in README.md and docs/*.md names a
file that exists and, after a '#', a heading of that file.

    check_docs.py PE_EXPLORER SOURCE_DIR
"""
import os
import re
import subprocess
import sys


def fail(message):
    print("docs check: " + message, file=sys.stderr)
    sys.exit(1)


def flags_in_help(exe, args):
    text = subprocess.run([exe] + args + ["--help"], capture_output=True, text=True,
                          check=True).stdout
    flags = set()
    for line in text.splitlines():
        # Option lines: "  --d-model INT=128   ..." or "  -o,--output TEXT  ...".
        m = re.match(r"\s+(?:-\w,)?(--[a-z][a-z0-9-]*)", line)
        if m:
            flags.add(m.group(1))
    return flags


def slug(heading):
    # GitHub's anchor for a heading: lower case, punctuation dropped, spaces as '-'.
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    out = set()
    in_code = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            m = re.match(r"(#+) (.*)", line)
            if m and not in_code:
                out.add(slug(m.group(2)))
    return out


def main():
    exe, root = sys.argv[1], sys.argv[2]
    cli = open(os.path.join(root, "docs", "CLI.md"), encoding="utf-8").read()
    flags = set()
    for args in ([], ["export"], ["check"]):
        flags |= flags_in_help(exe, args)
    if len(flags) < 50:
        fail("found only %d flags in the help texts" % len(flags))
    missing = sorted(f for f in flags if not re.search(re.escape(f) + r"(?![a-z0-9-])", cli))
    if missing:
        fail("docs/CLI.md does not mention " + ", ".join(missing))

    docs = [os.path.join(root, "README.md")]
    docs += sorted(os.path.join(root, "docs", n) for n in os.listdir(os.path.join(root, "docs"))
                   if n.endswith(".md"))
    links = 0
    for doc in docs:
        text = open(doc, encoding="utf-8").read()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto:
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
            name = os.path.relpath(doc, root)
            if not os.path.exists(full):
                fail("%s links to %s, which does not exist" % (name, target))
            if anchor and anchor not in anchors(full):
                fail("%s links to %s: no heading '#%s' in %s" %
                     (name, target, anchor, os.path.relpath(full, root)))
            links += 1
    print("docs: %d flags in docs/CLI.md, %d links resolve" % (len(flags), links))


main()
