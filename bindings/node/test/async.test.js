'use strict';
// The Promise variants run on the libuv pool and settle on the JS thread.
const test = require('node:test');
const assert = require('node:assert/strict');
const minigraf = require('..');

test('executeAsync resolves the result object', async () => {
  const db = minigraf.openInMemory();
  const tx = await db.executeAsync('(transact [[:a :n 9007199254740993]])');
  assert.ok(tx.transacted > 0);
  assert.deepEqual(await db.executeAsync('(query [:find ?n :where [:a :n ?n]])'), {
    variables: ['?n'],
    results: [[9007199254740993n]],
  });
  db.close();
});

test('many concurrent executeAsync calls on one database all settle', async () => {
  const db = minigraf.openInMemory();
  const writes = Array.from({ length: 50 }, (_, i) =>
    db.executeAsync(`(transact [[:e${i} :i ${i}]])`),
  );
  const failures = Array.from({ length: 10 }, () => db.executeAsync('(frobnicate)'));
  const settled = await Promise.allSettled([...writes, ...failures]);
  assert.equal(settled.filter((s) => s.status === 'fulfilled').length, 50);
  for (const s of settled.slice(50)) {
    assert.equal(s.status, 'rejected');
    assert.equal(s.reason.code, 'PRS-011'); // each failure keeps its own error
  }
  assert.equal(db.txCount(), 50);
  db.close();
});

test('sync calls may interleave with pending async ones', async () => {
  const db = minigraf.openInMemory();
  const pending = db.executeAsync('(transact [[:a :n 1]])');
  db.execute('(transact [[:b :n 2]])');
  await pending;
  assert.equal(db.txCount(), 2);
  db.close();
});

test('close() while a call is in flight: the call completes or stops coded', async () => {
  const db = minigraf.openInMemory();
  db.execute('(transact [[:a :n 1]])');
  const pending = db.executeAsync('(query [:find ?n :where [:a :n ?n]])');
  db.close();
  // Finished before the close, stopped by it (API-013), or not yet started (API-018):
  // hostile.test.js has a query long enough to be stopped for certain.
  const outcome = await pending.then(
    (r) => r.results,
    (e) => e.code,
  );
  assert.ok(
    ['API-013', 'API-018'].includes(outcome) || JSON.stringify(outcome) === '[[1]]',
    String(outcome),
  );
  await assert.rejects(db.executeAsync('(transact [])'), { code: 'API-018' });
});

test('cursor.close() while a batch is in flight: the batch still arrives', async () => {
  const db = minigraf.openInMemory();
  db.execute('(transact [[:a :n 1] [:b :n 2]])');
  const cursor = db.query('(query [:find ?n :where [_ :n ?n]])');
  const pending = cursor.nextBatchAsync(10);
  cursor.close();
  assert.equal((await pending).length, 2);
  db.close();
});

test('async iteration over several cursors at once', async () => {
  const db = minigraf.openInMemory();
  db.execute(`(transact [${Array.from({ length: 300 }, (_, i) => `[:e${i} :i ${i}]`).join(' ')}])`);
  const drain = async () => {
    let n = 0;
    for await (const _row of db.query('(query [:find ?i :where [_ :i ?i]])')) n++;
    return n;
  };
  assert.deepEqual(await Promise.all([drain(), drain(), drain()]), [300, 300, 300]);
  db.close();
});
