'use strict';
// Cursors: batches, both iterator protocols, lifetimes.
const test = require('node:test');
const assert = require('node:assert/strict');
const minigraf = require('..');

const ALL = '(query [:find ?i :where [?e :i ?i]])';

function dbWith(n) {
  const db = minigraf.openInMemory();
  const facts = Array.from({ length: n }, (_, i) => `[:e${i} :i ${i}]`).join(' ');
  db.execute(`(transact [${facts}])`);
  return db;
}

const sorted = (rows) => rows.map(([i]) => i).sort((a, b) => a - b);
const range = (n) => Array.from({ length: n }, (_, i) => i);

test('for...of yields every row and closes the cursor', () => {
  const db = dbWith(600);
  const cursor = db.query(ALL);
  assert.deepEqual(cursor.variables, ['?i']);
  const rows = [];
  for (const row of cursor) rows.push(row);
  assert.deepEqual(sorted(rows), range(600));
  assert.equal(cursor.closed, true);
  db.close();
});

test('breaking out of for...of closes the cursor', () => {
  const db = dbWith(10);
  const cursor = db.query(ALL);
  for (const row of cursor) {
    assert.equal(row.length, 1);
    break;
  }
  assert.equal(cursor.closed, true);
  assert.throws(() => cursor.nextBatch(), { code: 'API-018' });
  db.close();
});

test('for await...of yields every row', async () => {
  const db = dbWith(700);
  const rows = [];
  for await (const row of db.query(ALL)) rows.push(row);
  assert.deepEqual(sorted(rows), range(700));
  db.close();
});

test('nextBatch returns at most n rows, then null, and keeps returning null', () => {
  const db = dbWith(5);
  const cursor = db.query(ALL);
  const sizes = [];
  for (let batch; (batch = cursor.nextBatch(2)) !== null;) sizes.push(batch.length);
  assert.deepEqual(sizes, [2, 2, 1]);
  assert.equal(cursor.nextBatch(2), null);
  cursor.close();
  cursor.close();
  db.close();
});

test('nextBatch(0) counts as 1', () => {
  const db = dbWith(3);
  const cursor = db.query(ALL);
  assert.equal(cursor.nextBatch(0).length, 1);
  cursor.close();
  db.close();
});

test('nextBatchAsync resolves batches and null at the end', async () => {
  const db = dbWith(3);
  const cursor = db.query(ALL);
  assert.equal((await cursor.nextBatchAsync(10)).length, 3);
  assert.equal(await cursor.nextBatchAsync(10), null);
  cursor.close();
  await assert.rejects(cursor.nextBatchAsync(1), { code: 'API-018' });
  db.close();
});

test('nextBatch checks its argument', () => {
  const db = dbWith(1);
  const cursor = db.query(ALL);
  assert.throws(() => cursor.nextBatch('3'), TypeError);
  assert.throws(() => cursor.nextBatch(-1), RangeError);
  assert.throws(() => cursor.nextBatch(1.5), RangeError);
  cursor.close();
  db.close();
});

test('the answer is fixed when the cursor opens', () => {
  const db = dbWith(2);
  const cursor = db.query(ALL);
  db.execute('(transact [[:late :i 99]])');
  assert.deepEqual(sorted([...cursor]), [0, 1]);
  db.close();
});

test('a cursor stays readable after its database is closed', () => {
  const db = dbWith(3);
  const cursor = db.query(ALL);
  db.close();
  assert.deepEqual(sorted([...cursor]), [0, 1, 2]);
});

test('query() accepts only query commands (API-012)', () => {
  const db = minigraf.openInMemory();
  assert.throws(() => db.query('(transact [[:a :n 1]])'), { code: 'API-012' });
  db.close();
});

test('Symbol.dispose closes the cursor', { skip: typeof Symbol.dispose !== 'symbol' }, () => {
  const db = dbWith(1);
  const cursor = db.query(ALL);
  cursor[Symbol.dispose]();
  assert.equal(cursor.closed, true);
  db.close();
});

test('writes and close mid-stream leave the rest of the answer alone', async () => {
  const db = dbWith(2500);
  const cursor = db.query(ALL);
  const rows = cursor.nextBatch(100);
  db.execute('(transact [[:extra :i -1]])');
  rows.push(...(await cursor.nextBatchAsync(100)));
  db.close();
  for (let batch; (batch = cursor.nextBatch(1000)) !== null;) rows.push(...batch);
  assert.deepEqual(sorted(rows), range(2500));
  cursor.close();
});

test('a batch whose texts pass V8 pieces keeps every text whole', () => {
  // Over 60,000 UTF-16 units of text a batch comes in pieces (src/packed.c):
  // texts of every kind and width on both sides of the cuts, a text longer
  // than a piece, empty texts.
  const text = (n) =>
    n === 1500
      ? '😀'.repeat(35000)
      : n % 7 === 0
        ? ''
        : n % 5 === 0
          ? `é😀${n}`
          : `${'x'.repeat(40)}${n}`;
  const db = minigraf.openInMemory();
  const facts = [];
  for (let n = 0; n < 3000; n++)
    facts.push(`[:e${n} :n ${n}] [:e${n} :s "${text(n)}"] [:e${n} :k :k/v${n}]`);
  db.execute(`(transact [${facts.join(' ')}])`);
  const cursor = db.query('(query [:find ?n ?s ?k ?e :where [?e :n ?n] [?e :s ?s] [?e :k ?k]])');
  const rows = cursor.nextBatch(5000);
  assert.equal(rows.length, 3000);
  for (const [n, s, k, e] of rows) {
    assert.equal(s, text(n));
    assert.equal(k.text, `:k/v${n}`);
    assert.ok(e instanceof minigraf.Entity && /^[0-9a-f-]{36}$/.test(e.uuid));
  }
  cursor.close();
  db.close();
});
