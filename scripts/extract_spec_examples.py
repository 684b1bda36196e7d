#!/usr/bin/env python3
"""Extracts every example command of spec/LANGUAGE.md into
tests/engine/spec_examples.txt, one command per line (multi-line examples
joined with single spaces, results and comments after the command dropped,
placeholders such as `(rule ...)` skipped).

    scripts/extract_spec_examples.py ../shared/spec/LANGUAGE.md > tests/engine/spec_examples.txt
"""

import re
import sys

HEAD = re.compile(r"\((transact|retract|query|rule)[\s\[{]")


def balanced_end(text, start):
    """Index just past the form opening at text[start], or None."""
    depth, i, in_str = 0, start, False
    while i < len(text):
        c = text[i]
        if in_str:
            if c == "\\":
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        elif c == ";":
            nl = text.find("\n", i)
            i = len(text) if nl < 0 else nl
            continue
        i += 1
    return None


def commands(text):
    pos = 0
    while True:
        m = HEAD.search(text, pos)
        if not m:
            return
        end = balanced_end(text, m.start())
        if end is None:
            return
        yield " ".join(re.sub(r';[^\n"]*\n', "\n", text[m.start() : end]).split())
        pos = end


def main():
    spec = open(sys.argv[1], encoding="utf-8").read()
    seen = []
    for block in re.findall(r"```\n(.*?)```", spec, re.S):
        for cmd in commands(block):
            if cmd not in seen and "..." not in cmd:
                seen.append(cmd)
    for cell in re.findall(r"`(\((?:transact|retract|query|rule)[^`]*)`", spec):
        for cmd in commands(cell):
            if cmd not in seen and "..." not in cmd:
                seen.append(cmd)
    print("\n".join(seen))


if __name__ == "__main__":
    main()
