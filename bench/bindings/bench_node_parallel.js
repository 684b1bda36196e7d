'use strict';
// Parallel reads through Node (issue 14): point and join queries (prepared,
// bound to 1,024 entities in turn) on one
// database file, as 1 vs 4 worker threads (each with its own handle on the
// file: the library's shared store) and as 1 vs 4 concurrent async calls
// on one handle (the libuv pool), while a writer commits meanwhile.
// Reports queries per second, the ratio of 4 to 1 (target >= 1.6x on a
// 2-core machine) and the cores the process kept busy during each figure
// (process CPU time over wall time: on a shared machine, the share it got,
// which bounds the ratio).
//
//   node bench_node_parallel.js FIXTURE_FILE N [SECONDS]
//
// FIXTURE_FILE is opened by every worker; it must be writable (the writer
// commits to it). The package is require('minigraf') or the directory in
// MINIGRAF_NODE_PACKAGE.

const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');

const pkg = process.env.MINIGRAF_NODE_PACKAGE || 'minigraf';
const minigraf = require(pkg);

const nowS = () => Number(process.hrtime.bigint()) / 1e9;
/** CPU seconds of the whole process (every thread) so far. */
const cpuS = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/** The mix: point_entity and join_2 (prepared) over 1,024 entities. */
function mix(db) {
  const cursor = db.query('(query [:find ?e :where [?e :follows _]])');
  const entities = cursor.nextBatch(1024).map(([e]) => e);
  cursor.close();
  return {
    entities,
    point: db.prepare('(query [:find ?a :where [$e :age ?a]])'),
    join: db.prepare('(query [:find ?n :where [$e :follows ?f] [?f :name ?n]])'),
  };
}

/** The k-th query of the mix: its statement, bound. */
function next(m, k) {
  const stmt = k % 2 === 0 ? m.point : m.join;
  return stmt.bind({ e: m.entities[(k * 7919) % m.entities.length] });
}

/** Sync queries until `until` (seconds, hrtime); returns how many ran. */
function runSync(m, seed, until) {
  let done = 0;
  while (nowS() < until) {
    next(m, seed + done).all();
    done++;
  }
  return done;
}

if (!isMainThread) {
  // Open and warm up, report ready, then run from 'go' to its deadline.
  const { file, seed } = workerData;
  const db = minigraf.open(file);
  const m = mix(db);
  runSync(m, seed, nowS() + 0.2);
  parentPort.once('message', (until) => {
    parentPort.postMessage(runSync(m, seed, until));
    db.close();
  });
  parentPort.postMessage('ready');
} else {
  main(process.argv.slice(2));
}

/** `count` workers, started together once all are open and warm. */
async function workersRun(file, count, seconds) {
  const workers = [];
  await Promise.all(
    Array.from(
      { length: count },
      (_, i) =>
        new Promise((resolve, reject) => {
          const w = new Worker(__filename, { workerData: { file, seed: i * 100003 } });
          workers.push(w);
          w.once('message', resolve);
          w.on('error', reject);
        }),
    ),
  );
  const cpu = cpuS();
  const until = nowS() + seconds;
  const counts = await Promise.all(
    workers.map(
      (w) =>
        new Promise((resolve) => {
          w.once('message', resolve);
          w.postMessage(until);
        }),
    ),
  );
  return { queries: counts.reduce((a, b) => a + b, 0), seconds, cpu: cpuS() - cpu };
}

/** `count` loops of async calls on one handle, each with its own prepared
 * statements (a statement runs one call at a time); a run is one job on
 * the pool (PreparedQuery.allAsync). */
async function asyncRun(db, count, seconds) {
  const cpu = cpuS();
  const until = nowS() + seconds;
  const loops = Array.from({ length: count }, async (_, i) => {
    const m = mix(db);
    let done = 0;
    while (nowS() < until) {
      await next(m, i * 100003 + done).allAsync();
      done++;
    }
    return done;
  });
  const counts = await Promise.all(loops);
  return { queries: counts.reduce((a, b) => a + b, 0), seconds, cpu: cpuS() - cpu };
}

async function main(argv) {
  const [file, nText, secondsText = '3'] = argv;
  if (!file || !nText) {
    console.error('usage: bench_node_parallel.js FIXTURE_FILE N [SECONDS]');
    process.exit(2);
  }
  const n = Number(nText);
  const seconds = Number(secondsText);
  const db = minigraf.open(file);
  // A writer committing meanwhile (never blocks the readers).
  let commits = 0;
  const writer = setInterval(() => {
    db.execute(`(transact [[:bench-writer :tick ${commits}]])`);
    commits++;
  }, 50);
  const runs = {};
  for (const count of [1, 4]) runs[`workers_${count}`] = await workersRun(file, count, seconds);
  for (const count of [1, 4]) runs[`async_${count}`] = await asyncRun(db, count, seconds);
  clearInterval(writer);
  db.close();
  const out = { n, seconds, commits };
  for (const mode of ['workers', 'async']) {
    const [one, four] = [runs[`${mode}_1`], runs[`${mode}_4`]];
    out[`${mode}_1_qps`] = Math.round(one.queries / one.seconds);
    out[`${mode}_4_qps`] = Math.round(four.queries / four.seconds);
    out[`${mode}_ratio`] = Math.round((four.queries / one.queries) * 100) / 100;
    out[`${mode}_1_cores`] = Math.round((one.cpu / one.seconds) * 100) / 100;
    out[`${mode}_4_cores`] = Math.round((four.cpu / four.seconds) * 100) / 100;
  }
  console.log(JSON.stringify(out));
}
