'use strict';
// Host functions: db.function (predicates) and db.aggregate, on the JS thread.
const test = require('node:test');
const assert = require('node:assert/strict');
const minigraf = require('..');

function data() {
  const db = minigraf.openInMemory();
  db.execute(
    '(transact [[:a :s "x@y"] [:a :v 2] [:b :s "plain"] [:b :v 8] [:c :s :kw/at] [:c :v 4]])',
  );
  return db;
}

test('a predicate filters and binds; it sees typed values', () => {
  const db = data();
  const seen = [];
  db.function('email?', (v) => {
    seen.push(v);
    return typeof v === 'string' && v.includes('@');
  });
  assert.deepEqual(db.query('(query [:find ?s :where [_ :s ?s] [(email? ?s)]])').all(), [['x@y']]);
  assert.ok(
    seen.some((v) => v instanceof minigraf.Keyword),
    'a keyword arrives as a Keyword',
  );
  const rows = db.query('(query [:find ?s ?ok :where [_ :s ?s] [(email? ?s) ?ok]])').all();
  assert.equal(rows.length, 3);
  assert.ok(rows.every(([, ok]) => typeof ok === 'boolean'));
  db.function('email?', null); // unregisters
  assert.throws(() => db.execute('(query [:find ?s :where [_ :s ?s] [(email? ?s)]])'), {
    code: 'QRY-007',
  });
  db.close();
});

test("a throw in a callback is the query's API-016 error with its message", () => {
  const db = data();
  db.function('fails?', () => {
    throw new Error('fails? always fails');
  });
  assert.throws(() => db.query('(query [:find ?s :where [_ :s ?s] [(fails? ?s)]])'), {
    code: 'API-016',
    message: "[API-016] predicate 'fails?' failed: fails? always fails",
  });
  db.aggregate('bad', {
    start: 0,
    step: () => {
      throw new TypeError('no step');
    },
  });
  assert.throws(() => db.execute('(query [:find (bad ?v) :where [_ :v ?v]])'), {
    code: 'API-016',
    message: "[API-016] aggregate function 'bad' failed in step: no step",
  });
  assert.deepEqual(
    db.query('(query [:find (count ?v) :where [_ :v ?v]])').all(),
    [[3]],
    'still usable',
  );
  assert.throws(() => db.function('<', () => true), { code: 'API-021' });
  db.close();
});

test('an aggregate: start (value or function), step, result; in :find and as a window', () => {
  const db = data();
  db.aggregate('product', { start: 1, step: (acc, v) => acc * v });
  assert.deepEqual(db.query('(query [:find (product ?v) :where [_ :v ?v]])').all(), [[64]]);
  db.aggregate('stats', {
    start: () => ({ n: 0, max: -Infinity }),
    step(acc, v) {
      acc.n += 1;
      acc.max = Math.max(acc.max, v);
    }, // undefined keeps acc
    result: (acc) => `${acc.n}:${acc.max}`,
  });
  assert.deepEqual(db.query('(query [:find (stats ?v) :where [_ :v ?v]])').all(), [['3:8']]);
  db.aggregate('running', { start: 0n, step: (s, v) => s + v, safeIntegers: true });
  const rows = db
    .query('(query [:find ?v (running ?v :over (:order-by ?v)) :where [_ :v ?v]])', null, {
      safeIntegers: true,
    })
    .all();
  assert.deepEqual(
    rows.sort((x, y) => Number(x[0] - y[0])),
    [
      [2n, 2n],
      [4n, 6n],
      [8n, 14n],
    ],
  );
  db.aggregate('kw', { start: null, step: () => new minigraf.Keyword(':k/w') });
  assert.ok(
    db
      .query('(query [:find (kw ?v) :where [_ :v ?v]])')
      .all()[0][0]
      .equals(new minigraf.Keyword(':k/w')),
  );
  db.aggregate('weird', { start: null, step: () => ({}) });
  assert.throws(() => db.query('(query [:find (weird ?v) :where [_ :v ?v]])'), { code: 'API-016' });
  db.close();
});

test('async queries call JS host functions on the JS thread, and their throws are API-016', async () => {
  const db = data();
  const { isMainThread } = require('node:worker_threads');
  const threads = new Set();
  db.function('email?', (v) => {
    threads.add(isMainThread);
    return typeof v === 'string' && v.includes('@');
  });
  db.aggregate('product', { start: 1, step: (acc, v) => acc * v });
  const cursor = await db.queryAsync('(query [:find ?s :where [_ :s ?s] [(email? ?s)]])');
  assert.deepEqual(await cursor.allAsync(), [['x@y']]);
  assert.deepEqual([...threads], [true]);
  const pq = db.prepare('(query [:find (product ?v) :where [_ :v ?v]])');
  assert.deepEqual(await pq.allAsync(), [[64]]);
  assert.deepEqual(await db.executeAsync('(query [:find (product ?v) :where [_ :v ?v]])'), {
    variables: ['(product ?v)'],
    results: [[64]],
  });
  db.function('fails?', () => {
    throw new Error('fails? always fails');
  });
  await assert.rejects(db.queryAsync('(query [:find ?s :where [_ :s ?s] [(fails? ?s)]])'), {
    code: 'API-016',
    message: "[API-016] predicate 'fails?' failed: fails? always fails",
  });
  // Many async calls at once, each calling back into JS.
  const all = await Promise.all(
    [1, 2, 3, 4, 5, 6].map(() =>
      db.prepare('(query [:find (product ?v) :where [_ :v ?v] [(email? ?v) ?ok]])').allAsync(),
    ),
  );
  assert.deepEqual(all, Array(6).fill([[64]]));
  db.close();
});

test('a worker that exits while its async query waits for a host function ends cleanly', async () => {
  const { Worker } = require('node:worker_threads');
  const source = `
    const { workerData } = require('node:worker_threads');
    const minigraf = require(workerData.pkg);
    const db = minigraf.openInMemory();
    let tx = '(transact [';
    for (let i = 0; i < 2000; i++) tx += '[:e' + i + ' :n ' + i + ']';
    db.execute(tx + '])');
    db.function('slow?', () => true);
    db.queryAsync('(query [:find (count ?x) :where [?a :n ?x] [?b :n ?y] [(slow? ?y)]])');
    setTimeout(() => process.exit(0), 50);
  `;
  await new Promise((resolve, reject) => {
    const w = new Worker(source, {
      eval: true,
      workerData: { pkg: require('node:path').join(__dirname, '..') },
    });
    w.on('error', reject);
    w.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
});
