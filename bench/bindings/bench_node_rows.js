'use strict';
// The Node.js package's cost per row (issue 14): attribute_scan
// (`:find ?e ?a :where [?e :age ?a]`, an Entity and an integer per row)
// read through cursor.nextBatch(4096) with the rows dropped ("stream"),
// kept (`cursor.all()`, "all") or kept from a prepared query
// (`db.prepare(...)` once, `.all()` per run: one addon call, "prepared"),
// or kept by `cursor.all()` with every row's entity then read as text
// (`row[0].uuid`, "allread": entity texts are made on first read), or
// the same objects made in JavaScript alone, with no addon ("floor": what
// V8 charges any producer to keep a row array, an Entity and its text a
// row), timed by the process's CPU time (process.cpuUsage), which holds
// steadier than wall time on a shared machine. Compare with bench_rows's
// "cpu" columns for C's step loop on the same fixture: the difference is
// the binding's cost per row (for kept rows, less the floor's).
//
//   MINIGRAF_NODE_PACKAGE=build/node node bench/bindings/bench_node_rows.js \
//       DIR/envelope-1000000.graph [stream|all|allread|prepared|floor] [RUNS]
//
// It prints the p50, the minimum and the mean: V8's collector makes kept
// rows bimodal (a run either pays for its scavenges and a full collection
// or does not), so the mean is the cost a program pays on average.
const path = require('node:path');

const pkg = process.env.MINIGRAF_NODE_PACKAGE;
const mg = require(pkg ? path.resolve(pkg) : 'minigraf');

const QUERY = '(query [:find ?e ?a :where [?e :age ?a]])';
const [file, mode = 'stream', runsText = '15'] = process.argv.slice(2);
if (!file) {
  console.error(
    'usage: bench_node_rows.js FIXTURE.graph [stream|all|allread|prepared|floor] [RUNS]',
  );
  process.exit(2);
}
const db = mg.open(file, { readOnly: true });
const prepared = db.prepare(QUERY);
const ROWS = prepared.all().length;

const FLOOR_TRUSTED = Symbol('floor');
/** The package's Entity as the rows hold it: its text's piece and offset. */
class FloorEntity {
  #uuid;
  #at = -1;
  constructor(uuid, trusted, at) {
    if (trusted !== FLOOR_TRUSTED) throw new TypeError('internal');
    this.#uuid = uuid;
    if (at !== undefined) this.#at = at;
  }
  get uuid() {
    return this.#uuid.slice(this.#at, this.#at + 36);
  }
}
// The addon hands texts over in pieces of at most 60,000 characters
// (src/packed.c): 1,666 UUIDs. The floor makes each piece anew too.
const FLOOR_PIECE_ROWS = 1666;
const FLOOR_TEXT = Buffer.alloc(36 * FLOOR_PIECE_ROWS, 'x');

/**
 * The objects `.all()` keeps, made in JavaScript: a row array, an Entity
 * and 36 characters of text a row, in batches of 4096 rows as a cursor's.
 */
function floor() {
  const rows = [];
  let piece = '';
  for (let done = 0; done < ROWS; done += 4096) {
    const end = Math.min(ROWS, done + 4096);
    for (let r = done; r < end; r++) {
      const at = r % FLOOR_PIECE_ROWS;
      if (at === 0) piece = FLOOR_TEXT.toString('latin1');
      rows[r] = [new FloorEntity(piece, FLOOR_TRUSTED, at * 36), r % 100];
    }
  }
  return rows.length;
}

function drain() {
  if (mode === 'prepared') return prepared.all().length;
  if (mode === 'floor') return floor();
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
const mean = perRow.reduce((sum, ns) => sum + ns, 0) / perRow.length;
perRow.sort((a, b) => a - b);
console.log(
  `attribute_scan, ${mode}: ${rows} rows, CPU ns/row p50 ` +
    `${perRow[perRow.length >> 1].toFixed(1)} min ${perRow[0].toFixed(1)} mean ${mean.toFixed(1)}`,
);
db.close();
