'use strict';
// Worker threads, each with its own handle on the same file (the library's
// shared store), and every close order.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { spawnSync } = require('node:child_process');
const minigraf = require('..');

const PACKAGE = path.join(__dirname, '..');

function tempFile() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-shared-'));
  return { dir, file: path.join(dir, 'db.graph') };
}

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

test('4 workers open the same file, read while the main thread commits, and see its commits', async () => {
  const { dir, file } = tempFile();
  const db = minigraf.open(file);
  db.execute('(transact [[:a :n 1] [:b :n 2]])');
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const minigraf = require(workerData.pkg);
    const db = minigraf.open(workerData.file);
    const pq = db.prepare('(query [:find ?v :where [?e :n ?v] [(>= ?v $min)]])');
    let reads = 0;
    for (let i = 0; i < 200; i++) reads += pq.all({ min: 1 }).length >= 2 ? 1 : 0;
    db.execute('(transact [[:w' + workerData.id + ' :n ' + (100 + workerData.id) + ']])');
    db.close();
    parentPort.postMessage(reads);
  `;
  const workers = [1, 2, 3, 4].map((id) => runWorker(source, { file, id }));
  for (let i = 0; i < 20; i++) db.execute(`(transact [[:m${i} :n ${10 + i}]])`);
  assert.deepEqual(await Promise.all(workers), [200, 200, 200, 200]);
  const mine = db
    .query('(query [:find ?v :where [?e :n ?v] [(>= ?v 100)]])')
    .all()
    .map(([v]) => v)
    .sort();
  assert.deepEqual(mine, [101, 102, 103, 104], "each worker's commit is in the shared store");
  db.close();
  fs.rmSync(dir, { recursive: true });
});

test('close orders: database before cursor, statement and transaction', () => {
  const db = minigraf.openInMemory();
  db.execute('(transact [[:a :n 1] [:b :n 2]])');
  const cursor = db.query('(query [:find ?n :where [_ :n ?n]])');
  const pq = db.prepare('(query [:find ?n :where [_ :n ?n]])');
  const tx = db.beginWrite();
  tx.execute('(transact [[:c :n 3]])');
  db.close();
  assert.equal(cursor.all().length, 2, 'a cursor stays readable after its database closed');
  assert.throws(() => pq.all(), { code: 'API-018' });
  assert.throws(() => tx.commit(), { code: 'API-018' });
  pq.close();
  tx.close();
  db.close(); // idempotent
  assert.throws(() => db.query('(query [:find ?n :where [_ :n ?n]])'), { code: 'API-018' });
});

test('process exit with everything open, and GC of everything unclosed', () => {
  const { dir, file } = tempFile();
  const source = `
    const minigraf = require(process.env.MINIGRAF_PACKAGE);
    (async () => {
      for (let i = 0; i < 200; i++) {
        const db = minigraf.openInMemory();
        db.execute('(transact [[:a :n 1] [:b :n 2]])');
        const pq = db.prepare('(query [:find ?n :where [_ :n ?n]])');
        pq.cursor().nextBatch(1);
        db.beginWrite().execute('(transact [[:c :n 3]])');
        db.function('p?', () => true);
        db.aggregate('agg', { start: 0, step: (s) => s + 1 });
        db.query('(query [:find (agg ?n) :where [_ :n ?n] [(p? ?n)]])');
        if (i % 2) db.close();
        if (i % 50 === 0) { globalThis.gc(); await new Promise((r) => setImmediate(r)); }
      }
      globalThis.gc();
      const db = minigraf.open(process.env.FILE);
      db.execute('(transact [[:kept :n 1]])');
      const tx = db.beginWrite();
      tx.execute('(transact [[:lost :n 2]])');
      globalThis.keep = [db, tx, db.query('(query [:find ?n :where [_ :n ?n]])'), db.prepare('(query [:find ?n :where [_ :n ?n]])')];
      db.queryAsync('(query [:find ?n :where [_ :n ?n]])');
      process.exit(0);
    })();
  `;
  const child = spawnSync(process.execPath, ['--expose-gc', '-e', source], {
    env: { ...process.env, MINIGRAF_PACKAGE: PACKAGE, FILE: file },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(child.status, 0, child.stderr);
  const db = minigraf.open(file);
  assert.deepEqual(
    db
      .query('(query [:find ?e :where [?e :n _]])')
      .all()
      .map(([e]) => e instanceof minigraf.Entity),
    [true],
    'the commit is kept, the open transaction is not',
  );
  db.close();
  fs.rmSync(dir, { recursive: true });
});
