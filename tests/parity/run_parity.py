#!/usr/bin/env python3
"""Run the parity suite: every runner, every case, one verdict per case.

Each runner is a command prefix; the harness appends ``<cases_dir>
<transcript_out>`` and runs it. A case passes when, for every runner, each of
its steps produced a transcript line that matches the step's expectation
(canonicalised here with the rules of README.md) and all runners wrote
byte-identical lines for it.

    run_parity.py --c build/tests/parity/runner_c --python "python3 runner.py"

Exit status: 0 when every case passed, 1 otherwise, 2 on bad usage.
Python 3 standard library only.
"""

import argparse
import decimal
import difflib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

RUNNER_FLAGS = ("c", "python", "node", "java")
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
KEY_ORDER = (
    "transacted",
    "retracted",
    "ok",
    "variables",
    "results",
    "rows",
    "records",
    "tx_count",
    "error",
    "code",
    "message",
)
# Exactly one of these keys names what a step does (README.md, "Step kinds"
# and "Fact log steps").
STEP_KINDS = (
    "execute",
    "query",
    "tx_count",
    "checkpoint",
    "reopen",
    "fact_log",
    "export_import",
    "query_typed",
    "prepare",
    "execute_prepared",
    "query_prepared",
    "clear_bindings",
    "bind_entity",
    "begin_write",
    "tx_execute",
    "tx_query",
    "commit",
    "rollback",
    "query_cancelled",
)


class Number(str):
    """A JSON number kept as its token text (exact for big integers)."""


# ---- canonical writer (README: "Canonical transcript") ----------------------


def canon_string(text):
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def scientific(digits, power, negative):
    """d1.d2...dn e<x> for value = digits * 10**power (digits trimmed)."""
    exponent = power + len(digits) - 1
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return ("-" if negative else "") + mantissa + "e" + str(exponent)


def canon_number(token):
    value = decimal.Decimal(str(token))
    if value == value.to_integral_value() and INT64_MIN <= value <= INT64_MAX:
        return str(int(value))
    shortest = decimal.Decimal(repr(float(str(token))))
    sign, digits, power = shortest.as_tuple()
    text = "".join(map(str, digits)).lstrip("0")
    stripped = text.rstrip("0")
    power += len(text) - len(stripped)
    return scientific(stripped, power, sign == 1)


