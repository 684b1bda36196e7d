'use strict';
// The log writer and db.export: round trips, abandoning, errors.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const minigraf = require('..');

const FOREVER = 9223372036854775807n;
const ALICE = '11111111-2222-4333-8444-555555555555';

let dir;
test.before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minigraf-node-writer-'));
});
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

let counter = 0;
const fresh = (name = 'db') => path.join(dir, `${name}-${++counter}.graph`);

const gone = (file) => !fs.existsSync(file) && !fs.existsSync(`${file}.wal`);

/** A record as the fact log yields them. */
function record(txCount, attribute, type, value, extra = {}) {
  const ms = 1717000000000 + txCount;
  return {
    entity: ALICE,
    attribute,
    value: { type, value },
    tx_count: txCount,
    tx_id: ms,
    valid_from: ms,
    valid_to: FOREVER,
    asserted: true,
    ...extra,
  };
}

/** Every record, nothing left out: tx_id and valid_from round-trip too. */
const log = (db) => [...db.factLog()];

const Q = (attr) => `(query [:find ?v :where [?e ${attr} ?v]])`;

test('export round-trips every value type, history and the counter', () => {
  const source = minigraf.open(fresh('source'));
  source.execute(`(transact [[:r :s "non-BMP 😀 𝄞, \\"q\\" \\\\ é"] [:r :i 9223372036854775807]
    [:r :j -9223372036854775808] [:r :k 9007199254740993] [:r :f 10.5] [:r :g 3.0]
    [:r :b false] [:r :kw :some/kw] [:r :u #uuid "550e8400-e29b-41d4-a716-446655440000"]
    [:r :z nil] [:r :ref :other]])`);
  source.execute('(transact [])'); // an empty transaction still counts
  source.execute('(retract [[:r :b false]])');
  source.execute('(transact [[:r :b true]])');
  const target = fresh('copy');
  source.export(target);

  const copy = minigraf.open(target);
  assert.deepEqual(log(copy), log(source));
  assert.equal(copy.txCount(), source.txCount());
  assert.equal(copy.txCount(), 4);
  for (const attr of [':s', ':i', ':j', ':k', ':f', ':g', ':b', ':kw', ':u', ':z', ':ref']) {
    assert.deepEqual(copy.execute(Q(attr)), source.execute(Q(attr)), attr);
  }
  const asOf = '(query [:find ?v :as-of 1 :where [?e :b ?v]])';
  assert.deepEqual(copy.execute(asOf), source.execute(asOf));

  const values = Object.fromEntries(
    log(copy)
      .filter((r) => r.tx_count === 1)
      .map((r) => [r.attribute, r.value]),
  );
  assert.deepEqual(values[':i'], { type: 'integer', value: 9223372036854775807n });
  assert.deepEqual(values[':j'], { type: 'integer', value: -9223372036854775808n });
  assert.deepEqual(values[':k'], { type: 'integer', value: 9007199254740993n });
  assert.deepEqual(values[':g'], { type: 'float', value: 3 }); // still a float
  assert.deepEqual(values[':s'], { type: 'string', value: 'non-BMP 😀 𝄞, "q" \\ é' });
  assert.equal(values[':kw'].type, 'keyword');
  assert.equal(values[':u'].type, 'ref');
  assert.equal(values[':z'].type, 'null');
  source.close();
  copy.close();
});

