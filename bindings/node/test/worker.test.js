'use strict';
// The addon is context-aware: it loads in worker_threads, each with its own state.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Worker } = require('node:worker_threads');

const PACKAGE = path.join(__dirname, '..');

function runWorker(source, workerData) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { ...workerData, pkg: PACKAGE } });
    let message;
    worker.on('message', (m) => {
      message = m;
    });
    worker.on('error', reject);
    worker.on('exit', (code) =>
      code === 0 ? resolve(message) : reject(new Error(`worker exited with ${code}`)),
    );
  });
}

const QUERY_IN_WORKER = `
  const { parentPort, workerData } = require('node:worker_threads');
  const minigraf = require(workerData.pkg);
  (async () => {
    const db = minigraf.openInMemory();
    db.execute('(transact [[:w :id ' + workerData.id + '] [:w :big 9007199254740993]])');
    const sync = db.execute('(query [:find ?id ?b :where [:w :id ?id] [:w :big ?b]])').results;
    const rows = [];
    for await (const row of db.query('(query [:find ?id :where [:w :id ?id]])')) rows.push(row);
    let code;
    try { db.execute('(frobnicate)'); } catch (e) { code = e instanceof minigraf.MinigrafError && e.code; }
    db.close();
    parentPort.postMessage({ sync, rows, code });
  })();
`;

test('the package works inside a worker', async () => {
  const result = await runWorker(QUERY_IN_WORKER, { id: 7 });
  assert.deepEqual(result, { sync: [[7, 9007199254740993n]], rows: [[7]], code: 'PRS-011' });
});

test('several workers and the main thread use the addon at once', async () => {
  const minigraf = require('..');
  const db = minigraf.openInMemory();
  const results = await Promise.all([1, 2, 3, 4].map((id) => runWorker(QUERY_IN_WORKER, { id })));
  assert.deepEqual(
    results.map((r) => r.rows),
    [[[1]], [[2]], [[3]], [[4]]],
  );
  db.execute('(transact [[:main :n 1]])');
  assert.equal(db.txCount(), 1);
  db.close();
});

test('a worker that ends with open handles and pending calls exits cleanly', async () => {
  const source = `
    const { workerData } = require('node:worker_threads');
    const minigraf = require(workerData.pkg);
    const db = minigraf.openInMemory();
    db.execute('(transact [[:a :n 1] [:b :n 2]])');
    globalThis.keep = [db, db.query('(query [:find ?n :where [_ :n ?n]])')];
    db.executeAsync('(query [:find ?n :where [_ :n ?n]])');
    process.exit(0);
  `;
  await runWorker(source, {});
});
