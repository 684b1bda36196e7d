#!/usr/bin/env bash
# Python through the package against C and against the standard library's
# sqlite3 (issue 14; docs/benchmarks.md, "Python"): each shape in its own
# process (bench_compare_python.py: minigraf through Python, query text and
# prepared; sqlite3 through Python on the same EAV table; the same query
# through C in that process, as the baseline of the binding's overhead),
# then 1 and 4 reader threads on one database, then how fast Ctrl-C and
# db.interrupt() stop a running query. Not run by CI.
#
#   bash bench/bindings/bench_python.sh FIXTURE_DIR [N]     (default N: 1000000)
#
# FIXTURE_DIR must hold envelope-N.graph and eav-N.sqlite: bench_compare
# builds both (build/bench/bench_compare FIXTURE_DIR N -s point_entity);
# this script runs it when eav-N.sqlite is missing. $PYTHON (default
# build/venv/bin/python) must import minigraf.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${MINIGRAF_BUILD_DIR:-$ROOT/build}"
PYTHON="${PYTHON:-$BUILD/venv/bin/python}"
DIR="${1:?usage: bench_python.sh FIXTURE_DIR [N]}"
N="${2:-1000000}"
PY="$ROOT/bench/bindings/bench_compare_python.py"
[ -f "$DIR/eav-$N.sqlite" ] || "$BUILD/bench/bench_compare" "$DIR" "$N" -s point_entity >/dev/null

OUT="$DIR/python-$N.jsonl"
: >"$OUT"
for shape in point_entity attribute_value join_2 join_3_selective recursive_ancestors limit \
             not_probe attribute_scan; do
  "$PYTHON" "$PY" "$DIR" "$N" "$shape" >>"$OUT"
done
"$PYTHON" "$PY" "$DIR" "$N" --threads 1 3 >>"$OUT"
"$PYTHON" "$PY" "$DIR" "$N" --threads 4 3 >>"$OUT"
"$PYTHON" "$PY" "$DIR" "$N" --cancel 10 >>"$OUT"
"$PYTHON" "$PY" --table "$OUT"
