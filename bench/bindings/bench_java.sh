#!/usr/bin/env bash
# minigraf through Java beside SQLite through sqlite-jdbc (issue 14), on the
# 1M envelope fixture: every shape of spec/BENCHMARKS.md §2, one JVM per
# shape (BenchJava.java), then 4 threads against 1 on the point and join
# shapes. Reports per shape: the C p50 (bench_compare's, typed rows), the
# Java p50 and its overhead over C (per query; per row on the scans), the
# sqlite-jdbc p50 and the ratio SQLite / minigraf. Not run by CI.
#
#   bash bench/bindings/bench_java.sh DIR [N]          (default N: 1000000)
#
# DIR must hold what `bench_compare DIR N` writes: envelope-N.graph,
# eav-N.sqlite and compare-N.json (its C timings). Needs the jar ($JAR,
# default bindings/java/target), sqlite-jdbc ($SQLITE_JDBC, default the one
# `mvn dependency:get -Dartifact=org.xerial:sqlite-jdbc:3.50.3.0` puts in
# ~/.m2) and build/bench/bench_shapes_java. SHAPES="a b" picks shapes.
# C_AGAIN=1 runs `bench_compare DIR N -s SHAPE` just before each shape's
# Java run and takes C's p50 from it (on a loaded machine, C measured an
# hour earlier is not a baseline); it rewrites DIR/compare-N.json, so the
# file of the full run is copied to java-work/compare-all.json first.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${MINIGRAF_BUILD_DIR:-$ROOT/build}"
DIR="${1:?usage: bench_java.sh DIR [N]}"
N="${2:-1000000}"
JAR="${JAR:-$ROOT/bindings/java/target/minigraf-0.2.0.jar}"
SQLITE_JDBC="${SQLITE_JDBC:-$HOME/.m2/repository/org/xerial/sqlite-jdbc/3.50.3.0/sqlite-jdbc-3.50.3.0.jar}"
FIXTURE="$DIR/envelope-$N.graph"
for need in "$FIXTURE" "$DIR/eav-$N.sqlite" "$DIR/compare-$N.json" "$JAR" "$SQLITE_JDBC" \
  "$BUILD/bench/bench_shapes_java"; do
  [ -e "$need" ] || { echo "missing: $need (see the header of $0)" >&2; exit 2; }
done

WORK="$DIR/java-work"
mkdir -p "$WORK/classes"
# The rule shapes register rules, which needs a writable open: a copy.
RULES_DB="$WORK/rules-$N.graph"
if [ ! -f "$RULES_DB" ] || [ "$FIXTURE" -nt "$RULES_DB" ]; then
  cp "$FIXTURE" "$RULES_DB"
  if [ -f "$FIXTURE.wal" ]; then cp "$FIXTURE.wal" "$RULES_DB.wal"; fi
fi
"$BUILD/bench/bench_shapes_java" "$FIXTURE" "$N" > "$WORK/shapes.tsv"
javac --release 11 -cp "$JAR" -d "$WORK/classes" "$ROOT/bench/bindings/BenchJava.java"
CP="$JAR:$SQLITE_JDBC:$WORK/classes"

OUT="$WORK/java-$N.jsonl"
C_OUT="$WORK/c-$N.jsonl"
: > "$OUT"
: > "$C_OUT"
[ -f "$WORK/compare-all.json" ] || cp "$DIR/compare-$N.json" "$WORK/compare-all.json"
for shape in ${SHAPES:-$(cut -f1 "$WORK/shapes.tsv")}; do
  if [ "${C_AGAIN:-0}" = 1 ]; then
    "$BUILD/bench/bench_compare" "$DIR" "$N" -s "$shape" >/dev/null
    python3 -c 'import json,sys; [print(json.dumps(s)) for s in json.load(open(sys.argv[1]))["shapes"]]' \
      "$DIR/compare-$N.json" >> "$C_OUT"
  fi
  db="$FIXTURE"
  [ "$(awk -F'\t' -v s="$shape" '$1 == s { print $5 }' "$WORK/shapes.tsv")" = 1 ] && db="$RULES_DB"
  java -cp "$CP" BenchJava shape "$db" "$DIR/eav-$N.sqlite" "$WORK/shapes.tsv" "$shape" | tee -a "$OUT"
done
for shape in point_entity join_2; do
  java -cp "$CP" BenchJava threads "$FIXTURE" "$WORK/shapes.tsv" "$shape" 4 3 | tee -a "$OUT"
done

python3 - "$OUT" "$WORK/compare-all.json" "$C_OUT" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
c = {s["shape"]: s for s in json.load(open(sys.argv[2]))["shapes"]}
c.update({s["shape"]: s for s in map(json.loads, open(sys.argv[3])) if s})
print(f"\n{'shape':<20}{'rows':>8}{'C µs':>11}{'Java µs':>11}{'prep µs':>11}{'+/query µs':>12}"
      f"{'+/row µs':>10}{'JDBC µs':>11}{'SQLite/Java':>12}  check")
for r in rows:
    if "threads" in r:
        continue
    cc = c.get(r["shape"], {}).get("minigraf_p50_us")
    over = r["java_p50_us"] - cc if cc is not None else float("nan")
    per_row = over / r["rows"] if r["rows"] >= 100 else float("nan")
    print(f"{r['shape']:<20}{r['rows']:>8}{cc if cc is not None else float('nan'):>11.1f}"
          f"{r['java_p50_us']:>11.1f}{r['java_prepared_p50_us']:>11.1f}{over:>12.2f}{per_row:>10.4f}"
          f"{r['sqlite_jdbc_p50_us']:>11.1f}{r['sqlite_jdbc_p50_us'] / r['java_p50_us']:>12.2f}  {r['check']}")
for r in rows:
    if "threads" in r:
        print(f"{r['shape']}: 1 thread {r['qps_1']:.0f}/s ({r['cores_1']:.2f} cores busy), "
              f"{r['threads']} threads {r['qps_n']:.0f}/s ({r['cores_n']:.2f} cores busy): "
              f"{r['speedup']:.2f}x")
PY
