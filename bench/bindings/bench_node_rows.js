'use strict';
// The Node.js package's cost per row (issue 14): attribute_scan
// (`:find ?e ?a :where [?e :age ?a]`, an Entity and an integer per row)
// read through cursor.nextBatch(4096) with the rows dropped ("stream"),
// kept (`cursor.all()`, "all") or kept from a prepared query
// (`db.prepare(...)` once, `.all()` per run: one addon call, "prepared"),
// or kept by `cursor.all()` with every row's entity then read as text
// (`row[0].uuid`, "allread": entity texts are made on first read), timed by the process's CPU time
// (process.cpuUsage), which holds steadier than wall time on a shared
// machine. Compare with bench_rows's "cpu" columns for C's step loop on
// the same fixture: the difference is the binding's cost per row.
//
//   MINIGRAF_NODE_PACKAGE=build/node node bench/bindings/bench_node_rows.js \
//       DIR/envelope-1000000.graph [stream|all|allread|prepared] [RUNS]
const path = require('node:path');

const pkg = process.env.MINIGRAF_NODE_PACKAGE;
const mg = require(pkg ? path.resolve(pkg) : 'minigraf');

const QUERY = '(query [:find ?e ?a :where [?e :age ?a]])';
const [file, mode = 'stream', runsText = '15'] = process.argv.slice(2);
if (!file) {
  console.error('usage: bench_node_rows.js FIXTURE.graph [stream|all|allread|prepared] [RUNS]');
  process.exit(2);
}
const db = mg.open(file, { readOnly: true });
const prepared = db.prepare(QUERY);

function drain() {
  if (mode === 'prepared') return prepared.all().length;
  const cursor = db.query(QUERY);
  let rows = 0;
  if (mode === 'all') {
    rows = cursor.all().length;
  } else if (mode === 'allread') {
    const all = cursor.all();
    for (const row of all) if (row[0].uuid.length !== 36) throw new Error('not a UUID');
    rows = all.length;
  } else {
    for (let batch; (batch = cursor.nextBatch(4096)) !== null;) rows += batch.length;
  }
  cursor.close();
  return rows;
}

for (let i = 0; i < 3; i++) drain();
const perRow = [];
let rows = 0;
for (let i = 0; i < Number(runsText); i++) {
  const start = process.cpuUsage();
  rows = drain();
  const used = process.cpuUsage(start);
  perRow.push(((used.user + used.system) * 1000) / rows);
}
perRow.sort((a, b) => a - b);
console.log(
  `attribute_scan, ${mode}: ${rows} rows, CPU ns/row p50 ` +
    `${perRow[perRow.length >> 1].toFixed(1)} min ${perRow[0].toFixed(1)}`,
);
db.close();