test('records appended from JS: BigInt, NaN, ±Infinity, -0, integral floats, non-BMP', () => {
  const file = fresh();
  const records = [
    record(1, ':big', 'integer', 9223372036854775807n),
    record(1, ':neg', 'integer', -9223372036854775808n),
    record(1, ':nan', 'float', NaN), // a JS NaN is written as the typed "NaN"
    record(1, ':inf', 'float', 'Infinity'),
    record(1, ':ninf', 'float', -Infinity),
    record(1, ':negzero', 'float', -0),
    record(1, ':three', 'float', 3), // written 3.0: stays a float
    record(1, ':small', 'float', 1e-7),
    record(1, ':huge', 'float', 1e300),
    record(1, ':s', 'string', '😀 𝄞 \u0001 "\\'),
    record(1, ':kw', 'keyword', ':a/b'),
    record(1, ':b', 'boolean', true),
    record(1, ':z', 'null', null),
  ];
  const writer = minigraf.createLogWriter(file);
  writer.append(records[0]);
  writer.appendBatch(records.slice(1, 5));
  writer.appendBatch(new Set(records.slice(5))); // any iterable
  assert.equal(writer.txCount(), 1);
  writer.advanceTxCount(3n);
  assert.equal(writer.txCount(), 3);
  writer.finish();
  assert.equal(writer.finished, true);
  writer.close();

  const db = minigraf.open(file);
  assert.equal(db.txCount(), 3);
  const got = Object.fromEntries(log(db).map((r) => [r.attribute, r.value]));
  assert.deepEqual(got[':big'], { type: 'integer', value: 9223372036854775807n });
  assert.deepEqual(got[':neg'], { type: 'integer', value: -9223372036854775808n });
  assert.deepEqual(got[':nan'], { type: 'float', value: 'NaN' });
  assert.deepEqual(got[':inf'], { type: 'float', value: 'Infinity' });
  assert.deepEqual(got[':ninf'], { type: 'float', value: '-Infinity' });
  assert.ok(Object.is(got[':negzero'].value, -0));
  assert.deepEqual(got[':three'], { type: 'float', value: 3 });
  assert.deepEqual(got[':small'], { type: 'float', value: 1e-7 });
  assert.deepEqual(got[':huge'], { type: 'float', value: 1e300 });
  assert.deepEqual(got[':s'], { type: 'string', value: '😀 𝄞 \u0001 "\\' });
  assert.deepEqual(got[':kw'], { type: 'keyword', value: ':a/b' });
  assert.deepEqual(got[':b'], { type: 'boolean', value: true });
  assert.deepEqual(got[':z'], { type: 'null', value: null });
  const [r0] = log(db);
  assert.equal(r0.tx_id, 1717000000001);
  assert.equal(r0.valid_to, FOREVER);
  // Query answers render non-finite floats as null, integers exactly.
  assert.deepEqual(db.execute(Q(':nan')).results, [[null]]);
  assert.deepEqual(db.execute(Q(':big')).results, [[9223372036854775807n]]);
  db.close();
});

test('close() before finish() abandons the writer and deletes the file', () => {
  const file = fresh();
  const writer = minigraf.createLogWriter(pathToFileURL(file));
  writer.append(record(1, ':a', 'integer', 1));
  writer.advanceTxCount(5);
  writer.close();
  writer.close();
  assert.equal(writer.closed, true);
  assert.equal(writer.finished, false);
  assert.ok(gone(file));
  assert.throws(() => writer.append(record(6, ':a', 'integer', 1)), {
    name: 'MinigrafError',
    code: 'API-018',
    errno: 5018,
  });
  // The path is free again.
  minigraf.createLogWriter(file).close();
  assert.ok(gone(file));
});

test(
  'Symbol.dispose abandons an unfinished writer',
  { skip: typeof Symbol.dispose !== 'symbol' },
  () => {
    const file = fresh();
    const writer = minigraf.createLogWriter(file);
    writer.append(record(1, ':a', 'integer', 1));
    writer[Symbol.dispose]();
    assert.ok(gone(file));
  },
);

test('a finished writer keeps its file when closed', () => {
  const file = fresh();
  const writer = minigraf.createLogWriter(file, { synchronous: 'normal', pageCacheSize: 16 });
  writer.finish();
  writer.close();
  assert.ok(fs.existsSync(file));
  const db = minigraf.open(file);
  assert.equal(db.txCount(), 0);
  assert.deepEqual(log(db), []);
  db.close();
});

