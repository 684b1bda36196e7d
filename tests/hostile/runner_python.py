"""Runs the hostile-input catalogue (tests/hostile/README.md) against the
Python package, through its basic API only: minigraf.open /
open_in_memory, Database.execute, Database.query and Database.close.

    python3 tests/hostile/runner_python.py tests/hostile/cases [case.json ...]

Cases that need more (prepared binds, checkpoint, a NULL handle) or text
a Python str cannot carry (bytes that are not UTF-8) are reported as
"skip NAME (reason)", never as passes. Exits non-zero on any failure."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
from typing import Any, List, Optional

import minigraf

PAGE = 4096
PROBE = "(query [:find ?e :where [?e :hostile/probe _]])"
OPEN_OPTIONS = ("read_only", "max_derived_facts", "max_results")


class Skip(Exception):
    """The case needs something this runner does not do."""


def text_of(value: Any) -> bytes:
    if isinstance(value, str):
        return value.encode()
    parts = value.get("concat") if isinstance(value, dict) else None
    pieces = parts if parts is not None else [value]
    out = bytearray()
    for p in pieces:
        if isinstance(p, str):
            out += p.encode()
        elif "repeat" in p:
            out += p["repeat"].encode() * p["times"]
        elif "hex" in p:
            out += bytes.fromhex(p["hex"])
        else:
            raise ValueError("bad text piece %r" % (p,))
    return bytes(out)


def as_str(value: Any) -> str:
    raw = text_of(value)
    try:
        return raw.decode()
    except UnicodeDecodeError:
        raise Skip("text that is not UTF-8 is not a Python str")


def matches(expect: Any, code: Optional[str]) -> bool:
    if isinstance(expect, dict):
        expect = expect.get("python", expect.get("default"))
    if expect is None:
        expect = "ok"
    alternatives = expect if isinstance(expect, list) else [expect]
    for e in alternatives:
        if e == "ok" and code is None:
            return True
        if code is not None and (e == code or (e.endswith("-*") and code.startswith(e[:4]))):
            return True
    return False


class Case:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.name = spec.get("name", "?")
        self.spec = spec
        self.dir = tempfile.mkdtemp(prefix="minigraf-hostile-py-")
        self.path = os.path.join(self.dir, "db.graph")
        self.target: Optional[str] = None
        self.db: Optional[minigraf.Database] = None
        self.read_only = False
        self.acked = 0
        self.failures: List[str] = []

    def fail(self, step: str, message: str) -> None:
        self.failures.append("%s: %s" % (step, message))

    def outcome(self, step: str, spec: dict[str, Any], error: Optional[minigraf.Error]) -> None:
        code = error.code if error is not None else None
        if error is not None and not str(error).startswith("[%s] " % code):
            self.fail(step, "message without its code: %s" % error)
        if not matches(spec.get("expect"), code):
            self.fail(step, "got %s (%s)" % (code or "ok", error or ""))

    # ---- opening
    def target_path(self, target: str) -> Optional[str]:
        if target == "memory":
            return None
        if target == "readonly_dir":
            ro = os.path.join(self.dir, "ro")
            os.makedirs(ro, exist_ok=True)
            os.chmod(ro, 0o555)
            return os.path.join(ro, "db.graph")
        paths = {
            "file": self.path,
            "directory": self.dir,
            "dev_null": "/dev/null",
            "missing_dir": os.path.join(self.dir, "missing", "db.graph"),
            "other": os.path.join(self.dir, "other.graph"),
        }
        return paths[target]

    def close(self) -> None:
        if self.db is not None and not self.db.closed:
            self.db.close()

    def open(self, spec: dict[str, Any], target: str) -> None:
        self.close()
        options = spec.get("options", {})
        if any(k not in OPEN_OPTIONS for k in options):
            raise Skip("open options beyond minigraf.open's")
        path = self.target_path(target)
        self.target = path
        try:
            db = minigraf.open_in_memory() if path is None else minigraf.open(path, **options)
        except minigraf.Error as e:
            self.outcome("open", spec, e)
            return
        self.outcome("open", spec, None)
        self.db = db
        self.read_only = bool(options.get("read_only"))

    # ---- commands
    def execute(self, spec: dict[str, Any]) -> None:
        if spec.get("handle") == "null":
            raise Skip("a NULL handle")
        try:
            self.db.execute(as_str(spec["execute"]))
        except minigraf.Error as e:
            self.outcome("execute", spec, e)
            return
        self.outcome("execute", spec, None)

    def count_rows(self, query: str) -> int:
        with self.db.query(query) as rows:
            return sum(1 for _ in rows)

    def count(self, spec: dict[str, Any]) -> None:
        try:
            got = self.count_rows(spec["count"])
        except minigraf.Error as e:
            self.fail("count", str(e))
            return
        if got != spec["rows"]:
            self.fail("count", "%s: %d rows, want %d" % (spec["count"], got, spec["rows"]))

    def transact_until_error(self, spec: dict[str, Any]) -> None:
        template = spec["transact_until_error"]
        for _ in range(spec.get("max", 1000)):
            try:
                self.db.execute(template.replace("{n}", str(self.acked)))
            except minigraf.Error as e:
                self.outcome("transact_until_error", spec, e)
                return
            self.acked += 1
        self.outcome("transact_until_error", spec, None)

    def check_acked(self, spec: dict[str, Any]) -> None:
        results = self.db.execute(spec["acked"])["results"]
        got = results[0][0] if results else 0
        if got != self.acked:
            self.fail("acked", "%s acknowledged, %s found" % (self.acked, got))

    # ---- files and processes
    def damage(self, spec: dict[str, Any], path: Optional[str] = None) -> None:
        if path is None:
            path = self.path + ".wal" if spec.get("file") == "wal" else self.path
        size = os.path.getsize(path)
        offset = spec.get("offset", 0)
        if offset < 0:
            offset += size
        how = spec["damage"]
        if how == "truncate":
            os.truncate(path, offset)
            return
        with open(path, "r+b") as f:
            f.seek(offset)
            if how == "zero":
                f.write(bytes(spec.get("length", size - offset)))
            elif how == "flip" and offset < size:
                byte = f.read(1)[0] ^ (1 << (spec.get("bit", 0) & 7))
                f.seek(offset)
                f.write(bytes([byte]))

    def copy(self, source: str, target: str) -> None:
        if os.path.exists(source):
            shutil.copyfile(source, target)
        elif os.path.exists(target):
            os.unlink(target)

    def each_page(self, spec: dict[str, Any]) -> None:
        self.close()
        keep, wal = os.path.join(self.dir, "pristine"), self.path + ".wal"
        self.copy(self.path, keep)
        self.copy(wal, keep + ".wal")
        how = spec["each_page"]
        for page in range(os.path.getsize(keep) // PAGE):
            if self.failures:
                break
            self.copy(keep, self.path)
            self.copy(keep + ".wal", wal)
            self.damage(dict(how, offset=page * PAGE + how.get("offset", 0)), self.path)
            self.run_steps(spec["steps"])
            self.close()
        self.copy(keep, self.path)
        self.copy(keep + ".wal", wal)

    def child(self, spec: dict[str, Any], crash: bool) -> None:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            status = 1
            try:
                limit = spec.get("file_size_limit")
                if limit is not None:
                    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
                self.db, self.failures, self.acked = None, [], 0
                self.run_steps(spec["crash" if crash else "child"])
                if not crash:
                    self.close()
                for f in self.failures:
                    print("  %s (child): %s" % (self.name, f), file=sys.stderr)
                os.write(write, str(self.acked).encode())
                status = 1 if self.failures else 0
            except Skip as reason:
                os.write(write, ("skip:%s" % reason).encode())
                status = 0
            finally:
                os._exit(status)
        os.close(write)
        data = os.read(read, 64)
        os.close(read)
        _, status = os.waitpid(pid, 0)
        if data.startswith(b"skip:"):
            raise Skip(data[5:].decode())
        self.acked += int(data or b"0")
        if status != 0:
            self.fail("child", "the child process failed (status %d)" % status)

    def close_during(self, spec: dict[str, Any]) -> None:
        """Another thread closes the database while this one repeats a call
        on it, until the call fails (API-013 interrupted, API-018 closed)."""
        call, text = spec["close_during"], spec.get("text", "")
        if call == "checkpoint":
            raise Skip("needs checkpoint, beyond the basic API")
        db = self.db
        closer = threading.Timer(spec.get("after_ms", 0) / 1000, db.close)
        closer.start()
        try:
            if call == "close":
                db.close()
                return
            start = time.monotonic()
            while time.monotonic() - start < 30:
                try:
                    if call == "fetch":
                        with db.query(text) as rows:
                            for _ in rows:
                                pass
                    else:
                        db.execute(text.replace("{n}", str(self.acked)))
                        self.acked += call == "transact"
                except minigraf.Error as e:
                    self.outcome("close_during", spec, e)
                    return
            self.fail("close_during", "the calls never failed: the close did not stop them")
        finally:
            closer.join()

    def foreign_wal(self) -> None:
        other = os.path.join(self.dir, "foreign.graph")
        pid = os.fork()
        if pid == 0:
            db = minigraf.open(other)
            db.execute("(transact [[:foreign :x/y 1]])")
            os._exit(0)
        os.waitpid(pid, 0)
        shutil.copyfile(other + ".wal", self.path + ".wal")

    # ---- the driver
    def run_step(self, spec: dict[str, Any]) -> None:
        if "open" in spec:
            self.open(spec, spec["open"])
        elif "reopen" in spec:
            self.open(spec, "memory" if self.target is None else "file")
        elif "close" in spec:
            self.close()
        elif "execute" in spec:
            self.execute(spec)
        elif "count" in spec:
            self.count(spec)
        elif "transact_until_error" in spec:
            self.transact_until_error(spec)
        elif "acked" in spec:
            self.check_acked(spec)
        elif "damage" in spec:
            self.damage(spec)
        elif "each_page" in spec:
            self.each_page(spec)
        elif "delete_wal" in spec:
            if os.path.exists(self.path + ".wal"):
                os.unlink(self.path + ".wal")
        elif "foreign_wal" in spec:
            self.foreign_wal()
        elif "crash" in spec or "child" in spec:
            self.child(spec, "crash" in spec)
        elif "close_during" in spec:
            self.close_during(spec)
        elif "prepare" in spec or "checkpoint" in spec:
            raise Skip(
                "needs %s, beyond the basic API"
                % ("prepare" if "prepare" in spec else "checkpoint")
            )
        else:
            self.fail("?", "unknown step %r" % (spec,))

    def run_steps(self, steps: List[dict[str, Any]]) -> None:
        for spec in steps:
            self.run_step(spec)

    def probe(self) -> None:
        if self.db is None or self.db.closed:
            return
        try:
            before = self.count_rows(PROBE)
            if self.read_only:
                return
            self.db.execute("(transact [[:hostile-probe :hostile/probe 1]])")
            if self.count_rows(PROBE) != 1 or before != 0:
                self.fail("probe", "the probe fact is missing")
        except minigraf.Error as e:
            self.fail("probe", str(e))

    def run(self) -> None:
        try:
            self.run_steps(self.spec["steps"])
            if self.spec.get("usable", True):
                self.probe()
        finally:
            self.close()


def as_nobody(case: Case) -> None:
    """Permission cases mean nothing to root: run them as nobody."""
    os.chmod(case.dir, 0o777)
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            os.setgid(65534)
            os.setuid(65534)
            case.run()
            for f in case.failures:
                print("  %s: %s" % (case.name, f), file=sys.stderr)
            status = 1 if case.failures else 0
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        case.fail("-", "unprivileged run failed")


def remove(path: str) -> None:
    for root, dirs, _ in os.walk(path):
        for d in dirs:
            os.chmod(os.path.join(root, d), stat.S_IRWXU)
    shutil.rmtree(path, ignore_errors=True)


def run_case(file: str) -> str:
    with open(file) as f:
        spec = json.load(f)
    name = spec.get("name", file)
    if "runners" in spec and "python" not in spec["runners"]:
        return "skip"
    case = Case(spec)
    try:
        if spec.get("unprivileged") and os.geteuid() == 0:
            as_nobody(case)
        else:
            case.run()
    except Skip as reason:
        print("skip %s (%s)" % (name, reason))
        return "skip"
    finally:
        remove(case.dir)
    for failure in case.failures:
        print("  %s: %s" % (name, failure), file=sys.stderr)
    print("%s %s" % ("FAIL" if case.failures else "ok", name))
    return "fail" if case.failures else "pass"


def main(argv: List[str]) -> int:
    files: List[str] = []
    for arg in argv:
        if os.path.isdir(arg):
            files += sorted(os.path.join(arg, n) for n in os.listdir(arg) if n.endswith(".json"))
        else:
            files.append(arg)
    counts = {"pass": 0, "fail": 0, "skip": 0}
    for file in files:
        counts[run_case(file)] += 1
    print("%d passed, %d failed, %d skipped" % (counts["pass"], counts["fail"], counts["skip"]))
    return 0 if counts["fail"] == 0 and counts["pass"] > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
