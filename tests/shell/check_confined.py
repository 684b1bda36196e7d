#!/usr/bin/env python3
"""The confined shell (built with MINIGRAF_SHELL_CONFINED, as the fuzz
target is; shell/confine.c): dot-commands take only plain file names in the
current directory, .read is bounded, queries are bounded. The ordinary
shell is checked to allow what the confined one refuses.

    check_confined.py <confined-binary> <ordinary-binary>

Each check runs in a fresh directory with a subdirectory `sub` and a file
`../outside` beside it. Prints one line per check and "N passed, N
failed"; exits non-zero on failure.
"""

import os
import subprocess
import sys
import tempfile

CONFINED, ORDINARY = sys.argv[1], sys.argv[2]
results = {"passed": 0, "failed": 0}
REFUSED = "Error: [API-017] %s: this shell is confined to plain file names in the current directory (no '/', no '..'): '%s'\n"


def run(shell, script, files=None):
    """Runs `script` in a fresh directory; returns (proc, directory listing
    after, whether ../outside changed)."""
    with tempfile.TemporaryDirectory() as top:
        here = os.path.join(top, "here")
        os.makedirs(os.path.join(here, "sub"))
        outside = os.path.join(top, "outside")
        with open(outside, "w") as f:
            f.write("not a database\n")
        for name, text in (files or {}).items():
            with open(os.path.join(here, name), "w") as f:
                f.write(text)
        proc = subprocess.run(
            [shell], input=script.encode(), cwd=here, capture_output=True, timeout=60
        )
        listing = sorted(os.listdir(here)) + [
            "sub/" + n for n in sorted(os.listdir(os.path.join(here, "sub")))
        ]
        with open(outside) as f:
            touched = f.read() != "not a database\n" or sorted(os.listdir(top)) != [
                "here",
                "outside",
            ]
        return proc, listing, touched


def check(name, got, want):
    ok = got == want
    results["passed" if ok else "failed"] += 1
    print("%s %s" % ("ok  " if ok else "FAIL", name))
    if not ok:
        print("    got:  %r\n    want: %r" % (got, want))


def refusal(name, command, path):
    proc, listing, touched = run(CONFINED, "%s\n" % command)
    check(
        name,
        (proc.stderr.decode(), proc.returncode != 0, listing, touched),
        (REFUSED % (command.split()[0], path), True, ["sub"], False),
    )


DATA = "(transact [[:a :n 1] [:a :n 2]])\n"

refusal("open_parent", ".open ../outside", "../outside")
refusal("open_absolute", ".open /tmp/confined.graph", "/tmp/confined.graph")
refusal("open_subdirectory", ".open sub/x.graph", "sub/x.graph")
refusal("read_absolute", ".read /etc/hostname", "/etc/hostname")
refusal("read_parent", ".read ../outside", "../outside")
refusal("read_dotdot", ".read ..", "..")
refusal("read_empty", '.read ""', "")
refusal("export_parent", ".export ../copy.graph", "../copy.graph")
refusal("export_jsonl_absolute", ".export --jsonl /dev/null", "/dev/null")
refusal("import_from_parent", ".import ../outside new.graph", "../outside")
refusal("import_into_subdirectory", ".import log.jsonl sub/new.graph", "sub/new.graph")

# Plain names in the current directory work as in the ordinary shell.
proc, listing, touched = run(
    CONFINED,
    DATA + ".export copy.graph\n.export --jsonl log.jsonl\n.import log.jsonl new.graph\n"
    ".changes\n.open copy.graph\n.changes\n.read script.txt\n",
    {"script.txt": "(query [:find ?n :where [:a :n ?n] :order-by [?n]])\n"},
)
check(
    "plain_names_work",
    (
        proc.stderr.decode(),
        proc.stdout.decode().count("transactions: 1"),
        "1\n2\n" in proc.stdout.decode(),
        [n for n in listing if not n.endswith((".lock", ".wal"))],
        touched,
    ),
    ("", 2, True, ["copy.graph", "log.jsonl", "new.graph", "script.txt", "sub"], False),
)

# .read: at most 4 nested, 64 in a session (the ordinary shell: 16 nested).
SELF = {"self.txt": "(transact [[:r :n 1]])\n.read self.txt\n.read self.txt\n"}
proc, _, _ = run(CONFINED, ".read self.txt\n.changes\n", SELF)
check(
    "read_nesting_bounded",
    (
        proc.stdout.decode().splitlines()[-1],
        proc.stderr.decode().count(
            "[API-017] .read: this shell is confined to 4 nested and 64 in all"
        ),
    ),
    ("transactions: 15", 16),
)
FOUR = {"four.txt": "(transact [[:r :n 1]])\n" + ".read four.txt\n" * 4}
proc, _, _ = run(CONFINED, ".read four.txt\n.changes\n", FOUR)
check("read_total_bounded", proc.stdout.decode().splitlines()[-1], "transactions: 64")

# An answer is bounded: a cross product of 30^3 rows stops at 2,000.
CROSS = (
    "(transact [%s])\n(query [:find ?a ?b ?c :where [?a :v _] [?b :v _] [?c :v _]])\n"
    % " ".join("[:e%d :v %d]" % (i, i) for i in range(30))
)
proc, _, _ = run(CONFINED, CROSS)
check(
    "answer_rows_bounded",
    (proc.stderr.decode(), len(proc.stdout.decode().splitlines()) < 2200),
    (
        "Error: [API-017] this shell is confined to answers of 2000 rows; the rest is not printed\n",
        True,
    ),
)
proc, _, _ = run(ORDINARY, CROSS)
check(
    "ordinary_query_unbounded",
    (proc.stderr.decode(), "27000 result(s) found." in proc.stdout.decode()),
    ("", True),
)

# The ordinary shell is not confined.
proc, listing, touched = run(
    ORDINARY, DATA + ".export sub/copy.graph\n.open sub/copy.graph\n.changes\n"
)
check(
    "ordinary_not_confined",
    (proc.stderr.decode(), "sub/copy.graph" in listing, proc.stdout.decode().splitlines()[-1]),
    ("", True, "transactions: 1"),
)

print("%d passed, %d failed" % (results["passed"], results["failed"]))
sys.exit(1 if results["failed"] else 0)
