'use strict';
// The fact log: records, filters, both iterator protocols, lifetimes.
const test = require('node:test');
const assert = require('node:assert/strict');
const minigraf = require('..');

const FOREVER = 9223372036854775807n;

/** Three transactions: ages for three people, then one retraction. */
function people() {
  const db = minigraf.openInMemory();
  db.execute('(transact [[:alice :person/age 30] [:alice :person/name "Alice"]])');
  db.execute('(transact [[:bob :person/age 40] [:bob :person/name "Bob"]])');
  db.execute('(transact [[:carol :person/age 50] [:carol :pet/name "Rex"]])');
  db.execute('(retract [[:bob :person/age 40]])');
  return db;
}

test('a record has the library keys, a typed value and exact integers', () => {
  const db = people();
  const [first] = db.factLog({ attributes: [':person/age'] });
  assert.deepEqual(Object.keys(first), [
    'entity',
    'attribute',
    'value',
    'tx_count',
    'tx_id',
    'valid_from',
    'valid_to',
    'asserted',
  ]);
  assert.match(first.entity, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.equal(first.attribute, ':person/age');
  assert.deepEqual(first.value, { type: 'integer', value: 30 });
  assert.equal(first.tx_count, 1);
  assert.equal(typeof first.tx_id, 'number');
  assert.equal(first.valid_from, first.tx_id);
  assert.equal(first.valid_to, FOREVER); // beyond 2^53: a BigInt, exact
  assert.equal(first.asserted, true);
  db.close();
});

test('for...of yields every record in tx order and closes the log', () => {
  const db = people();
  const log = db.factLog();
  const records = [...log];
  assert.equal(log.closed, true);
  assert.equal(records.length, 7); // 6 assertions + 1 retraction
  assert.deepEqual(
    records.map((r) => r.tx_count),
    [1, 1, 2, 2, 3, 3, 4],
  );
  assert.deepEqual(records.map((r) => r.attribute).slice(0, 2), [':person/age', ':person/name']);
  const last = records.at(-1);
  assert.equal(last.asserted, false);
  assert.deepEqual(last.value, { type: 'integer', value: 40 });
  db.close();
});

test('for await...of yields the same records', async () => {
  const db = people();
  const sync = [...db.factLog()];
  const log = db.factLog();
  const records = [];
  for await (const record of log) records.push(record);
  assert.deepEqual(records, sync);
  assert.equal(log.closed, true);
  db.close();
});

test('breaking out of a loop closes the log', async () => {
  const db = people();
  const log = db.factLog();
  for (const record of log) {
    assert.equal(record.tx_count, 1);
    break;
  }
  assert.equal(log.closed, true);
  assert.throws(() => log.nextBatch(), { name: 'MinigrafError', code: 'API-018', errno: 5018 });
  const asyncLog = db.factLog();
  for await (const record of asyncLog) {
    assert.equal(record.tx_count, 1);
    break;
  }
  assert.equal(asyncLog.closed, true);
  await assert.rejects(asyncLog.nextBatchAsync(), { code: 'API-018' });
  db.close();
});

test('nextBatch(n) returns at most n records, then null, and keeps returning null', async () => {
  const db = people();
  const log = db.factLog();
  const sizes = [];
  for (let batch; (batch = log.nextBatch(2)) !== null;) sizes.push(batch.length);
  assert.deepEqual(sizes, [2, 2, 2, 1]);
  assert.equal(log.nextBatch(2), null);
  log.close();
  log.close();
  const asyncLog = db.factLog();
  assert.equal((await asyncLog.nextBatchAsync(0)).length, 1); // 0 counts as 1
  assert.equal((await asyncLog.nextBatchAsync(100)).length, 6);
  assert.equal(await asyncLog.nextBatchAsync(100), null);
  asyncLog.close();
  assert.throws(() => db.factLog().nextBatch(-1), RangeError);
  assert.throws(() => db.factLog().nextBatch('2'), TypeError);
  db.close();
});

test('filters map to the library keys', () => {
  const db = people();
  const attrs = (filter) => [...db.factLog(filter)].map((r) => `${r.tx_count}${r.attribute}`);
  assert.deepEqual(attrs({ attributes: [':pet/name'] }), ['3:pet/name']);
  assert.deepEqual(attrs({ attributePrefixes: [':pet/'] }), ['3:pet/name']);
  assert.deepEqual(attrs({ attributes: [':pet/name'], attributePrefixes: [':person/n'] }), [
    '1:person/name',
    '2:person/name',
    '3:pet/name',
  ]);
  assert.deepEqual(attrs({ txFrom: 2, txTo: 3n }), [
    '2:person/age',
    '2:person/name',
    '3:person/age',
    '3:pet/name',
  ]);
  assert.deepEqual(attrs({ txFrom: 4, attributes: undefined }), ['4:person/age']);

  const alice = [...db.factLog({ txTo: 1 })][0].entity;
  const mine = [...db.factLog({ entities: [alice] })];
  assert.equal(mine.length, 2);
  assert.ok(mine.every((r) => r.entity === alice));

  // storage order: the entity index, so each entity's records are adjacent
  const storage = [...db.factLog({ order: 'storage' })];
  const key = (r) => `${r.tx_count} ${r.entity} ${r.attribute} ${r.asserted}`;
  assert.deepEqual(storage.map(key).sort(), [...db.factLog()].map(key).sort());
  const runs = storage.map((r) => r.entity).filter((e, i, all) => i === 0 || all[i - 1] !== e);
  assert.equal(runs.length, new Set(runs).size);

  const [{ valid_from: t1 }] = db.factLog({ txTo: 1 });
  // before any assertion: only the retraction, whose window starts at 0
  assert.deepEqual(attrs({ window: { from: 0, to: 1 } }), ['4:person/age']);
  assert.equal(attrs({ window: { from: t1 } }).length, 7);
  assert.equal(attrs({ window: { to: FOREVER } }).length, 7);
  db.close();
});

test('the log is a snapshot: later commits are not seen', () => {
  const db = people();
  const log = db.factLog();
  db.execute('(transact [[:dave :person/age 60]])');
  assert.equal([...log].length, 7);
  assert.equal([...db.factLog()].length, 8);
  db.close();
});

test('the library judges the filter: API-017 for unknown keys and wrong types', () => {
  const db = people();
  for (const filter of [
    { bogus: 1 },
    { attributes: ':person/age' },
    { txFrom: 'x' },
    { order: 'random' },
    { window: 5 },
    { tx_from: 1, bogus: true },
  ]) {
    assert.throws(
      () => db.factLog(filter),
      { name: 'MinigrafError', code: 'API-017', errno: 5017 },
      JSON.stringify(filter),
    );
  }
  for (const filter of [5, 'tx', [1], () => 1]) assert.throws(() => db.factLog(filter), TypeError);
  assert.throws(() => db.factLog({ txFrom: () => 1 }), TypeError); // not JSON at all
  db.close();
  assert.throws(() => db.factLog(), { code: 'API-018' });
});

test('closing the database ends its fact logs with API-018', async () => {
  const db = people();
  const log = db.factLog();
  assert.equal(log.nextBatch(2).length, 2);
  const asyncLog = db.factLog();
  db.close();
  assert.throws(() => log.nextBatch(2), { name: 'MinigrafError', code: 'API-018', errno: 5018 });
  await assert.rejects(asyncLog.nextBatchAsync(2), { code: 'API-018' });
  log.close();
  asyncLog.close();
});

test('Symbol.dispose closes the log', { skip: typeof Symbol.dispose !== 'symbol' }, () => {
  const db = people();
  const log = db.factLog();
  log[Symbol.dispose]();
  assert.equal(log.closed, true);
  db.close();
});

test('nextBatchAsync takes an AbortSignal', async () => {
  const db = minigraf.openInMemory();
  db.execute('(transact [[:a :n 1]])');
  const log = db.factLog();
  await assert.rejects(log.nextBatchAsync(10, { signal: AbortSignal.abort() }), {
    name: 'AbortError',
  });
  assert.equal((await log.nextBatchAsync(10, { signal: new AbortController().signal })).length, 1);
  log.close();
  db.close();
});
