'use strict';
// Regressions found by the hostile-input catalogue (tests/hostile/runner_node.js).
const test = require('node:test');
const assert = require('node:assert/strict');
const minigraf = require('..');

const API_017 = (error) =>
  error.code === 'API-017' && error.errno === 5017 && /^\[API-017\] /.test(error.message);

test('a lone surrogate in a text is API-017, never silently U+FFFD', async () => {
  const db = minigraf.openInMemory();
  for (const lone of ['\uD800', 'a\uDC00b', 'x\uDBFF']) {
    const transact = `(transact [[:a :s "${lone}"]])`;
    assert.throws(
      () => db.execute(transact),
      (e) => e instanceof minigraf.MinigrafError && API_017(e),
    );
    await assert.rejects(
      db.executeAsync(transact),
      (e) => e instanceof minigraf.MinigrafError && API_017(e),
    );
    assert.throws(() => db.query(`(query [:find ?e :where [?e :s "${lone}"]])`), API_017);
    const pq = db.prepare('(query [:find ?e :where [?e :s $v]])');
    assert.throws(() => pq.bind({ v: lone }), API_017);
    assert.throws(() => pq.bind({ v: new minigraf.Keyword(`:k${lone}`) }), API_017);
    pq.close();
  }
  assert.equal(db.query('(query [:find ?e :where [?e :s _]])').all().length, 0);
  db.close();
});

test('U+FFFD itself and surrogate pairs pass unchanged', () => {
  const db = minigraf.openInMemory();
  const text = 'r\uFFFDs \u{1F600} \uD83D\uDE00';
  db.execute(`(transact [[:a :s "${text}"]])`);
  assert.deepEqual(db.query('(query [:find ?s :where [:a :s ?s]])').all(), [[text]]);
  const pq = db.prepare('(query [:find ?e :where [?e :s $v]])');
  assert.equal(pq.all({ v: text }).length, 1);
  pq.close();
  db.close();
});

test("the package's own argument checks carry API-017, as the library's do", () => {
  const checks = [
    [() => minigraf.openInMemory({ noSuchOption: 1 }), TypeError],
    [() => minigraf.openInMemory({ readOnly: 'yes' }), TypeError],
    [() => minigraf.openInMemory({ safeIntegers: 1 }), TypeError],
    [() => new minigraf.Entity('not-a-uuid'), TypeError],
    [() => new minigraf.Keyword('no-colon'), TypeError],
    [() => new minigraf.TxCount(-1), RangeError],
    [() => new minigraf.Timestamp(1.5), RangeError],
  ];
  for (const [call, ErrorClass] of checks) {
    assert.throws(call, (e) => e instanceof ErrorClass && API_017(e));
  }
});

test('close() stops the async calls in flight on the pool, as a close in C does', async () => {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minigraf-close-'));
  const file = path.join(dir, 'db.graph');
  const db = minigraf.open(file);
  const facts = Array.from({ length: 400 }, (_, i) => `[:e${i} :n ${i}]`).join(' ');
  db.execute(`(transact [${facts}])`);
  // About 10^7 joined tuples: seconds of work, unless the close stops it.
  const heavy =
    '(query [:find (count ?c) :where [?a :n ?x] [?b :n ?y] [(< ?x ?y)] [?c :n ?z] [(< ?y ?z)]])';
  const settled = Promise.allSettled([db.executeAsync(heavy), db.queryAsync(heavy)]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  db.close();
  for (const { status, reason } of await settled) {
    assert.equal(status, 'rejected');
    assert.ok(
      reason instanceof minigraf.MinigrafError && ['API-013', 'API-018'].includes(reason.code),
      String(reason),
    );
  }
  assert.throws(() => db.execute('(transact [[:late :n 1]])'), { code: 'API-018' });
  const again = minigraf.open(file);
  assert.equal(again.query('(query [:find ?e :where [?e :n _]])').all().length, 400);
  again.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('an aggregate answering a lone surrogate fails the query instead of storing U+FFFD', () => {
  const db = minigraf.openInMemory();
  db.execute('(transact [[:a :n 1] [:b :n 2]])');
  db.aggregate('lone', { start: 0, step: (s) => s, result: () => 'x\uD800' });
  assert.throws(
    () => db.query('(query [:find (lone ?n) :where [_ :n ?n]])').all(),
    (e) => e instanceof minigraf.MinigrafError && /lone UTF-16 surrogate/.test(e.message),
  );
  db.aggregate('fine', { start: 0, step: (s) => s, result: () => 'x\uFFFD\u{1F600}' });
  assert.deepEqual(db.query('(query [:find (fine ?n) :where [_ :n ?n]])').all(), [
    ['x\uFFFD\u{1F600}'],
  ]);
  db.close();
});
