'use strict';
// Write transactions: transaction(fn) like better-sqlite3, and beginWrite().
const test = require('node:test');
const assert = require('node:assert/strict');
const minigraf = require('..');

const count = (db) => db.query('(query [:find (count ?e) :where [?e :n _]])').all()[0]?.[0] ?? 0;

test("transaction(fn) commits once and returns fn's result; db calls inside go to it", () => {
  const db = minigraf.openInMemory();
  const add = db.transaction((a, b) => {
    db.execute(`(transact [[:a :n ${a}]])`);
    db.execute(`(transact [[:b :n ${b}]])`);
    assert.equal(db.inTransaction, true);
    return count(db); // sees its staged statements
  });
  assert.equal(add(1, 2), 2);
  assert.equal(db.inTransaction, false);
  assert.equal(db.txCount(), 1, 'two statements, one commit');
  assert.equal(count(db), 2);
  db.close();
});

test('a throw rolls back and propagates; nested functions join the outer one', () => {
  const db = minigraf.openInMemory();
  const inner = db.transaction(() => db.execute('(transact [[:c :n 3]])'));
  const failing = db.transaction(() => {
    inner();
    throw new Error('boom');
  });
  assert.throws(failing, /boom/);
  assert.equal(count(db), 0);
  assert.equal(db.txCount(), 0);
  assert.throws(() => db.transaction(async () => {})(), TypeError);
  assert.equal(count(db), 0);
  db.close();
});

test('beginWrite: staged writes are invisible to the database until commit', () => {
  const db = minigraf.openInMemory();
  const tx = db.beginWrite();
  assert.deepEqual(tx.execute('(transact [[:a :n 1]])'), { ok: true });
  assert.deepEqual(tx.query('(query [:find ?v :where [:a :n ?v]])').all(), [[1]]);
  assert.equal(count(db), 0);
  assert.throws(() => db.execute('(transact [[:x :n 9]])'), { code: 'INT-003' });
  assert.throws(() => db.beginWrite(), { code: 'INT-003' });
  tx.commit();
  assert.equal(tx.active, false);
  assert.equal(count(db), 1);
  assert.throws(() => tx.execute('(transact [[:b :n 2]])'), { code: 'API-018' });
  tx.close();
  const tx2 = db.beginWrite();
  tx2.execute('(transact [[:b :n 2]])');
  tx2.rollback();
  assert.equal(count(db), 1);
  tx2.close();
  db.close();
});

test('closing the database rolls an open transaction back; closing a transaction does too', () => {
  const dir = require('node:fs').mkdtempSync(
    require('node:path').join(require('node:os').tmpdir(), 'mg-tx-'),
  );
  const file = require('node:path').join(dir, 'db.graph');
  let db = minigraf.open(file);
  const tx = db.beginWrite();
  tx.execute('(transact [[:a :n 1]])');
  db.close();
  assert.throws(() => tx.commit(), { code: 'API-018' });
  tx.close();
  db = minigraf.open(file);
  assert.equal(count(db), 0);
  const tx2 = db.beginWrite();
  tx2.execute('(transact [[:a :n 1]])');
  tx2.close(); // uncommitted: rolled back
  db.execute('(transact [[:b :n 2]])'); // the writer is free again
  assert.equal(count(db), 1);
  db.close();
  require('node:fs').rmSync(dir, { recursive: true });
});
