#!/usr/bin/env python3
"""Runs the `minigraf` shell on scripts and checks what it prints (language.md §18).

    check_shell.py <minigraf-binary> <source-root>

Commit times vary, so "(tx: 1717000000123)" is compared as "(tx: <ms>)";
row order is unspecified, so the rows of each table are compared sorted.
Prints one line per check and "N passed, N failed"; exits non-zero on failure.
"""

import os
import re
import subprocess
import sys
import tempfile

SHELL, ROOT = sys.argv[1], sys.argv[2]
HERE = os.path.join(ROOT, "tests", "shell")
results = {"passed": 0, "failed": 0}


def normalise(text):
    """Masks commit times and sorts the rows of every table."""
    out, rows, in_table = [], [], False
    for line in re.sub(r"\(tx: \d+\)", "(tx: <ms>)", text).split("\n"):
        if in_table and line == "":
            out.extend(sorted(rows))
            rows, in_table = [], False
            out.append(line)
        elif in_table:
            rows.append(line)
        else:
            out.append(line)
            in_table = line != "" and set(line) == {"-"}
    return "\n".join(out + sorted(rows))


def run(args, script, **kw):
    return subprocess.run(
        [SHELL] + args,
        input=script.encode("utf-8"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kw,
    )


def check(name, proc, stdout=None, stderr="", status=0):
    problems = []
    got_out = proc.stdout.decode("utf-8", "replace")
    got_err = proc.stderr.decode("utf-8", "replace")
    if stdout is not None and normalise(got_out) != normalise(stdout):
        problems.append("stdout:\n--- got\n%s--- want\n%s" % (got_out, stdout))
    if stderr is not None and got_err != stderr:
        problems.append("stderr:\n--- got\n%s--- want\n%s" % (got_err, stderr))
    if (status == 0) != (proc.returncode == 0):
        problems.append(
            "exit status %d, want %s" % (proc.returncode, "0" if status == 0 else "non-zero")
        )
    results["failed" if problems else "passed"] += 1
    print("%s %s" % ("FAIL" if problems else "ok  ", name))
    for p in problems:
        print("    " + p.replace("\n", "\n    "))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# The example script of examples/.
check(
    "social_example_script",
    run([], read(os.path.join(ROOT, "examples", "social.edn"))),
    stdout=read(os.path.join(HERE, "social.expected")),
)

# The example session of language.md §18.
check(
    "spec_example_session",
    run(
        [],
        '(transact [[:alice :person/name "Alice"] [:bob :person/name "Bob"]])\n'
        "(query [:find ?n :where [?e :person/name ?n]])\n"
        "(query [:find ?n :where [?e :person/nick ?n]])\n"
        "(frobnicate [])\nEXIT\n",
    ),
    stdout='✓ Transacted successfully (tx: 1)\n?n\n--------------------\n"Alice"\n"Bob"\n\n'
    "2 result(s) found.\nNo results found.\n",
    stderr="Error: [PRS-011] Unknown command: frobnicate\n",
    status=1,
)

# Line handling: comments inside a command, parentheses inside strings,
# a #uuid line dropped as a comment, several lines per command, lower-case exit.
check(
    "line_handling",
    run(
        [],
        '  ; leading comment\n\n(transact [[:a :s "(("]\n'
        "# a comment inside the command\n"
        ' [:a :t ")"]])\n'
        "(query [:find ?s ?t\n  :where [:a :s ?s]\n         [:a :t ?t]])\n"
        "   exit   \n(query [:find ?s :where [:a :s ?s]])\n",
    ),
    stdout="✓ Transacted successfully (tx: 1)\n?s\t?t\n----------------------------------------\n"
    '"(("\t")"\n\n1 result(s) found.\n',
)

# Value rendering of language.md §18.
check(
    "value_rendering",
    run(
        [],
        "(transact [[:v :f 1000000000000000000000.0] [:v :g -0.5] [:v :h 10.5]\n"
        " [:v :i 1"
        + "0"
        * 400
        + '.0] [:v :k :kw] [:v :s "say \\"hi\\""] [:v :n -9223372036854775808]\n'
        ' [:v :r #uuid "550e8400-e29b-41d4-a716-446655440000"] [:v :b false]])\n'
        "(query [:find ?f ?g ?h ?i ?k ?s ?n ?r ?b :where [:v :f ?f] [:v :g ?g] [:v :h ?h] [:v :i ?i]"
        " [:v :k ?k] [:v :s ?s] [:v :n ?n] [:v :r ?r] [:v :b ?b]])\n",
    ),
    stdout="✓ Transacted successfully (tx: 1)\n?f\t?g\t?h\t?i\t?k\t?s\t?n\t?r\t?b\n"
    + "-" * 180
    + "\n"
    '1000000000000000000000\t-0.5\t10.5\tinf\t:kw\t"say "hi""\t-9223372036854775808\t'
    "#uuid 550e8400-e29b-41d4-a716-446655440000\tfalse\n\n1 result(s) found.\n",
)

# Errors go to stderr, processing continues, the exit status reports them.
check(
    "errors_continue_and_fail_the_script",
    run(
        [],
        "(transact [[:a :n 1]]\n)\n(insert [])\n"
        '(transact [["a" :n 1]])\n(query [:find ?n :where [:a :n ?n]])\n',
    ),
    stdout="✓ Transacted successfully (tx: 1)\n?n\n--------------------\n1\n\n1 result(s) found.\n",
    stderr=None,
    status=1,
)

with tempfile.TemporaryDirectory() as tmp:
    db = os.path.join(tmp, "social.graph")
    init = os.path.join(tmp, "init.edn")
    with open(init, "w", encoding="utf-8") as f:
        f.write('(transact [[:alice :person/name "Alice"]])\n(query [:find ?x :where [?x :a 1]])\n')
    # --init runs silently, then stdin continues on the same database.
    check(
        "init_file_runs_silently",
        run(["--init", init], "(query [:find ?n :where [?e :person/name ?n]])\n"),
        stdout='?n\n--------------------\n"Alice"\n\n1 result(s) found.\n',
    )
    # A path opens a file-backed database that a second run sees again.
    check(
        "file_database_first_run",
        run([db], "(transact [[:k :v 1]])\n"),
        stdout="✓ Transacted successfully (tx: 1)\n",
    )
    check(
        "file_database_second_run",
        run(["--file", db], "(query [:find ?v :where [:k :v ?v]])\n"),
        stdout="?v\n--------------------\n1\n\n1 result(s) found.\n",
    )

# A bad argument is a usage error.
check("unknown_option_is_rejected", run(["--bogus"], ""), stdout=None, stderr=None, status=1)

print("%d passed, %d failed" % (results["passed"], results["failed"]))
sys.exit(1 if results["failed"] else 0)
