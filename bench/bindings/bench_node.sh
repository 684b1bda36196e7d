#!/usr/bin/env bash
# The Node.js package's benchmarks (issue 14; not run by CI):
#  1. bench_node_compare.js: minigraf through the npm package beside SQLite
#     through better-sqlite3 on bench/compare's fixtures, shape by shape;
#  2. bench_node_parallel.js: 4 worker threads / 4 concurrent async calls
#     against 1, while a writer commits.
#
#   bash bench/bindings/bench_node.sh DIR [N]        (default N: 1000000)
#
# DIR/envelope-N.graph and DIR/eav-N.sqlite are bench_compare's fixtures
# (built here by `bench_compare DIR N -s point_entity` when missing). The
# build directory ($MINIGRAF_BUILD_DIR, default build/) must hold
# bench/bench_compare and minigraf-0.2.0.tgz. The npm project with the
# package and better-sqlite3 goes to DIR/node-work. better-sqlite3 is
# pinned to major version 12: 13 crashes (SIGSEGV) on Node 20. It is
# compiled from source when no prebuilt binary can be downloaded (a few
# minutes; MAKEFLAGS is cleared so that make does not inherit a jobserver).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${MINIGRAF_BUILD_DIR:-$ROOT/build}"
DIR="${1:?usage: bench_node.sh DIR [N]}"
N="${2:-1000000}"
WORK="$DIR/node-work"

for need in "$BUILD/bench/bench_compare" "$BUILD/minigraf-0.2.0.tgz"; do
  [ -e "$need" ] || { echo "missing: $need (see the header of $0)" >&2; exit 2; }
done
if [ ! -f "$DIR/envelope-$N.graph" ] || [ ! -f "$DIR/eav-$N.sqlite" ]; then
  "$BUILD/bench/bench_compare" "$DIR" "$N" -s point_entity
fi

mkdir -p "$WORK/app"
(cd "$WORK/app" && { [ -f package.json ] || npm init -y >/dev/null; } &&
  MAKEFLAGS= npm install --no-audit --no-fund --loglevel=error \
    "$BUILD/minigraf-0.2.0.tgz" better-sqlite3@12 >/dev/null)

# The ancestors shape registers rules and the parallel run writes: a copy.
cp "$DIR/envelope-$N.graph" "$WORK/mg-$N.graph"
cp "$DIR/envelope-$N.graph.wal" "$WORK/mg-$N.graph.wal" 2>/dev/null || true

export MINIGRAF_NODE_PACKAGE="$WORK/app/node_modules/minigraf"
export BETTER_SQLITE3="$WORK/app/node_modules/better-sqlite3"
node "$ROOT/bench/bindings/bench_node_compare.js" "$WORK/mg-$N.graph" "$DIR/eav-$N.sqlite" "$N"
node "$ROOT/bench/bindings/bench_node_parallel.js" "$WORK/mg-$N.graph" "$N" 3
rm -f "$WORK/mg-$N.graph" "$WORK/mg-$N.graph.wal"
