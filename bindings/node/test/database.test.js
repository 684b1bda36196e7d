'use strict';
// Opening, executing, closing: the Database half of the API.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const minigraf = require('..');

function tempDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minigraf-node-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('execute returns the result object of each command', () => {
  const db = minigraf.openInMemory();
  const tx = db.execute('(transact [[:alice :person/name "Alice"] [:alice :person/age 30]])');
  assert.deepEqual(Object.keys(tx), ['transacted']);
  assert.ok(Number.isSafeInteger(tx.transacted) && tx.transacted > 0);
  assert.deepEqual(
    db.execute('(query [:find ?name ?age :where [?e :person/name ?name] [?e :person/age ?age]])'),
    { variables: ['?name', '?age'], results: [['Alice', 30]] },
  );
  const retracted = db.execute('(retract [[:alice :person/age 30]])');
  assert.deepEqual(Object.keys(retracted), ['retracted']);
  db.close();
});

test('txCount counts committed transactions', () => {
  const db = minigraf.openInMemory();
  assert.equal(db.txCount(), 0);
  db.execute('(transact [[:a :n 1]])');
  db.execute('(transact [[:a :n 2]])');
  assert.equal(db.txCount(), 2);
  db.close();
});

test('a file database keeps its data across close and open', (t) => {
  const file = path.join(tempDir(t), 'people.graph');
  const db = minigraf.open(file);
  db.execute('(transact [[:bob :name "Bob"]])');
  db.checkpoint();
  db.close();

  const again = minigraf.open(pathToFileURL(file)); // a file: URL works too
  assert.deepEqual(again.execute('(query [:find ?n :where [:bob :name ?n]])').results, [['Bob']]);
  assert.equal(again.txCount(), 1);
  again.close();
});

test('readOnly rejects writes with API-014', (t) => {
  const file = path.join(tempDir(t), 'ro.graph');
  minigraf.open(file).close();
  const db = minigraf.open(file, { readOnly: true });
  assert.throws(() => db.execute('(transact [[:a :n 1]])'), {
    name: 'MinigrafError',
    code: 'API-014',
  });
  db.close();
});

test('options are checked: names and types in JS, ranges by the library', () => {
  assert.throws(() => minigraf.openInMemory({ bogus: 1 }), TypeError);
  assert.throws(() => minigraf.openInMemory({ readOnly: 'yes' }), TypeError);
  assert.throws(() => minigraf.openInMemory({ maxResults: 1.5 }), TypeError);
  assert.throws(() => minigraf.openInMemory({ maxResults: 0 }), { code: 'API-017', errno: 5017 });
  const db = minigraf.openInMemory({ maxResults: 10n, maxDerivedFacts: 100 });
  db.close();
});

test('open rejects bad paths', () => {
  assert.throws(() => minigraf.open(42), TypeError);
  assert.throws(() => minigraf.open(''), TypeError);
  assert.throws(() => minigraf.open('/nonexistent-dir/sub/db.graph'), minigraf.MinigrafError);
});

test('close is idempotent and later use throws API-018', () => {
  const db = minigraf.openInMemory();
  db.close();
  db.close();
  assert.equal(db.closed, true);
  for (const use of [
    () => db.execute('(transact [])'),
    () => db.query('(query [:find ?x :where [?x :a 1]])'),
    () => db.txCount(),
    () => db.checkpoint(),
  ]) {
    assert.throws(use, (error) => {
      assert.ok(error instanceof minigraf.MinigrafError);
      assert.equal(error.code, 'API-018');
      assert.equal(error.errno, 5018);
      assert.match(error.message, /^\[API-018\] /);
      return true;
    });
  }
});

test('executeAsync after close rejects with API-018', async () => {
  const db = minigraf.openInMemory();
  db.close();
  await assert.rejects(db.executeAsync('(transact [])'), { code: 'API-018' });
});

test('Symbol.dispose closes the database', { skip: typeof Symbol.dispose !== 'symbol' }, () => {
  const db = minigraf.openInMemory();
  db[Symbol.dispose]();
  assert.equal(db.closed, true);
});

test('handles come only from open() and query()', () => {
  assert.throws(() => new minigraf.Database(), TypeError);
  assert.throws(() => new minigraf.Cursor(), TypeError);
});

test('the package reports its versions', () => {
  assert.equal(minigraf.version, '0.2.0');
  assert.equal(minigraf.ABI_VERSION, 1);
});
