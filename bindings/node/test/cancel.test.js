'use strict';
// Cancellation and async: interrupt, progress handler, AbortSignal, and
// queries that keep the event loop free.
const test = require('node:test');
const assert = require('node:assert/strict');
const minigraf = require('..');

/** n entities with :n i, so joins over them are as long as wanted. */
function numbers(n) {
  const db = minigraf.openInMemory();
  let tx = '(transact [';
  for (let i = 0; i < n; i++) tx += `[:e${i} :n ${i}]`;
  db.execute(`${tx}])`);
  return db;
}
const PAIRS = '(query [:find (count ?x) :where [?a :n ?x] [?b :n ?y]])';
const TRIPLES = '(query [:find (count ?x) :where [?a :n ?x] [?b :n ?y] [?c :n ?z]])';

test('queryAsync computes an aggregating query off the event loop: a timer keeps firing', async () => {
  const db = numbers(2000); // 4M joined rows, counted before the first row
  let ticks = 0;
  const timer = setInterval(() => {
    ticks += 1;
  }, 1);
  try {
    const cursor = await db.queryAsync(PAIRS);
    const during = ticks;
    assert.deepEqual(await cursor.allAsync(), [[4000000]]);
    assert.ok(during > 0, 'the interval fired while the query ran');
    const before = ticks;
    db.query(PAIRS).all(); // the sync call holds the event loop
    assert.equal(ticks, before);
  } finally {
    clearInterval(timer);
  }
  db.close();
});

test(
  'an AbortSignal stops a running async query with its reason',
  { timeout: 60_000 },
  async () => {
    const db = numbers(1000); // 10^9 joined rows: minutes unless stopped
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(db.queryAsync(TRIPLES, { signal: controller.signal }), {
      name: 'AbortError',
    });
    await assert.rejects(db.executeAsync(TRIPLES, { signal: AbortSignal.abort() }), {
      name: 'AbortError',
    });
    assert.deepEqual(
      db.query('(query [:find (count ?x) :where [_ :n ?x]])').all(),
      [[1000]],
      'still usable',
    );
    const pq = db.prepare(
      '(query [:find (count ?x) :where [?a :n ?x] [?b :n ?y] [?c :n ?z] [(>= ?z $z)]])',
    );
    const second = new AbortController();
    setTimeout(() => second.abort(new Error('mine')), 20);
    await assert.rejects(pq.allAsync({ z: 1 }, { signal: second.signal }), { message: 'mine' });
    await assert.rejects(db.queryAsync(TRIPLES, { signal: 'no' }), TypeError);
    db.close();
  },
);

test(
  'db.interrupt() stops the calls running on the database with API-013',
  { timeout: 60_000 },
  async () => {
    const db = numbers(1000);
    const running = db.queryAsync(TRIPLES);
    // A call that starts after an interrupt is not affected: interrupt until
    // the pool thread has begun it and stops.
    const timer = setInterval(() => db.interrupt(), 10);
    try {
      await assert.rejects(running, { code: 'API-013' });
    } finally {
      clearInterval(timer);
    }
    assert.deepEqual(db.query('(query [:find (count ?x) :where [_ :n ?x]])').all(), [[1000]]);
    db.close();
  },
);

test('setProgressHandler: a truthy return stops the call, a throw propagates, null removes it', () => {
  const db = numbers(100);
  let calls = 0;
  db.setProgressHandler(10, () => {
    calls += 1;
    return calls > 3;
  });
  assert.throws(() => db.query(PAIRS), {
    code: 'API-013',
    message: '[API-013] interrupted by the progress handler',
  });
  assert.equal(calls, 4);
  db.setProgressHandler(10, () => {
    throw new Error('from the handler');
  });
  assert.throws(() => db.query(PAIRS), { message: 'from the handler' });
  db.setProgressHandler(null);
  assert.deepEqual(db.query(PAIRS).all(), [[10000]]);
  assert.throws(() => db.setProgressHandler(0, () => true), { code: 'API-017' });
  db.close();
});

test('4 concurrent async queries on one database all answer', async () => {
  const db = numbers(500);
  const results = await Promise.all(
    [1, 2, 3, 4].map(() => db.queryAsync(PAIRS).then((c) => c.allAsync())),
  );
  assert.deepEqual(results, Array(4).fill([[250000]]));
  db.close();
});
