#!/usr/bin/env bash
# Binding overhead (spec/BENCHMARKS.md §4): the shapes point_entity,
# join_3_selective, not_probe, attribute_scan and recursive through C,
# Python, Node.js and Java on the same envelope fixture, one process per
# shape and language, through each package as a user installs it. Prints
# each language's p50 beside C's and the difference: per query (the point
# shape) and per row (the scans). Not run by CI.
#
#   bash bench/bench_bindings.sh FIXTURE_DIR [N]        (default N: 1000000)
#
# FIXTURE_DIR/envelope-N.graph is the fixture bench_storage and bench_query
# build (and cache). The build directory ($MINIGRAF_BUILD_DIR, default
# build/) must hold what scripts/run.sh builds: bench/bench_bindings_c,
# venv/ (the wheel installed), minigraf-0.2.0.tgz and the jar ($JAR, default
# the one `mvn install` puts in ~/.m2, else bindings/java/target). Work
# files (a copy of the fixture for the rule shape, which must open it
# writable; the npm project; the compiled Java class) go to
# FIXTURE_DIR/bindings-work.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${MINIGRAF_BUILD_DIR:-$ROOT/build}"
DIR="${1:?usage: bench_bindings.sh FIXTURE_DIR [N]}"
N="${2:-1000000}"
FIXTURE="$DIR/envelope-$N.graph"
WORK="$DIR/bindings-work"
JAR="${JAR:-$HOME/.m2/repository/org/minigraf/minigraf/0.2.0/minigraf-0.2.0.jar}"
[ -f "$JAR" ] || JAR="$ROOT/bindings/java/target/minigraf-0.2.0.jar"

for need in "$FIXTURE" "$BUILD/bench/bench_bindings_c" "$BUILD/venv/bin/python" \
  "$BUILD/minigraf-0.2.0.tgz" "$JAR"; do
  [ -e "$need" ] || { echo "missing: $need (see the header of $0)" >&2; exit 2; }
done

# ---- setup: the rule shape's copy, the npm project, the Java class ----------
mkdir -p "$WORK/java" "$WORK/node-app"
RULES_DB="$WORK/rules-$N.graph"
if [ ! -f "$RULES_DB" ] || [ "$FIXTURE" -nt "$RULES_DB" ]; then
  cp "$FIXTURE" "$RULES_DB"
  cp "$FIXTURE.wal" "$RULES_DB.wal"
fi
(cd "$WORK/node-app" && { [ -f package.json ] || npm init -y >/dev/null; } &&
  npm install --no-audit --no-fund --loglevel=error "$BUILD/minigraf-0.2.0.tgz" >/dev/null)
javac --release 11 -cp "$JAR" -d "$WORK/java" "$ROOT/bench/bindings/BenchQuery.java"

# ---- the shapes (BENCHMARKS.md §2; m = E / 2, E = N / 6 entities) -----------
M=$((N / 6 / 2))
NAMES=(point_entity join_3_selective not_probe attribute_scan recursive)
QUERIES=(
  "(query [:find ?a :where [:p$M :age ?a]])"
  "(query [:find ?s ?n :where [:p$M :manager ?b] [?s :manager ?b] [?s :name ?n]])"
  "(query [:find ?e :where [?e :group 7] (not [?e :age ?a] [(< ?a 10)])])"
  "(query [:find ?e ?a :where [?e :age ?a]])"
  "(query [:find ?x ?b :where (boss ?x ?b)])"
)
BOSS_RULES=("(rule [(boss ?x ?b) [?x :manager ?b]])"
            "(rule [(boss ?x ?b) [?x :manager ?m] (boss ?m ?b)])")

# run LANG PATH QUERY [RULE ...]: one JSON line from that language's program.
run() {
  local lang="$1"; shift
  case "$lang" in
    C) "$BUILD/bench/bench_bindings_c" "$@" ;;
    Python) "$BUILD/venv/bin/python" "$ROOT/bench/bindings/bench_query.py" "$@" ;;
    Node) MINIGRAF_NODE_PACKAGE="$WORK/node-app/node_modules/minigraf" \
            node "$ROOT/bench/bindings/bench_query.js" "$@" ;;
    Java) java -cp "$JAR:$WORK/java" BenchQuery "$@" ;;
  esac
}

field() { sed -E "s/.*\"$1\": ?([0-9.]+).*/\1/" <<<"$2"; }

# A duration in µs, as µs below 10 ms, else as ms.
show() { awk -v t="$1" 'BEGIN { if (t < 10000) printf "%.1f µs", t; else printf "%.1f ms", t / 1000 }'; }

LANGS=(C Python Node Java)
ROUNDS="${ROUNDS:-1}"
echo "N = $N facts ($FIXTURE); p50 per query (timed runs), + the difference to C;"
echo "the lowest p50 of $ROUNDS round(s), the languages run alternately"
printf '%-17s %8s  %-20s %-34s %-34s %-34s\n' shape rows C Python Node.js Java
for i in "${!NAMES[@]}"; do
  name="${NAMES[$i]}"
  path="$FIXTURE"; rules=()
  if [ "$name" = recursive ]; then path="$RULES_DB"; rules=("${BOSS_RULES[@]}"); fi
  declare -A best=() runs=() rows=()
  for _ in $(seq "$ROUNDS"); do
    for lang in "${LANGS[@]}"; do
      out="$(run "$lang" "$path" "${QUERIES[$i]}" "${rules[@]}" | tail -1)" || continue
      p50="$(field p50_us "$out")"
      if [ -z "${best[$lang]:-}" ] || awk -v a="$p50" -v b="${best[$lang]}" 'BEGIN { exit !(a < b) }'; then
        best[$lang]="$p50"; runs[$lang]="$(field runs "$out")"
      fi
      rows[$lang]="$(field rows "$out")"
    done
  done
  c="${best[C]:-}"
  line="$(printf '%-20s ' "${c:+$(show "$c") (${runs[C]})}")"
  for lang in Python Node Java; do
    p50="${best[$lang]:-}"
    if [ -z "$p50" ] || [ -z "$c" ]; then cell="failed"
    elif [ "${rows[$lang]}" != "${rows[C]}" ]; then cell="ROWS ${rows[$lang]} != ${rows[C]}"
    else cell="$(show "$p50") (${runs[$lang]}) $(awk -v d="$p50" -v c="$c" -v r="${rows[C]}" 'BEGIN {
      x = d - c; if (r > 100) printf "%+.2f µs/row", x / r; else printf "%+.1f µs", x }')"
    fi
    line+="$(printf '%-34s ' "$cell")"
  done
  printf '%-17s %8s  %s\n' "$name" "${rows[C]:-?}" "$line"
  unset best runs rows
done
