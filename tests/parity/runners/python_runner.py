#!/usr/bin/env python3
"""The Python parity runner (tests/parity/README.md).

    python_runner.py <cases_dir> <transcript_out>

Runs every case in <cases_dir>/*.json, in file-name order, through the
public `minigraf` package API only, and writes the canonical transcript:
one line per step, ``<case name>#<step index>\\t<outcome>``. Expectations
are not checked here: that is the harness's job. The runner exits non-zero
only when it cannot run at all.
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import minigraf

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

# ---- the canonical writer ------------------------------------------------------


def canonical(value: Any) -> str:
    """Compact JSON in the README's canonical form; objects keep their order."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return canonical_number(value)
    if isinstance(value, float):
        return canonical_number(value)
    if isinstance(value, str):  # a Keyword too: its text
        return canonical_string(value)
    if isinstance(value, minigraf.Entity):
        return canonical_string(str(value))
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical(item) for item in value) + "]"
    if isinstance(value, dict):
        members = (f"{canonical_string(key)}:{canonical(item)}" for key, item in value.items())
        return "{" + ",".join(members) + "}"
    raise TypeError(f"no canonical form for {type(value).__name__}")


def canonical_string(text: str) -> str:
    """Escapes only ``"``, ``\\`` and code points below U+0020 (as \\u00xx)."""
    out = []
    for char in text:
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif char < " ":
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def canonical_number(number: float) -> str:
    """An integer value that fits int64 in decimal (30 and 30.0 both read
    30); any other finite number as its shortest round-trip digits
    d1.d2...dn and exponent x: ``d1.d2...dne<x>``, or ``d1e<x>`` when n = 1."""
    if isinstance(number, int):
        if INT64_MIN <= number <= INT64_MAX:
            return str(number)
        number = float(number)  # beyond int64 only a double can hold it
    if not math.isfinite(number):
        return "null"  # never produced by the library's JSON
    if number.is_integer() and INT64_MIN <= number <= INT64_MAX:
        return str(int(number))
    # repr() gives the shortest digits that round-trip: "0.001", "1.5e+16".
    sign = "-" if number < 0 else ""
    mantissa, _, exponent = repr(abs(number)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    power = int(exponent or "0") - len(fraction)  # value = int(digits) * 10**power
    stripped = digits.rstrip("0")
    power += len(digits) - len(stripped)
    x = power + len(stripped) - 1
    rest = "." + stripped[1:] if len(stripped) > 1 else ""
    return f"{sign}{stripped[0]}{rest}e{x}"


def canonical_rows(rows: List[Any], ordered: bool) -> str:
    texts = [canonical(row) for row in rows]
    if not ordered:
        texts.sort(key=lambda text: text.encode("utf-8", "surrogatepass"))
    return "[" + ",".join(texts) + "]"


def typed(value: Any) -> Dict[str, Any]:
    """A row value in the typed form of query_typed, from its Python type."""
    if value is None:
        return {"type": "null", "value": None}
    if isinstance(value, bool):
        return {"type": "boolean", "value": value}
    if isinstance(value, int):
        return {"type": "integer", "value": value}
    if isinstance(value, float):
        if math.isnan(value):
            return {"type": "float", "value": "NaN"}
        if math.isinf(value):
            return {"type": "float", "value": "Infinity" if value > 0 else "-Infinity"}
        return {"type": "float", "value": value}
    if isinstance(value, minigraf.Keyword):
        return {"type": "keyword", "value": str(value)}
    if isinstance(value, str):
        return {"type": "string", "value": value}
    if isinstance(value, minigraf.Entity):
        return {"type": "ref", "value": str(value)}
    if isinstance(value, list):
        return {"type": "list", "value": [typed(item) for item in value]}
    raise TypeError(f"a row value of type {type(value).__name__}")


# ---- the five host functions (README.md, "Host functions") -------------------------


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def email(value: Any) -> bool:
    return isinstance(value, str) and not isinstance(value, minigraf.Keyword) and "@" in value


def big(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 100


def fails(value: Any) -> bool:
    raise ValueError("fails? always fails")


def geomean_step(acc: List[float], value: Any) -> List[float]:
    if value is None:
        return acc
    if not is_number(value) or not value > 0:  # NaN fails too
        raise ValueError("geomean: expected a positive number")
    return [acc[0] + math.log(float(value)), acc[1] + 1]


def geomean_finish(acc: List[float]) -> Optional[float]:
    if acc[1] == 0:
        return None
    return math.floor(math.exp(acc[0] / acc[1]) * 1e9 + 0.5) / 1e9


def sum_int_step(acc: int, value: Any) -> int:
    if value is None:
        return acc
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError("sum-int: expected an integer")
    return acc + value


def register_host_functions(db: minigraf.Database) -> None:
    db.register_predicate("email?", email)
    db.register_predicate("big?", big)
    db.register_predicate("fails?", fails)
    db.register_aggregate("geomean", lambda: [0.0, 0], geomean_step, geomean_finish)
    db.register_aggregate("sum-int", lambda: 0, sum_int_step, lambda acc: acc)


# ---- running the steps --------------------------------------------------------------


class CaseError(Exception):
    """A case the runner cannot carry out (reported as its outcome)."""


class Case:
    """One case file: its database and its steps."""

    def __init__(self, spec: Dict[str, Any], workdir: Path) -> None:
        self.name: str = spec["name"]
        self.steps: List[Dict[str, Any]] = spec.get("steps", [])
        self.storage: str = spec.get("storage", "memory")
        self.workdir = workdir
        self.path: Optional[Path] = workdir / "db.graph" if self.storage == "file" else None
        self.db: Optional[minigraf.Database] = None
        self.exports = 0
        self.prepared: Dict[str, minigraf.PreparedQuery] = {}
        self.tx: Optional[minigraf.Transaction] = None

    def open(self) -> minigraf.Database:
        if self.db is None or self.db.closed:
            self.db = minigraf.open(self.path) if self.path else minigraf.open_in_memory()
            register_host_functions(self.db)
        return self.db

    def close(self) -> None:
        if self.db is not None:
            self.db.close()

    def release(self) -> None:
        """Frees the case's statements and transaction, then closes."""
        for prepared in self.prepared.values():
            prepared.close()
        if self.tx is not None:
            self.tx.close()
        self.close()

    def run(self, step: Dict[str, Any]) -> str:
        """The canonical outcome of one step."""
        ordered = bool(step.get("ordered", False))
        try:
            if "execute" in step:
                return self.execute(step["execute"], ordered)
            if "query" in step:
                return self.query(step["query"], step.get("batch", 1000), ordered)
            if "tx_count" in step:
                return canonical({"tx_count": self.open().tx_count})
            if "checkpoint" in step:
                self.open().checkpoint()
                return '{"ok":true}'
            if "reopen" in step:
                if self.path is None:
                    raise CaseError("reopen needs file storage")
                self.close()
                self.open()
                return '{"ok":true}'
            if "fact_log" in step:
                return self.fact_log(step["fact_log"])
            if "export_import" in step:
                return self.export_import()
            if "query_typed" in step:
                return self.query_typed(step["query_typed"], ordered)
            if "query_cancelled" in step:
                return self.query_cancelled(step["query_cancelled"], step.get("every", 1))
            if "prepare" in step:
                return self.prepare(step["prepare"], step.get("as"))
            if "execute_prepared" in step or "query_prepared" in step:
                return self.run_prepared(step, ordered)
            if "clear_bindings" in step:
                self.named(step["clear_bindings"]).clear_bindings()
                return '{"ok":true}'
            if "bind_entity" in step:
                self.named(step["bind_entity"]).bind({step["slot"]: minigraf.Entity(step["uuid"])})
                return '{"ok":true}'
            if "begin_write" in step:
                return self.begin_write()
            if "tx_execute" in step:
                return self.execute_result(self.transaction().execute(step["tx_execute"]), ordered)
            if "tx_query" in step:
                cursor = self.transaction().query(step["tx_query"])
                return drained(cursor, step.get("batch", 1000), ordered)
            if "commit" in step:
                self.transaction().commit()
                return '{"ok":true}'
            if "rollback" in step:
                self.transaction().rollback()
                return '{"ok":true}'
            raise CaseError(f"unknown step kind: {sorted(step)}")
        except minigraf.Error as e:
            return error_outcome(e.code or "", e.message)
        except CaseError as e:
            return error_outcome("RUNNER", str(e))
        except Exception as e:  # noqa: BLE001 - a wrong answer, not a crash
            return error_outcome("PYTHON", f"{type(e).__name__}: {e}")

    def execute(self, text: str, ordered: bool) -> str:
        return self.execute_result(self.open().execute(text), ordered)

    def execute_result(self, result: Dict[str, Any], ordered: bool) -> str:
        if "variables" in result and "results" in result:
            return (
                '{"variables":'
                + canonical(result["variables"])
                + ',"results":'
                + canonical_rows(result["results"], ordered)
                + "}"
            )
        for key in ("transacted", "retracted"):
            if key in result and is_positive_int(result[key]):
                result[key] = "<ms>"
        return canonical(result)

    def query(self, text: str, batch: int, ordered: bool) -> str:
        return drained(self.open().query(text), batch, ordered)

    def query_typed(self, text: str, ordered: bool) -> str:
        with self.open().query(text) as cursor:
            rows = [[typed(value) for value in row] for row in cursor]
            variables = list(cursor.columns)
        return (
            '{"variables":'
            + canonical(variables)
            + ',"rows":'
            + canonical_rows(rows, ordered)
            + "}"
        )

    def query_cancelled(self, text: str, every: int) -> str:
        db = self.open()
        db.set_progress_handler(lambda: True, every)
        try:
            return self.execute(text, False)
        finally:
            db.set_progress_handler(None)

    def prepare(self, text: str, name: Any) -> str:
        prepared = self.open().prepare(text)
        if not isinstance(name, str):
            prepared.close()
            raise CaseError('a prepare step needs a string "as"')
        self.prepared[name] = prepared
        return '{"ok":true}'

    def named(self, name: str) -> minigraf.PreparedQuery:
        if name not in self.prepared:
            raise CaseError("no prepared statement of that name")
        return self.prepared[name]

    def run_prepared(self, step: Dict[str, Any], ordered: bool) -> str:
        cursor_step = "query_prepared" in step
        prepared = self.named(step["query_prepared" if cursor_step else "execute_prepared"])
        if "binds" in step:
            # README: the binds object goes to the library's JSON form as
            # its canonical text (all or nothing, as in C); the typed binds
            # of PreparedQuery.bind are tested by pytest.
            prepared.bind_json(canonical(step["binds"]))
        if cursor_step:
            return drained(prepared.query(), step.get("batch", 1000), ordered)
        return self.execute_result(prepared.execute(), ordered)

    def begin_write(self) -> str:
        tx = self.open().begin_write()
        if self.tx is not None:
            self.tx.close()  # ended already, or the begin would have failed
        self.tx = tx
        return '{"ok":true}'

    def transaction(self) -> minigraf.Transaction:
        if self.tx is None:  # as C's calls on a NULL handle
            raise minigraf.ApiError("[API-017] tx is NULL", "API-017", 5017)
        return self.tx

    def fact_log(self, filter: Optional[Dict[str, Any]]) -> str:
        """The records in the stream's order, read in batches of 2, without
        the wall-clock fields (tx_id, valid_from)."""
        records: List[Any] = []
        with self.open().fact_log(filter) as log:
            while chunk := log.fetch_batch(2):
                records.extend(
                    [
                        r["entity"],
                        r["attribute"],
                        {"type": r["value"]["type"], "value": r["value"]["value"]},
                        r["tx_count"],
                        r["valid_to"],
                        r["asserted"],
                    ]
                    for r in chunk
                )
        return canonical({"records": records})

    def export_import(self) -> str:
        """Copies the database record by record into a new file (fact log in
        "tx" order, appended in batches of 2, the counter advanced to the
        source's, finished), closes the source and continues on the copy."""
        db = self.open()
        self.exports += 1
        target = self.workdir / f"export-{self.exports}.graph"
        with minigraf.LogWriter(target) as writer:  # finishes when the block ends
            with db.fact_log(order="tx") as log:
                while chunk := log.fetch_batch(2):
                    writer.append_batch(chunk)
            writer.advance_tx_count(db.tx_count)
        self.close()
        self.path = target
        self.storage = "file"
        self.open()
        return '{"ok":true}'


def drained(cursor: minigraf.Cursor, batch: int, ordered: bool) -> str:
    """A cursor read in batches (0 counts as 1, as in C) → {"variables", "rows"}."""
    rows: List[Any] = []
    with cursor:
        while chunk := cursor.fetch_batch(max(1, batch)):
            rows.extend(chunk)
        variables = cursor.variables
    return '{"variables":' + canonical(variables) + ',"rows":' + canonical_rows(rows, ordered) + "}"


def is_positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def error_outcome(code: str, message: str) -> str:
    return canonical({"error": {"code": code, "message": message}})


def run_case(path: Path, write: Callable[[str], object]) -> None:
    spec = json.loads(path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="minigraf-parity-") as workdir:
        case = Case(spec, Path(workdir))
        try:
            for index, step in enumerate(case.steps):
                write(f"{case.name}#{index}\t{case.run(step)}\n")
        finally:
            case.release()


def main(argv: List[str]) -> int:
    if len(argv) != 3:
        print(f"usage: {argv[0]} <cases_dir> <transcript_out>", file=sys.stderr)
        return 2
    cases = sorted(Path(argv[1]).glob("*.json"), key=lambda p: p.name)
    with open(argv[2], "w", encoding="utf-8", errors="surrogatepass", newline="\n") as out:
        for path in cases:
            run_case(path, out.write)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
