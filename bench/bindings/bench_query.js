'use strict';
// One query shape through the npm package, timed as bench_query.c times it
// through the C API (see there; bench/bench_bindings.sh runs all four
// languages):
//
//   node bench_query.js PATH QUERY [RULE ...]
//
// The package is require('minigraf'), or the directory in
// MINIGRAF_NODE_PACKAGE (the tarball installed into a project). A run opens
// the cursor, iterates every row as a user would (`for (const row of
// cursor)`, which closes it at the end). Prints one JSON line.

const minigraf = require(process.env.MINIGRAF_NODE_PACKAGE || 'minigraf');

const WARMUP_RUNS = 3;
const WARMUP_S = 0.5;
const MIN_RUNS = 5;
const BUDGET_S = 1.5;
const MAX_RUNS = 5000;

const nowS = () => Number(process.hrtime.bigint()) / 1e9;

function runOnce(db, query) {
  let rows = 0;
  for (const row of db.query(query)) {
    // eslint-disable-line no-unused-vars
    rows++;
  }
  return rows;
}

function main(argv) {
  if (argv.length < 2) {
    console.error('usage: bench_query.js PATH QUERY [RULE ...]');
    process.exit(2);
  }
  const [path, query, ...rules] = argv;
  // Registering a rule is refused read-only (rules live with the open database).
  const db = minigraf.open(path, { readOnly: rules.length === 0 });
  for (const rule of rules) db.execute(rule);
  const rows = runOnce(db, query);
  const start = nowS();
  for (let runs = 1; runs < WARMUP_RUNS || nowS() - start < WARMUP_S; runs++) {
    if (runOnce(db, query) !== rows) throw new Error(`unstable: ${query}`);
  }
  const times = [];
  let spent = 0;
  while (times.length < MAX_RUNS && (times.length < MIN_RUNS || spent < BUDGET_S)) {
    const t0 = nowS();
    const got = runOnce(db, query);
    const t = nowS() - t0;
    times.push(t);
    spent += t;
    if (got !== rows) throw new Error(`unstable: ${query}`);
  }
  db.close();
  times.sort((a, b) => a - b);
  const n = times.length;
  const us = (t) => Math.round(t * 1e8) / 100;
  console.log(
    JSON.stringify({
      rows,
      runs: n,
      p50_us: us(times[Math.floor(n / 2)]),
      p99_us: us(times[Math.floor((n - 1) * 0.99 + 0.5)]),
      min_us: us(times[0]),
    }),
  );
}

main(process.argv.slice(2));