test('errors carry the library code and errno', () => {
  const existing = fresh();
  minigraf.open(existing).close();
  assert.throws(() => minigraf.createLogWriter(existing), {
    name: 'MinigrafError',
    code: 'STG-043',
    errno: 3043,
  });

  const file = fresh();
  const writer = minigraf.createLogWriter(file);
  writer.append(record(2, ':a', 'integer', 1));
  assert.throws(
    () => writer.append(record(1, ':a', 'integer', 1)), // decreasing tx_count
    (e) =>
      e instanceof minigraf.MinigrafError &&
      e.code === 'API-017' &&
      e.errno === 5017 &&
      e.message.startsWith('[API-017] '),
  );
  assert.throws(() => writer.append({ entity: ALICE }), { code: 'API-017' }); // malformed
  assert.throws(
    () => writer.append(record(3, ':a', 'integer', 1, { valid_to: 5, valid_from: 5 })),
    { code: 'API-017' },
  ); // empty window
  assert.throws(() => writer.append(record(3, ':a', 'bogus-type', 1)), { code: 'API-017' });
  // all or nothing: a bad record in a batch appends none of it
  assert.throws(() => writer.appendBatch([record(3, ':a', 'integer', 1), { nope: true }]), {
    code: 'API-017',
  });
  assert.equal(writer.txCount(), 2);
  assert.throws(() => writer.advanceTxCount(1), { code: 'API-017' });
  assert.throws(() => writer.advanceTxCount(-1), RangeError);
  assert.throws(() => writer.advanceTxCount(1.5), RangeError);
  assert.throws(() => writer.advanceTxCount(2n ** 64n), RangeError);
  assert.throws(() => writer.advanceTxCount('3'), TypeError);
  // JS-side type errors
  for (const bad of [null, undefined, 5, 'x', [record(3, ':a', 'integer', 1)]]) {
    assert.throws(() => writer.append(bad), TypeError);
  }
  assert.throws(() => writer.appendBatch(record(3, ':a', 'integer', 1)), TypeError);
  assert.throws(() => writer.appendBatch([5]), TypeError);
  assert.throws(() => writer.append(record(3, ':a', 'integer', NaN)), TypeError);
  const cyclic = record(3, ':a', 'integer', 1);
  cyclic.self = cyclic;
  assert.throws(() => writer.append(cyclic), TypeError);

  writer.finish();
  assert.throws(() => writer.finish(), { code: 'API-018' });
  assert.throws(() => writer.append(record(3, ':a', 'integer', 1)), { code: 'API-018' });
  writer.close();
  const db = minigraf.open(file);
  assert.equal(db.txCount(), 2);
  assert.equal(log(db).length, 1);
  db.close();

  for (const bad of [undefined, null, 5, ''])
    assert.throws(() => minigraf.createLogWriter(bad), TypeError);
  assert.throws(() => minigraf.createLogWriter(fresh(), { bogus: 1 }), TypeError);
  assert.throws(() => minigraf.createLogWriter(fresh(), { synchronous: true }), TypeError);
  assert.throws(() => minigraf.createLogWriter(fresh(), { synchronous: 'sometimes' }), {
    code: 'API-017',
  });
});

test('export to an existing file fails and leaves it alone; a failed export leaves nothing', () => {
  const db = minigraf.openInMemory();
  db.execute('(transact [[:a :n 1]])');
  const existing = fresh();
  fs.writeFileSync(existing, 'not mine');
  assert.throws(() => db.export(existing), { code: 'STG-043' });
  assert.equal(fs.readFileSync(existing, 'utf8'), 'not mine');
  db.close();
  const target = fresh();
  assert.throws(() => db.export(target), { code: 'API-018' });
  assert.ok(gone(target));
});

test('export of an in-memory database, to a file URL', () => {
  const db = minigraf.openInMemory();
  for (let i = 0; i < 3000; i++) db.execute(`(transact [[:e${i % 7} :n ${i}]])`);
  const target = fresh();
  db.export(pathToFileURL(target));
  const copy = minigraf.open(target);
  assert.equal(copy.txCount(), 3000);
  assert.deepEqual(log(copy), log(db));
  copy.close();
  db.close();
});

test('the addon type-checks fact log and writer handles', () => {
  const native = require('node-gyp-build')(path.join(__dirname, '..')); // the addon index.js loads
  const db = native.dbOpen(null, null);
  const factLog = native.dbFactLog(db, null);
  const file = fresh();
  const writer = native.logWriterCreate(file, null);
  for (const bad of [{}, db, writer, null]) {
    assert.throws(() => native.factLogNextBatch(bad, 1), TypeError);
  }
  for (const bad of [{}, db, factLog, null]) {
    assert.throws(() => native.logWriterAppend(bad, '{}'), TypeError);
    assert.throws(() => native.logWriterClose(bad), TypeError);
  }
  assert.throws(() => native.dbExport(writer, fresh(), null), TypeError);
  assert.throws(() => native.logWriterAppend(writer, 5), TypeError);
  assert.throws(() => native.logWriterAppend(writer, 'not json'), { code: 'API-017' });
  assert.equal(native.factLogNextBatch(factLog, 10), null); // empty database
  native.factLogClose(factLog);
  assert.throws(() => native.factLogNextBatch(factLog, 1), { code: 'API-018' });
  native.logWriterClose(writer);
  native.dbClose(db);
  assert.ok(gone(file));
});
