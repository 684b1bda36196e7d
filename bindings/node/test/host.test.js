'use strict';
// Host functions: db.function (predicates) and db.aggregate, on the JS thread.
const test = require('node:test');
const assert = require('node:assert/strict');
const minigraf = require('..');

function data() {
  const db = minigraf.openInMemory();
  db.execute('(transact [[:a :s "x@y"] [:a :v 2] [:b :s "plain"] [:b :v 8] [:c :s :kw/at] [:c :v 4]])');
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
  assert.ok(seen.some((v) => v instanceof minigraf.Keyword), 'a keyword arrives as a Keyword');
  const rows = db.query('(query [:find ?s ?ok :where [_ :s ?s] [(email? ?s) ?ok]])').all();
  assert.equal(rows.length, 3);
  assert.ok(rows.every(([, ok]) => typeof ok === 'boolean'));
  db.function('email?', null); // unregisters
  assert.throws(() => db.execute('(query [:find ?s :where [_ :s ?s] [(email? ?s)]])'), { code: 'QRY-007' });
  db.close();
});

test('a throw in a callback is the query\'s API-016 error with its message', () => {
  const db = data();
  db.function('fails?', () => {
    throw new Error('fails? always fails');
  });
  assert.throws(() => db.query('(query [:find ?s :where [_ :s ?s] [(fails? ?s)]])'), {
    code: 'API-016', message: "[API-016] predicate 'fails?' failed: fails? always fails",
  });
  db.aggregate('bad', { start: 0, step: () => { throw new TypeError('no step'); } });
  assert.throws(() => db.execute('(query [:find (bad ?v) :where [_ :v ?v]])'), {
    code: 'API-016', message: "[API-016] aggregate function 'bad' failed in step: no step",
  });
  assert.deepEqual(db.query('(query [:find (count ?v) :where [_ :v ?v]])').all(), [[3]], 'still usable');
  assert.throws(() => db.function('<', () => true), { code: 'API-021' });
  db.close();
});

test('an aggregate: start (value or function), step, result; in :find and as a window', () => {
  const db = data();
  db.aggregate('product', { start: 1, step: (acc, v) => acc * v });
  assert.deepEqual(db.query('(query [:find (product ?v) :where [_ :v ?v]])').all(), [[64]]);
  db.aggregate('stats', {
    start: () => ({ n: 0, max: -Infinity }),
    step(acc, v) { acc.n += 1; acc.max = Math.max(acc.max, v); }, // undefined keeps acc
    result: (acc) => `${acc.n}:${acc.max}`,
  });
  assert.deepEqual(db.query('(query [:find (stats ?v) :where [_ :v ?v]])').all(), [['3:8']]);
  db.aggregate('running', { start: 0n, step: (s, v) => s + v, safeIntegers: true });
  const rows = db.query('(query [:find ?v (running ?v :over (:order-by ?v)) :where [_ :v ?v]])', null,
    { safeIntegers: true }).all();
  assert.deepEqual(rows.sort((x, y) => Number(x[0] - y[0])), [[2n, 2n], [4n, 6n], [8n, 14n]]);
  db.aggregate('kw', { start: null, step: () => new minigraf.Keyword(':k/w') });
  assert.ok(db.query('(query [:find (kw ?v) :where [_ :v ?v]])').all()[0][0].equals(new minigraf.Keyword(':k/w')));
  db.aggregate('weird', { start: null, step: () => ({}) });
  assert.throws(() => db.query('(query [:find (weird ?v) :where [_ :v ?v]])'), { code: 'API-016' });
  db.close();
});

test('a host function reached from a query on the thread pool fails with API-016', async () => {
  const db = data();
  db.function('email?', (v) => typeof v === 'string' && v.includes('@'));
  await assert.rejects(db.queryAsync('(query [:find ?s :where [_ :s ?s] [(email? ?s)]])'), {
    code: 'API-016', message: /JS thread/,
  });
  db.close();
});
