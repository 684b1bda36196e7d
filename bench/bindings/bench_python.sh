#!/usr/bin/env bash
# Python through the package against C and against the standard library's
# sqlite3 (issue 14): for each shape, in its own processes, C's p50
# (bench_bindings_c), minigraf through Python (query text and prepared),
# sqlite3 through Python on the same EAV table; then the per-query overhead
# over C (the point shape), the per-row overhead (the scan), the ratio to
# sqlite3, and 4 reader threads against 1. Not run by CI.
#
#   bash bench/bindings/bench_python.sh FIXTURE_DIR [N]     (default N: 1000000)
#
# Needs build/bench/bench_compare (run once: it builds FIXTURE_DIR's
# envelope-N.graph and eav-N.sqlite), build/bench/bench_bindings_c, and a
# Python that imports minigraf ($PYTHON, default build/venv/bin/python; or
# PYTHONPATH=build/python).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${MINIGRAF_BUILD_DIR:-$ROOT/build}"
PYTHON="${PYTHON:-$BUILD/venv/bin/python}"
DIR="${1:?usage: bench_python.sh FIXTURE_DIR [N]}"
N="${2:-1000000}"
PY="$ROOT/bench/bindings/bench_compare_python.py"
[ -f "$DIR/eav-$N.sqlite" ] || "$BUILD/bench/bench_compare" "$DIR" "$N" -s point_entity >/dev/null

field() { sed -E "s/.*\"$1\": \{[^}]*\"p50_us\": ([0-9.]+).*/\1/" <<<"$2"; }
rows() { sed -E 's/.*"minigraf": \{"rows": ([0-9]+).*/\1/' <<<"$1"; }

printf '%-20s %7s %12s %12s %12s %12s %9s %12s\n' shape rows "C p50" "py p50" "py prep" \
  "sqlite3 py" "py/sqlite" "over C"
for shape in point_entity attribute_value join_2 join_3_selective recursive_ancestors limit \
             not_probe attribute_scan; do
  out="$("$PYTHON" "$PY" "$DIR" "$N" "$shape")"
  query="$(sed -E 's/.*"query": "(.*)"\}.*/\1/; s/\\"/"/g' <<<"$out")"
  if [ "$shape" = recursive_ancestors ]; then
    rulesdb="$DIR/py-rules-$N.graph"
    c="$("$BUILD/bench/bench_bindings_c" "$rulesdb" "$query" \
         "(rule [(boss ?x ?b) [?x :manager ?b]])" "(rule [(boss ?x ?b) [?x :manager ?m] (boss ?m ?b)])")"
  else
    c="$("$BUILD/bench/bench_bindings_c" "$DIR/envelope-$N.graph" "$query")"
  fi
  c50="$(sed -E 's/.*"p50_us": ?([0-9.]+).*/\1/' <<<"$c")"
  m50="$(field minigraf "$out")"; p50="$(field minigraf_prepared "$out")"; s50="$(field sqlite3 "$out")"
  n="$(rows "$out")"
  awk -v s="$shape" -v n="$n" -v c="$c50" -v m="$m50" -v p="$p50" -v q="$s50" 'BEGIN {
    best = (p < m ? p : m); over = best - c
    printf "%-20s %7d %10.2fus %10.2fus %10.2fus %10.2fus %9.2f %+10.2fus", s, n, c, m, p, q, best / q, over
    if (n > 1) printf "  (%.3f us/row)", over / n
    printf "\n" }'
done

one="$("$PYTHON" "$PY" "$DIR" "$N" --threads 1 3)"
four="$("$PYTHON" "$PY" "$DIR" "$N" --threads 4 3)"
q1="$(sed -E 's/.*"qps": ([0-9.]+).*/\1/' <<<"$one")"
q4="$(sed -E 's/.*"qps": ([0-9.]+).*/\1/' <<<"$four")"
awk -v a="$q1" -v b="$q4" -v cpus="$(nproc)" 'BEGIN {
  printf "parallel readers (point_entity + join_3_selective, prepared): 1 thread %.0f q/s, 4 threads %.0f q/s: %.2fx on %d cores\n", a, b, b / a, cpus }'
