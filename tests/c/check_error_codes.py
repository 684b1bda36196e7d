#!/usr/bin/env python3
"""Checks that docs/errors.md, the MINIGRAF_E_* constants of minigraf.h and
the codes the sources raise agree (ctest: error_codes_docs).

  check_error_codes.py SOURCE_DIR            check; exit 1 on a mismatch
  check_error_codes.py SOURCE_DIR --header   print the constants block

A code is named by docs/errors.md when it appears as FAM-NNN, or inside a
range FAM-NNN…FAM-MMM / FAM-NNN…MMM (every code between). Every
ERR(FAM, n) in engine/, capi/ and shell/ must be named there.
"""

import os
import re
import sys

FAMILIES = {"PRS": 1, "QRY": 2, "STG": 3, "WAL": 4, "API": 5, "INT": 6}
FAM = "(PRS|QRY|STG|WAL|API|INT)"


def documented(text):
    codes = set()
    for m in re.finditer(FAM + r"-(\d{3})\s*(?:…|\.\.\.)\s*(?:" + FAM + r"-)?(\d{3})", text):
        fam, lo, hi = m.group(1), int(m.group(2)), int(m.group(4))
        for n in range(lo, hi + 1):
            codes.add((fam, n))
    for m in re.finditer(r"\b" + FAM + r"-(\d{3})\b", text):
        codes.add((m.group(1), int(m.group(2))))
    return codes


def header_constants(text):
    consts = {}
    for m in re.finditer(r"#define MINIGRAF_E_" + FAM + r"_(\d{3}) (\d+)", text):
        consts[(m.group(1), int(m.group(2)))] = int(m.group(3))
    return consts


def raised(root):
    codes = set()
    for sub in ("engine", "capi", "shell"):
        for dirpath, _, files in os.walk(os.path.join(root, sub)):
            for f in files:
                if f.endswith((".c", ".h")):
                    with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                        for m in re.finditer(r"ERR\(" + FAM + r",\s*(\d+)\)", fh.read()):
                            codes.add((m.group(1), int(m.group(2))))
    return codes


def name(code):
    return "%s-%03d" % code


def header_block(codes):
    lines = []
    for fam in FAMILIES:
        row = [c for c in sorted(codes, key=lambda c: c[1]) if c[0] == fam]
        for c in row:
            lines.append(
                "#define MINIGRAF_E_%s_%03d %d" % (c[0], c[1], FAMILIES[fam] * 1000 + c[1])
            )
    return "\n".join(lines)


def main():
    root = sys.argv[1]
    with open(os.path.join(root, "docs", "errors.md"), encoding="utf-8") as f:
        docs = documented(f.read())
    if "--header" in sys.argv:
        print(header_block(docs))
        return 0
    with open(os.path.join(root, "capi", "include", "minigraf.h"), encoding="utf-8") as f:
        consts = header_constants(f.read())
    problems = []
    for c in sorted(docs - set(consts)):
        problems.append("%s is in docs/errors.md but has no MINIGRAF_E_ constant" % name(c))
    for c in sorted(set(consts) - docs):
        problems.append("MINIGRAF_E_%s_%03d is not in docs/errors.md" % c)
    for c, v in sorted(consts.items()):
        if v != FAMILIES[c[0]] * 1000 + c[1]:
            problems.append("MINIGRAF_E_%s_%03d is %d" % (c[0], c[1], v))
    with open(os.path.join(root, "capi", "src", "error_codes.c"), encoding="utf-8") as f:
        table = set(
            (m.group(1), int(m.group(2)))
            for m in re.finditer(r"MINIGRAF_E_" + FAM + r"_(\d{3})", f.read())
        )
    for c in sorted(set(consts) ^ table):
        problems.append("%s: capi/src/error_codes.c and minigraf.h differ" % name(c))
    for c in sorted(raised(root) - docs):
        problems.append("%s is raised by the sources but not in docs/errors.md" % name(c))
    for p in problems:
        print(p)
    print(
        "%d codes documented, %d constants, %d problems" % (len(docs), len(consts), len(problems))
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
