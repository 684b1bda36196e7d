#!/usr/bin/env bash
# The bindings' cost per row over C (issue 14), in the same minutes:
# attribute_scan (166,666 rows of an Entity and an integer at 1M) drained
# by C's step loop (bench_rows, "step": its CPU p50), by Python
# (bench_python_rows.py: iterated, and fetchall), by Java
# (BenchRows.java: a Cursor's iterator, and queryAll) and by Node.js
# (bench_node_rows.js: nextBatch(4096) with the rows dropped, a cursor's
# .all(), a prepared query's .all(), and "floor": the same rows made in
# JavaScript alone, what V8 charges any producer to keep them),
# ROUNDS rounds of them in turn. Prints each round's CPU ns per row
# at p50 and each binding's difference to C's in that round; then what
# keeping rows costs CPython (fetchall over iteration, and the same for
# the standard library's sqlite3 reading the same rows) and, as kept rows
# are bimodal under V8's collector, Node's means, and what .all() costs
# over C and the floor together. Not run by CI.
#
#   bash bench/bindings/bench_rows_bindings.sh DIR [ROUNDS [N]]
#
# DIR holds (or gets, built once by bench_rows) envelope-N.graph. Needs
# build/bench/bench_rows (MINIGRAF_BUILD_DIR), a Python that imports
# minigraf ($PYTHON, default $BUILD/venv/bin/python), the jar ($JAR,
# default bindings/java/target) and the Node package
# ($MINIGRAF_NODE_PACKAGE, default $BUILD/node); PYTHON_ROWS=0, JAVA=0 or
# NODE=0 leaves one out.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${MINIGRAF_BUILD_DIR:-$ROOT/build}"
DIR="${1:?usage: bench_rows_bindings.sh DIR [ROUNDS [N]]}"
ROUNDS="${2:-3}"
N="${3:-1000000}"
JAR="${JAR:-$ROOT/bindings/java/target/minigraf-0.2.0.jar}"
NODE_PACKAGE="${MINIGRAF_NODE_PACKAGE:-$BUILD/node}"
PYTHON="${PYTHON:-$BUILD/venv/bin/python}"
FIXTURE="$DIR/envelope-$N.graph"

CLASSES="$(mktemp -d)"
trap 'rm -rf "$CLASSES"' EXIT
if [ "${JAVA:-1}" = 1 ]; then
  javac --release 11 -cp "$JAR" -d "$CLASSES" "$ROOT/bench/bindings/BenchRows.java"
fi

# The p50 field ("CPU ns/row p50 X") of the line of $1 that matches $2.
p50() { grep -- "$2" <<<"$1" | sed -E 's/.*CPU ns\/row p50 ([0-9.]+).*/\1/'; }
# Its mean field ("mean X").
mean() { grep -- "$2" <<<"$1" | sed -E 's/.* mean ([0-9.]+).*/\1/'; }
python_rows() { "$PYTHON" "$ROOT/bench/bindings/bench_python_rows.py" "$FIXTURE" "$1"; }
node_rows() { MINIGRAF_NODE_PACKAGE="$NODE_PACKAGE" node "$ROOT/bench/bindings/bench_node_rows.js" "$FIXTURE" "$1"; }

HEADS=(py-iter py-all java-iter java-all node-strm node-all node-prep node-floor)
printf '%-6s %-6s %8s' round load C
printf ' %10s' "${HEADS[@]}"
echo
for round in $(seq 1 "$ROUNDS"); do
  load="$(cut -d' ' -f1 /proc/loadavg)"
  c="$("$BUILD/bench/bench_rows" "$DIR" "$N" | awk '$1 == "step" { print $6 }')"
  pi=- pa=- ji=- ja=- ns=- na=- np=- nf=-
  if [ "${PYTHON_ROWS:-1}" = 1 ]; then
    pi="$(p50 "$(python_rows iter)" iter)" pa="$(p50 "$(python_rows all)" all)"
    si="$(p50 "$(python_rows sqlite-iter)" sqlite-iter)"
    sa="$(p50 "$(python_rows sqlite-all)" sqlite-all)"
  fi
  if [ "${JAVA:-1}" = 1 ]; then
    out="$(java -cp "$JAR:$CLASSES" BenchRows "$FIXTURE")"
    ji="$(p50 "$out" iterator)"
    ja="$(p50 "$out" queryAll)"
  fi
  if [ "${NODE:-1}" = 1 ]; then
    ns="$(p50 "$(node_rows stream)" stream)"
    out_all="$(node_rows all)" out_prep="$(node_rows prepared)" out_floor="$(node_rows floor)"
    na="$(p50 "$out_all" all)" np="$(p50 "$out_prep" prepared)" nf="$(p50 "$out_floor" floor)"
  fi
  values=("$pi" "$pa" "$ji" "$ja" "$ns" "$na" "$np" "$nf")
  printf '%-6s %-6s %8s' "$round" "$load" "$c"
  printf ' %10s' "${values[@]}"
  echo
  printf '%-6s %-6s %8s' "" "" "over C:"
  for v in "${values[@]}"; do
    if [ "$v" = - ]; then printf ' %10s' -; else awk -v v="$v" -v c="$c" 'BEGIN { printf " %+10.1f", v - c }'; fi
  done
  echo
  if [ "${PYTHON_ROWS:-1}" = 1 ]; then
    awk -v i="$pi" -v a="$pa" -v si="$si" -v sa="$sa" 'BEGIN {
        printf "%-15s python: fetchall over iteration %+.1f; sqlite3 %+.1f (%.1f, %.1f)\n",
          "", a - i, sa - si, si, sa }'
  fi
  if [ "${NODE:-1}" = 1 ]; then
    awk -v c="$c" -v a="$(mean "$out_all" all)" -v p="$(mean "$out_prep" prepared)" \
      -v f="$(mean "$out_floor" floor)" 'BEGIN {
        printf "%-15s node means: all %.1f, prepared %.1f, floor %.1f; over C and the floor: all %+.1f, prepared %+.1f\n",
          "", a, p, f, a - c - f, p - c - f }'
  fi
done
