'use strict';
// Errors: MinigrafError for what the library reports, TypeError for misuse.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const minigraf = require('..');

test('a library error is a MinigrafError with code, errno and message', () => {
  const db = minigraf.openInMemory();
  assert.throws(
    () => db.execute('(frobnicate)'),
    (error) => {
      assert.ok(error instanceof minigraf.MinigrafError);
      assert.ok(error instanceof Error);
      assert.equal(error.name, 'MinigrafError');
      assert.equal(error.code, 'PRS-011');
      assert.equal(error.errno, 1011);
      assert.match(error.message, /^\[PRS-011\] /);
      assert.ok(error.stack.includes('MinigrafError'));
      return true;
    },
  );
  db.close();
});

test('an error leaves the database usable', () => {
  const db = minigraf.openInMemory();
  assert.throws(() => db.execute('(query [:find ?x :where [?x :a 1]]'), minigraf.MinigrafError);
  db.execute('(transact [[:a :n 1]])');
  assert.equal(db.txCount(), 1);
  db.close();
});

test('executeAsync rejects with the same MinigrafError', async () => {
  const db = minigraf.openInMemory();
  await assert.rejects(db.executeAsync('(frobnicate)'), {
    name: 'MinigrafError',
    code: 'PRS-011',
    errno: 1011,
  });
  db.close();
});

test('wrong argument types are TypeErrors', async () => {
  const db = minigraf.openInMemory();
  for (const bad of [undefined, null, 42, {}, ['(transact [])'], Symbol('x')]) {
    assert.throws(() => db.execute(bad), TypeError);
    assert.throws(() => db.query(bad), TypeError);
    await assert.rejects(db.executeAsync(bad), TypeError);
  }
  db.close();
});

test('methods called on the wrong object are TypeErrors', () => {
  const db = minigraf.openInMemory();
  const cursor = db.query('(query [:find ?x :where [?x :a 1]])');
  assert.throws(() => minigraf.Database.prototype.execute.call({}, '(transact [])'), TypeError);
  assert.throws(() => minigraf.Database.prototype.execute.call(cursor, '(transact [])'), TypeError);
  assert.throws(() => minigraf.Cursor.prototype.nextBatch.call(db, 1), TypeError);
  cursor.close();
  db.close();
});

test('the addon type-checks its handles: a wrong object is a TypeError, not a crash', () => {
  const native = require('node-gyp-build')(path.join(__dirname, '..')); // the addon index.js loads
  const db = native.dbOpen(null, null);
  native.dbExecute(db, '(transact [[:p :a 1] [:q :a 1]])');
  // Two rows, one read with the query: the cursor stays open for the other.
  const [cursor] = native.dbQuery(db, '(query [:find ?x :where [?x :a 1]])', 1, 0);
  assert.throws(() => native.dbQuery(db, '(query [:find ?x :where [?x :a 1]])', 'x', 0), TypeError);
  assert.throws(() => native.dbQuery(db, '(query [:find ?x :where [?x :a 1]])', 1, 'x'), TypeError);
  for (const bad of [{}, [], null, 1, 'db', cursor, Object.create(db)]) {
    assert.throws(() => native.dbExecute(bad, '(transact [])'), TypeError);
    assert.throws(() => native.dbClose(bad), TypeError);
  }
  assert.throws(() => native.cursorRows(db, 1, 0, null), TypeError);
  assert.throws(() => native.cursorRows(cursor, 'x', 0, null), TypeError);
  assert.throws(() => native.cursorRows(cursor, -1, 0, null), RangeError);
  assert.throws(() => native.cursorRows(cursor, Infinity, 0, null), RangeError);
  assert.throws(() => native.cursorRows(cursor, 1, 'x', null), TypeError);
  assert.throws(() => native.stmtBind(cursor, []), TypeError);
  assert.throws(() => native.txCommit(db), TypeError);
  assert.throws(() => native.abortFire(db), TypeError);
  assert.throws(() => native.dbRegisterPredicate(db, 'p?', 'not a function', 0), TypeError);
  assert.throws(() => native.dbOpen(5, null), TypeError);
  native.cursorClose(cursor);
  native.cursorClose(cursor);
  assert.throws(() => native.cursorRows(cursor, 1, 0, null), { code: 'API-018' });
  native.dbClose(db);
  assert.throws(() => native.dbExecute(db, '(transact [])'), { code: 'API-018' });
});