def canon(value):
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, Number):
        return canon_number(value)
    if isinstance(value, (int, float)):
        return canon_number(repr(value))
    if isinstance(value, str):
        return canon_string(value)
    if isinstance(value, list):
        return "[" + ",".join(canon(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(
            value, key=lambda k: (KEY_ORDER.index(k) if k in KEY_ORDER else len(KEY_ORDER), k)
        )
        return "{" + ",".join(canon_string(k) + ":" + canon(value[k]) for k in keys) + "}"
    raise TypeError("not a JSON value: %r" % (value,))


def canon_rows(rows, ordered):
    texts = [canon(row) for row in rows]
    if not ordered:
        texts.sort(key=lambda t: t.encode("utf-8"))
    return "[" + ",".join(texts) + "]"


def canon_expected(expect, ordered):
    """The canonical outcome text an expectation stands for."""
    if "rows" in expect or "results" in expect:
        key = "rows" if "rows" in expect else "results"
        return (
            '{"variables":'
            + canon(expect.get("variables"))
            + ',"'
            + key
            + '":'
            + canon_rows(expect[key], ordered)
            + "}"
        )
    return canon(expect)


def load_json(text):
    return json.loads(text, parse_int=Number, parse_float=Number)


# ---- judging -------------------------------------------------------------------


def error_code_of(line_outcome):
    try:
        outcome = load_json(line_outcome)
    except ValueError:
        return None
    error = outcome.get("error") if isinstance(outcome, dict) else None
    return error.get("code") if isinstance(error, dict) else None


def judge_step(step, outcome):
    """None when `outcome` (canonical text) meets the step's expectation,
    else the expected text for the report."""
    if "expect" not in step:
        return None
    expect = step["expect"]
    if isinstance(expect, dict) and isinstance(expect.get("error"), str):
        code = expect["error"]
        return None if error_code_of(outcome) == code else '{"error":{"code":"%s",...}}' % code
    want = canon_expected(expect, bool(step.get("ordered")))
    return None if outcome == want else want


def read_transcript(path):
    """{"case#i": outcome} plus the raw lines of each case, by case name."""
    outcomes, lines = {}, {}
    if not os.path.exists(path):
        return outcomes, lines
    with open(path, encoding="utf-8", newline="\n") as f:
        for line in f.read().split("\n"):
            if "\t" not in line:
                continue
            key, outcome = line.split("\t", 1)
            outcomes[key] = outcome
            lines.setdefault(key.rsplit("#", 1)[0], []).append(line)
    return outcomes, lines


def load_cases(cases_dir):
    cases = []
    for name in sorted(os.listdir(cases_dir)):
        if name.endswith(".json"):
            with open(os.path.join(cases_dir, name), encoding="utf-8") as f:
                cases.append((name, load_json(f.read())))
    return cases


IGNORE_RUNNERS_KEY = False  # --all-cases: run every case on every runner


def case_runs_on(case, label):
    """Whether a case is for this runner: every runner, unless its "runners"
    key lists some (a feature not yet in every package, README.md)."""
    if IGNORE_RUNNERS_KEY:
        return True
    return label in case.get("runners", RUNNER_FLAGS)


def cases_for(label, cases, cases_dir, out_dir):
    """The directory of the cases this runner runs: cases_dir itself when
    that is all of them, else a copy of those that are for it."""
    mine = [name for name, case in cases if case_runs_on(case, label)]
    if len(mine) == len([n for n in os.listdir(cases_dir) if n.endswith(".json")]):
        return cases_dir
    subset = os.path.join(out_dir, label + ".cases")
    os.makedirs(subset, exist_ok=True)
    for name in os.listdir(subset):
        os.remove(os.path.join(subset, name))
    for name in mine:
        shutil.copyfile(os.path.join(cases_dir, name), os.path.join(subset, name))
    return subset


def run_runner(label, prefix, cases_dir, out_dir):
    transcript = os.path.join(out_dir, label + ".transcript")
    command = shlex.split(prefix) + [cases_dir, transcript]
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        print(
            "runner %s failed (exit %d):\n%s"
            % (label, result.returncode, result.stdout.decode("utf-8", "replace"))
        )
    return read_transcript(transcript)


def step_kind(step):
    """The step's kind, or None unless exactly one kind key is present."""
    kinds = [k for k in STEP_KINDS if k in step]
    return kinds[0] if len(kinds) == 1 else None


def step_label(step):
    """What the step ran, for reports: its command text or its kind."""
    kind = step_kind(step)
    if kind in ("execute", "query", "prepare", "tx_execute", "tx_query", "query_cancelled"):
        return step[kind]
    if kind == "fact_log":
        return "fact_log " + canon(step[kind])
    return kind or next(iter(step), "?")


def check_case(case, transcripts):
    """A list of problems with one case across all runners (empty: passed)."""
    name = case["name"]
    problems = [
        "step %d: needs exactly one of %s" % (i, ", ".join(STEP_KINDS))
        for i, step in enumerate(case.get("steps", []))
        if step_kind(step) is None
    ]
    transcripts = {label: t for label, t in transcripts.items() if case_runs_on(case, label)}
    for label, (outcomes, _) in transcripts.items():
        for i, step in enumerate(case.get("steps", [])):
            outcome = outcomes.get("%s#%d" % (name, i))
            if outcome is None:
                problems.append("[%s] step %d: no transcript line" % (label, i))
                continue
            want = judge_step(step, outcome)
            if want is not None:
                problems.append(
                    "[%s] step %d: %s\n    expected: %s\n    actual:   %s"
                    % (label, i, step_label(step), want, outcome)
                )
    problems.extend(compare_runners(name, transcripts))
    return problems


def compare_runners(name, transcripts):
    labels = list(transcripts)
    problems = []
    first = transcripts[labels[0]][1].get(name, []) if labels else []
    for label in labels[1:]:
        other = transcripts[label][1].get(name, [])
        if other != first:
            diff = difflib.unified_diff(first, other, labels[0], label, lineterm="")
            problems.append(
                "transcripts differ (%s vs %s):\n%s" % (labels[0], label, "\n".join(diff))
            )
    return problems


def run_all(runners, cases, cases_dir, out_dir):
    return {
        label: run_runner(label, cmd, cases_for(label, cases, cases_dir, out_dir), out_dir)
        for label, cmd in runners
    }


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    for flag in RUNNER_FLAGS:
        parser.add_argument("--" + flag, metavar="CMD", help="%s runner command prefix" % flag)
    parser.add_argument(
        "--cases", default=os.path.join(here, "cases"), help="case directory (default: %(default)s)"
    )
    parser.add_argument("--keep", metavar="DIR", help="write the transcripts to DIR")
    parser.add_argument(
        "--all-cases",
        action="store_true",
        help='ignore the cases\' "runners" keys: run every case on every runner'
        " (for a package catching up with the C runner)",
    )
    parser.add_argument(
        "--only", metavar="SUBSTRING", help="run only the cases whose file name contains SUBSTRING"
    )
    args = parser.parse_args(argv)
    global IGNORE_RUNNERS_KEY
    IGNORE_RUNNERS_KEY = args.all_cases
    runners = [(f, getattr(args, f)) for f in RUNNER_FLAGS if getattr(args, f)]
    if not runners:
        parser.error("give at least one runner (--c, --python, --node, --java)")
    cases = load_cases(args.cases)
    if args.only:
        cases = [(n, c) for n, c in cases if args.only in n]
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        transcripts = run_all(runners, cases, args.cases, args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="minigraf-parity-") as out_dir:
            transcripts = run_all(runners, cases, args.cases, out_dir)

    passed = failed = 0
    for file_name, case in cases:
        problems = check_case(case, transcripts)
        if problems:
            failed += 1
            print("FAIL %s (%s)" % (case["name"], file_name))
            for p in problems:
                print("  " + p.replace("\n", "\n  "))
        else:
            passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
