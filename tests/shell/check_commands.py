#!/usr/bin/env python3
"""The shell's output modes, dot-commands, comment rule, command line and
exit codes (docs/shell.md), checked on transcripts.

    check_commands.py <minigraf-binary>

Commit times vary, so "(tx: 1717000000123)" is compared as "(tx: <ms>)"
(and {"transacted":N} as {"transacted":<ms>}); queries use :order-by, so
rows are compared in order. Prints one line per check and "N passed, N
failed"; exits non-zero on failure.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

SHELL = sys.argv[1]
results = {"passed": 0, "failed": 0}

DATA = (
    '(transact [[:alice :person/name "Alice"] [:alice :person/age 30] [:alice :score 95.0]\n'
    ' [:bob :person/name "Bob \\"B\\", tab\\there"] [:bob :person/age 25] [:bob :score nil]])\n'
)
PEOPLE = "(query [:find ?n ?a ?s :where [?e :person/name ?n] [?e :person/age ?a] [?e :score ?s] :order-by [?a]])\n"


def mask(text):
    text = re.sub(r"\(tx: \d+\)", "(tx: <ms>)", text)
    text = re.sub(r'\{"(transacted|retracted)":\d+\}', r'{"\1":<ms>}', text)
    return re.sub(r"Run Time: real [0-9.]+ user [0-9.]+ sys [0-9.]+", "Run Time: <t>", text)


def run(args, script="", env=None):
    return subprocess.run(
        [SHELL] + args,
        input=script.encode("utf-8"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        timeout=60,
    )


def check(name, proc, stdout=None, stderr="", status=0, contains=None):
    problems = []
    out = mask(proc.stdout.decode("utf-8", "replace"))
    err = mask(proc.stderr.decode("utf-8", "replace"))
    if stdout is not None and out != stdout:
        problems.append("stdout:\n--- got\n%s--- want\n%s" % (out, stdout))
    for piece in contains or []:
        if piece not in out:
            problems.append("stdout lacks %r:\n%s" % (piece, out))
    if stderr is not None and err != stderr:
        problems.append("stderr:\n--- got\n%s--- want\n%s" % (err, stderr))
    if status is not None and (status == 0) != (proc.returncode == 0):
        problems.append(
            "exit status %d, want %s" % (proc.returncode, "0" if status == 0 else "non-zero")
        )
    results["failed" if problems else "passed"] += 1
    print("%s %s" % ("FAIL" if problems else "ok  ", name))
    for p in problems:
        print("    " + p.replace("\n", "\n    "))


TX = "\u2713 Transacted successfully (tx: <ms>)\n"

# ---- output modes -------------------------------------------------------------

check(
    "mode_table",
    run(["--mode", "table"], DATA + PEOPLE),
    stdout=TX + "+------------------------+----+-----+\n"
    "| ?n                     | ?a | ?s  |\n"
    "+------------------------+----+-----+\n"
    '| "Bob \\"B\\", tab\\there" | 25 | nil |\n'
    '| "Alice"                | 30 |  95 |\n'
    "+------------------------+----+-----+\n"
    "(2 rows)\n",
)
check(
    "mode_box",
    run([], ".mode box\n" + DATA + PEOPLE),
    stdout=TX + "┌────────────────────────┬────┬─────┐\n"
    "│ ?n                     │ ?a │ ?s  │\n"
    "├────────────────────────┼────┼─────┤\n"
    '│ "Bob \\"B\\", tab\\there" │ 25 │ nil │\n'
    '│ "Alice"                │ 30 │  95 │\n'
    "└────────────────────────┴────┴─────┘\n"
    "(2 rows)\n",
)
check(
    "mode_csv_rfc4180",
    run(["--mode", "csv"], DATA + PEOPLE),
    stdout=TX + '?n,?a,?s\r\n"Bob ""B"", tab\there",25,\r\nAlice,30,95.0\r\n',
)
check(
    "mode_tsv_escapes",
    run(["--mode", "tsv"], DATA + PEOPLE),
    stdout=TX + '?n\t?a\t?s\nBob "B", tab\\there\t25\t\nAlice\t30\t95.0\n',
)
check(
    "mode_json",
    run(["--json"], DATA + PEOPLE),
    stdout='{"transacted":<ms>}\n'
    '[{"?n":"Bob \\"B\\", tab\\there","?a":25,"?s":null},\n{"?n":"Alice","?a":30,"?s":95.0}]\n',
)
check(
    "mode_jsonl",
    run(["--mode", "jsonl"], DATA + PEOPLE),
    stdout='{"transacted":<ms>}\n'
    '{"?n":"Bob \\"B\\", tab\\there","?a":25,"?s":null}\n{"?n":"Alice","?a":30,"?s":95.0}\n',
)
check(
    "mode_line",
    run(["--mode", "line"], DATA + PEOPLE),
    stdout=TX
    + '?n = "Bob \\"B\\", tab\\there"\n?a = 25\n?s = nil\n\n?n = "Alice"\n?a = 30\n?s = 95\n',
)
check(
    "mode_edn",
    run(["--mode", "edn"], DATA + PEOPLE),
    stdout=TX + '[{?n "Bob \\"B\\", tab\\there", ?a 25, ?s nil}\n {?n "Alice", ?a 30, ?s 95.0}]\n',
)
check(
    "mode_reference_is_the_script_default",
    run([], DATA + PEOPLE),
    stdout=TX
    + "?n\t?a\t?s\n"
    + "-" * 60
    + '\n"Bob "B", tab\there"\t25\tnil\n"Alice"\t30\t95\n\n2 result(s) found.\n',
)

TYPES = (
    '(transact [[:v :k :kw] [:v :s ":kw"] [:v :r #uuid "550e8400-e29b-41d4-a716-446655440000"]'
    ' [:v :t "550e8400-e29b-41d4-a716-446655440000"]])\n'
    "(query [:find ?a ?x :where [:v ?a ?x] :order-by [?a]])\n"
)
check(
    "json_typed_keeps_keyword_string_ref",
    run(["--json", "--typed"], TYPES),
    stdout='{"transacted":<ms>}\n'
    '[{"?a":{"type":"keyword","value":":k"},"?x":{"type":"keyword","value":":kw"}},\n'
    '{"?a":{"type":"keyword","value":":r"},"?x":{"type":"ref","value":"550e8400-e29b-41d4-a716-446655440000"}},\n'
    '{"?a":{"type":"keyword","value":":s"},"?x":{"type":"string","value":":kw"}},\n'
    '{"?a":{"type":"keyword","value":":t"},"?x":{"type":"string","value":"550e8400-e29b-41d4-a716-446655440000"}}]\n',
)
check(
    "mode_edn_values",
    run(["--mode", "edn"], TYPES),
    stdout=TX + '[{?a :k, ?x :kw}\n {?a :r, ?x #uuid "550e8400-e29b-41d4-a716-446655440000"}\n'
    ' {?a :s, ?x ":kw"}\n {?a :t, ?x "550e8400-e29b-41d4-a716-446655440000"}]\n',
)
check(
    "empty_answers_per_mode",
    run(
        [],
        ".mode json\n(query [:find ?x :where [?x :nothing _]])\n"
        ".mode edn\n(query [:find ?x :where [?x :nothing _]])\n.mode csv\n(query [:find ?x :where [?x :nothing _]])\n"
        ".mode table\n(query [:find ?x :where [?x :nothing _]])\n",
    ),
    stdout="[]\n[]\n?x\r\n+----+\n| ?x |\n+----+\n+----+\n(0 rows)\n",
)
check(
    "headers_off_nullvalue_width",
    run(
        ["--mode", "table"],
        DATA + ".headers off\n.nullvalue NULL\n.width 10 3\n" + PEOPLE + ".mode csv\n" + PEOPLE,
    ),
    stdout=TX + "+------------------------+-----+------+\n"
    '| "Bob \\"B\\", tab\\there" |  25 | NULL |\n'
    '| "Alice"                |  30 |   95 |\n'
    "+------------------------+-----+------+\n(2 rows)\n"
    '"Bob ""B"", tab\there",25,NULL\r\nAlice,30,95.0\r\n',
)
check(
    "mode_without_argument_prints_it",
    run([], ".mode\n.mode jsonl --typed\n.mode\n"),
    stdout="current output mode: reference\ncurrent output mode: jsonl --typed\n",
)
check(
    "bad_mode_is_an_error",
    run([], ".mode fancy\n"),
    stdout="",
    status=1,
    stderr="Error: usage: .mode reference|table|box|csv|tsv|json|jsonl|line|edn (json, jsonl: [--typed])\n",
)

# A table longer than one screenful: widths fixed on the first 50 rows,
# the rest printed at those widths (a wider value widens only its line).
many = (
    "(transact [" + " ".join("[:e%d :n %d]" % (i, i) for i in range(120)) + " [:z :n 1234567]])\n"
)
got = run(["--mode", "table"], many + "(query [:find ?n :where [_ :n ?n] :order-by [?n]])\n")
lines = got.stdout.decode().split("\n")
ok = (
    lines[2] == "| ?n |"
    and lines[4] == "|  0 |"
    and "| 119 |" in lines
    and "| 1234567 |" in lines
    and lines[-2] == "(121 rows)"
)
check(
    "table_streams_past_a_screenful",
    got,
    stdout=None,
    stderr="",
    contains=[] if ok else ["<layout>"],
)

# ---- the comment rule -------------------------------------------------------------

check(
    "hash_and_semicolon_lines_inside_strings_are_data",
    run(
        ["--json"],
        '(transact [[:a :note "line1\n# two\n; three\n  indented\n\nEXIT\nlast  "]])\n'
        "(query [:find ?n :where [:a :note ?n]])\n",
    ),
    stdout='{"transacted":<ms>}\n[{"?n":"line1\\n# two\\n; three\\n  indented\\n\\nEXIT\\nlast  "}]\n',
)
check(
    "uuid_line_inside_a_command_is_data",
    run(
        ["--json"],
        '(transact [[:a :r\n#uuid "550e8400-e29b-41d4-a716-446655440000"]])\n'
        "(query [:find ?r :where [:a :r ?r]])\n",
    ),
    stdout='{"transacted":<ms>}\n[{"?r":"550e8400-e29b-41d4-a716-446655440000"}]\n',
)
check(
    "comment_lines_between_clauses_and_commands",
    run(
        ["--json"],
        "# top comment\n; another\n(transact [[:a :n 1]\n# between clauses\n;; and here\n  [:a :m 2]])\n"
        "#uuid at the start of a command is a comment\n(query [:find ?n ?m :where [:a :n ?n] [:a :m ?m]])\n",
    ),
    stdout='{"transacted":<ms>}\n[{"?n":1,"?m":2}]\n',
)
check(
    "dot_line_inside_a_command_is_data",
    run(["--json"], '(transact [[:a :s\n".mode csv"]])\n(query [:find ?s :where [:a :s ?s]])\n'),
    stdout='{"transacted":<ms>}\n[{"?s":".mode csv"}]\n',
)

# ---- dot-commands -------------------------------------------------------------------

COMMANDS = (
    ".attributes .bail .changes .checkpoint .exit .explain .export .headers .help .import "
    ".mode .nullvalue .open .param .quit .read .rules .show .stats .timer .width"
).split()
check(
    "help_lists_every_command",
    run([], ".help\n"),
    stdout=None,
    contains=["Line editing"] + ["\n%s " % c for c in COMMANDS[1:]],
)
check(
    "unknown_dot_command_consumes_nothing_else",
    run([], ".frobnicate now\n(transact [[:a :n 1]])\n"),
    stdout=TX,
    status=1,
    stderr="Error: unknown command '.frobnicate' (.help lists the commands)\n",
)
check("quit_and_exit_stop", run([], ".quit\n(transact [[:a :n 1]])\n"), stdout="")
check("exit_stops", run([], ".exit\n(transact [[:a :n 1]])\n"), stdout="")
check(
    "changes_counts_transactions",
    run([], ".changes\n(transact [[:a :n 1]])\n(retract [[:a :n 1]])\n.changes\n"),
    stdout="transactions: 0\n" + TX + "\u2713 Retracted successfully (tx: <ms>)\ntransactions: 2\n",
)
check(
    "timer_prints_run_time",
    run([], ".timer on\n(transact [[:a :n 1]])\n.timer off\n(transact [[:a :n 2]])\n"),
    stdout=TX + "Run Time: <t>\n" + TX,
)
check(
    "attributes_with_fact_counts",
    run(["--mode", "csv"], DATA + ".attributes\n"),
    stdout=TX + "attribute,facts\r\n:person/age,2\r\n:person/name,2\r\n:score,2\r\n",
)
check(
    "rules_lists_registered_rules",
    run(
        [],
        ".rules\n(rule [(reach ?a ?b) [?a :edge ?b]])\n(rule [(reach ?a ?b) [?a :edge ?c] (reach ?c ?b)])\n.rules\n",
    ),
    stdout="(no rules registered)\n\u2713 OK\n\u2713 OK\n(rule [(reach ?a ?b) [?a :edge ?b]])\n"
    "(rule [(reach ?a ?b) [?a :edge ?c] (reach ?c ?b)])\n",
)
check(
    "explain_shows_order_join_index_estimate",
    run(
        ["--mode", "csv"],
        DATA + '.explain (query [:find ?a :where [?e :person/age ?a] [?e :person/name "Alice"]])\n',
    ),
    stdout=TX + "step,kind,clause,join,index,estimated rows\r\n"
    '1,pattern,"[?e :person/name ""Alice""]",nested-loop,AVET,1\r\n'
    "2,pattern,[?e :person/age ?a],nested-loop,AEVT,2\r\n",
)
check(
    "explain_of_a_bad_query_is_an_error",
    run([], ".explain (query [:find ?a])\n.explain\n"),
    stdout="",
    status=1,
    stderr=None,
)
stats = run(["--json"], DATA + ".stats\n")
try:
    figures = json.loads(stats.stdout.decode().split("\n")[1])
    stats_ok = figures["facts"] == 6 and figures["tx_count"] == 1 and figures["in_memory"] is True
except (ValueError, KeyError, IndexError):
    stats_ok = False
check("stats_reports_figures", stats, stdout=None, contains=[] if stats_ok else ["<stats>"])
check(
    "stats_in_table_mode",
    run(["--mode", "table"], ".stats\n"),
    stdout=None,
    contains=["| cache_hit_rate ", "| wal_size ", "| pages "],
)
check(
    "param_set_list_clear",
    run(
        [],
        '.param set $min 26\n.param set name "Bob"\n.param set min 27\n.param list\n'
        ".param clear name\n.param list\n.param clear\n.param list\n",
    ),
    stdout='$min 27\n$name "Bob"\n$min 27\n',
)
check(
    "query_with_slots_runs_prepared",
    run(
        ["--mode", "csv"],
        DATA + ".param set min 26\n"
        "(query [:find ?n :where [?e :person/age ?a] [(> ?a $min)] [?e :person/name ?n]])\n"
        ".param set t 0\n(query [:find ?n :as-of $t :where [?e :person/name ?n]])\n",
    ),
    stdout=TX + "?n\r\nAlice\r\n?n\r\n",
    stderr=None,
)
check(
    "uuid_param_binds_an_entity_or_a_ref_value",
    run(
        ["--mode", "csv"],
        DATA + "(transact [[:bob :likes :alice]])\n"
        '.param set who #uuid "e340ebba-e050-5d3b-8c2e-5388ce184a79"\n'
        "(query [:find ?n :where [$who :person/name ?n]])\n"
        "(query [:find ?a :where [?f :likes $who] [?f :person/age ?a]])\n",
    ),
    stdout=TX + TX + "?n\r\nAlice\r\n?a\r\n25\r\n",
    stderr=None,
)
check(
    "query_with_a_missing_slot_value_is_api_015",
    run([], ".param set min 26\n(query [:find ?e :where [?e :person/age ?a] [(> ?a $max)]])\n"),
    stdout="",
    status=1,
    stderr="Error: [API-015] missing bind value for slot '$max'\n",
)
check(
    "bad_param_usage",
    run([], ".param set\n.param frob\n.param clear nope\n"),
    stdout="",
    status=1,
    stderr='Error: usage: .param set NAME VALUE (VALUE an EDN literal: "text" 42 :kw #uuid "...")\n'
    "Error: usage: .param set NAME VALUE | .param list | .param clear [NAME]\nError: no parameter $nope\n",
)
check(
    "bail_on_stops_at_the_first_error",
    run([], ".bail on\n(frobnicate [])\n(transact [[:a :n 1]])\n"),
    stdout="",
    status=1,
    stderr="Error: [PRS-011] Unknown command: frobnicate\n",
)
check(
    "bail_flag",
    run(["--bail"], "(frobnicate [])\n(transact [[:a :n 1]])\n"),
    stdout="",
    status=1,
    stderr="Error: [PRS-011] Unknown command: frobnicate\n",
)
check(
    "incomplete_command_at_end_is_an_error",
    run([], "(transact [[:a :n 1]]\n"),
    stdout="",
    status=1,
    stderr="Error: incomplete command at end of input: (transact [[:a :n 1]]\n",
)

with tempfile.TemporaryDirectory() as tmp:
    db = os.path.join(tmp, "a.graph")
    copy = os.path.join(tmp, "copy.graph")
    dump = os.path.join(tmp, "a.jsonl")
    rebuilt = os.path.join(tmp, "rebuilt.graph")
    script = os.path.join(tmp, "s.edn")
    with open(script, "w") as f:
        f.write("(transact [[:x :n 7]])\n.changes\n")
    history = (
        "(transact [[:bob :age 25]])\n(retract [[:bob :age 25]])\n(transact [[:bob :age 26]])\n"
        "(transact [])\n"
    )
    asof = "(query [:find ?a :as-of 1 :where [:bob :age ?a]])\n(query [:find ?a :where [:bob :age ?a]])\n"
    check(
        "open_read_checkpoint",
        run([], ".open %s\n.read %s\n.checkpoint\n.show\n" % (db, script)),
        stdout=None,
        contains=[TX, "transactions: 1\n", "database: %s\n" % db],
    )
    check(
        "open_readonly_refuses_writes",
        run(
            [],
            ".open --readonly %s\n(transact [[:x :n 8]])\n"
            "(query [:find ?n :where [:x :n ?n]])\n" % db,
        ),
        stdout="?n\n--------------------\n7\n\n1 result(s) found.\n",
        status=1,
        stderr=None,
    )
    check(
        "readonly_flag",
        run(["--readonly", db], "(transact [[:x :n 8]])\n"),
        stdout="",
        status=1,
        stderr=None,
    )
    check(
        "open_missing_directory_keeps_the_database",
        run(
            [],
            "(transact [[:x :n 1]])\n.open /nonexistent/dir/x.graph\n(query [:find ?n :where [:x :n ?n]])\n",
        ),
        stdout=TX + "?n\n--------------------\n1\n\n1 result(s) found.\n",
        status=1,
        stderr=None,
    )
    check(
        "export_copies_history",
        run([], history + ".export %s\n.export --jsonl %s\n" % (copy, dump)),
        stdout=TX + "\u2713 Retracted successfully (tx: <ms>)\n" + TX + TX,
    )
    check(
        "exported_copy_answers_as_of",
        run([copy], asof + ".changes\n"),
        stdout="?a\n--------------------\n25\n\n1 result(s) found.\n"
        "?a\n--------------------\n26\n\n1 result(s) found.\ntransactions: 4\n",
    )
    with open(dump) as f:
        dump_lines = f.read().split("\n")
    check(
        "export_jsonl_one_record_a_line",
        run([], ""),
        stdout="",
        contains=[] if len(dump_lines) == 5 and dump_lines[-2] == '{"tx_count":4}' else ["<dump>"],
    )
    check(
        "import_builds_and_opens",
        run([], ".import %s %s\n%s.changes\n" % (dump, rebuilt, asof)),
        stdout="?a\n--------------------\n25\n\n1 result(s) found.\n"
        "?a\n--------------------\n26\n\n1 result(s) found.\ntransactions: 4\n",
    )
    check(
        "export_to_an_existing_file_fails",
        run([], ".export %s\n.export --jsonl %s\n" % (copy, dump)),
        stdout="",
        status=1,
        stderr=None,
    )
    check(
        "import_bad_records_fails",
        run([], ".import %s %s\n" % (script, os.path.join(tmp, "bad.graph"))),
        stdout="",
        status=1,
        stderr=None,
    )
    check(
        "f_script_and_c_in_order",
        run(["-f", script, "-c", ".changes"], "ignored\n"),
        stdout=TX + "transactions: 1\ntransactions: 1\n",
    )

# ---- the command line ---------------------------------------------------------------

with tempfile.TemporaryDirectory() as tmp:
    check(
        "commands_after_the_file",
        run([os.path.join(tmp, "c.graph"), "(transact [[:a :n 1]])", ".changes"]),
        stdout=TX + "transactions: 1\n",
    )
check(
    "an_empty_path_is_refused",
    run(["", ".changes"]),
    stdout="",
    status=1,
    stderr="Error: cannot open : [API-017] path must not be empty (an in-memory database is "
    "minigraf_open_in_memory)\n",
)
check(
    "c_runs_commands_then_exits",
    run(
        ["-c", "(transact [[:a :n 1]])", "-c", "(query [:find ?n :where [:a :n ?n]])"],
        "(transact [[:b :n 2]])\n",
    ),
    stdout=TX + "?n\n--------------------\n1\n\n1 result(s) found.\n",
)
check(
    "c_failure_sets_the_status",
    run(["-c", "(query [:find ?n :where [:a :n ?n]"]),
    stdout="",
    status=1,
    stderr="Error: incomplete command at end of input: (query [:find ?n :where [:a :n ?n]\n",
)
check(
    "errors_carry_their_code",
    run([], "(query [:find ?x :where [?x :a]])\n"),
    stdout="",
    status=1,
    stderr="Error: [PRS-077] Pattern must have exactly 3 elements (E A V), got 2 (at line 1, column 25)\n",
)
check("version", run(["--version"]), stdout=None, contains=["minigraf ", "line editing: "])
check(
    "help",
    run(["--help"]),
    stdout=None,
    contains=["-c CMD", "--mode MODE", "--bail", "--readonly", "--json"],
)
check("bad_mode_flag", run(["--mode", "nope"]), stdout="", status=1, stderr=None)

print("%d passed, %d failed" % (results["passed"], results["failed"]))
sys.exit(1 if results["failed"] else 0)
