'use strict';
// Prepared queries: typed binds in, typed rows out, the same values both ways.
const test = require('node:test');
const assert = require('node:assert/strict');
const minigraf = require('..');

const { Keyword, Entity, TxCount, Timestamp, ANY_VALID_TIME } = minigraf;

function people(options) {
  const db = minigraf.openInMemory(options);
  db.execute(
    '(transact [[:alice :name "Alice"] [:alice :age 30] [:alice :tag :vip] [:alice :score 2.5]' +
      ' [:bob :name "Bob"] [:bob :age 25] [:bob :friend :alice]])',
  );
  return db;
}

test('all, get and iterate run with binds; bindings stay until re-bound or cleared', () => {
  const db = people();
  const pq = db.prepare('(query [:find ?n :where [?e :name ?n] [?e :age $age]])');
  assert.deepEqual(pq.all({ age: 30 }), [['Alice']]);
  assert.deepEqual(pq.get({ age: 25 }), ['Bob']);
  assert.equal(pq.get({ age: 99 }), undefined);
  assert.deepEqual([...pq.iterate({ age: 30 })], [['Alice']]);
  assert.deepEqual(pq.all(), [['Alice']], 'the last binding stays');
  pq.clearBindings();
  assert.throws(() => pq.all(), {
    code: 'API-015',
    message: "[API-015] missing bind value for slot '$age'",
  });
  assert.deepEqual(pq.objects().all({ $age: 25 }), [{ '?n': 'Bob' }], 'a leading $ is accepted');
  pq.close();
  assert.throws(() => pq.all(), { code: 'API-018' });
  db.close();
});

test('a value read from a row binds back unchanged (entity, keyword, string, number, bigint)', () => {
  for (const safe of [false, true]) {
    const db = people({ safeIntegers: safe });
    const [alice, age, tag, score] = db
      .query(
        '(query [:find ?e ?a ?t ?s :where [?e :name "Alice"] [?e :age ?a] [?e :tag ?t] [?e :score ?s]])',
      )
      .all()[0];
    assert.ok(alice instanceof Entity);
    assert.ok(tag instanceof Keyword);
    assert.equal(typeof age, safe ? 'bigint' : 'number');
    const byEntity = db.prepare('(query [:find ?n :where [$e :name ?n]])');
    assert.deepEqual(byEntity.all({ e: alice }), [['Alice']]);
    const byValue = db.prepare(
      '(query [:find ?n :where [?e :name ?n] [?e :age $a] [?e :tag $t] [?e :score $s]])',
    );
    assert.deepEqual(byValue.all({ a: age, t: tag, s: score }), [['Alice']]);
    const friendOf = db.prepare('(query [:find ?n :where [?x :friend $who] [?x :name ?n]])');
    assert.deepEqual(
      friendOf.all({ who: alice }),
      [['Bob']],
      'an Entity in value position is Val(ref)',
    );
    db.close();
  }
});

test('bind errors carry their spec codes; a wrong JS type is a TypeError', () => {
  const db = people();
  const pq = db.prepare('(query [:find ?n :where [$e :name ?n]])');
  assert.throws(() => pq.bind({ e: 'not an entity' }), { code: 'API-015' });
  assert.throws(() => pq.bind({ e: {} }), TypeError);
  assert.throws(() => pq.bind({ e: Symbol('x') }), TypeError);
  assert.throws(() => new Entity('nope'), TypeError);
  assert.throws(() => new Keyword('nope'), TypeError);
  assert.throws(() => db.prepare('(transact [[:a :b 1]])'), { code: 'API-005' });
  assert.throws(() => db.prepare('(query [:find ?v :where [?e $a ?v]])'), { code: 'API-015' });
  assert.throws(() => pq.bindJson('{"e": 1}'), { code: 'API-017' });
  db.close();
});

test(':as-of and :valid-at slots take TxCount, Timestamp, Date and ANY_VALID_TIME', () => {
  const db = minigraf.openInMemory();
  db.execute('(transact [[:a :v 1]])');
  db.execute('(transact [[:a :v 2]])');
  const asOf = db.prepare('(query [:find ?v :as-of $t :where [:a :v ?v]])');
  assert.deepEqual(asOf.all({ t: new TxCount(1) }), [[1]]);
  assert.deepEqual(asOf.all({ t: new TxCount(2n) }).sort(), [[1], [2]]);
  assert.deepEqual(asOf.all({ t: new Timestamp(0) }), []);
  assert.deepEqual(asOf.all({ t: new Date(0) }), []);
  const validAt = db.prepare('(query [:find ?v :valid-at $t :where [:a :v ?v]])');
  assert.deepEqual(validAt.all({ t: ANY_VALID_TIME }).sort(), [[1], [2]]);
  assert.throws(() => new TxCount(-1), RangeError);
  db.close();
});

test('execute on a prepared query gives the JSON result object, as Database.execute', () => {
  const db = people();
  const pq = db.prepare('(query [:find ?n :where [?e :name ?n] [?e :age $age]])');
  assert.deepEqual(pq.execute({ age: 30 }), { variables: ['?n'], results: [['Alice']] });
  db.close();
});

test('a number binds as an integer by default and as a float with safeIntegers', () => {
  const db = minigraf.openInMemory();
  db.execute('(transact [[:i :v 30] [:f :v 30.0]])');
  const pq = db.prepare('(query [:find ?e :where [?e :v $v]])');
  const [[i]] = pq.all({ v: 30 });
  const [[f]] = pq.safeIntegers(true).all({ v: 30 });
  const [[i2]] = pq.all({ v: 30n });
  assert.notEqual(i.uuid, f.uuid);
  assert.equal(i.uuid, i2.uuid);
  db.close();
});

test('allAsync runs a whole prepared query on the pool, arrays or objects', async () => {
  const db = people();
  const pq = db.prepare('(query [:find ?n :where [?e :name ?n] [?e :age $age]])');
  assert.deepEqual(await pq.allAsync({ age: 30 }), [['Alice']]);
  assert.deepEqual(await pq.allAsync({ age: 99 }), []);
  assert.deepEqual(await pq.objects().allAsync({ age: 25 }), [{ '?n': 'Bob' }]);
  const running = pq.allAsync();
  assert.throws(() => pq.all(), TypeError, 'one call at a time');
  await running;
  db.close();
});
