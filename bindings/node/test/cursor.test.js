'use strict';
// Cursors: batches, both iterator protocols, lifetimes.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const util = require('node:util');
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

/** `actual` is `expected` in value and type (Keywords and Entities by
 * their text, -0 apart from 0, NaN as NaN). */
function assertSameValue(actual, expected, message) {
  if (expected instanceof minigraf.Keyword || expected instanceof minigraf.Entity) {
    assert.ok(actual instanceof expected.constructor && expected.equals(actual), message);
  } else {
    assert.ok(Object.is(actual, expected), `${message}: ${util.inspect(actual)}`);
  }
}

test('every value type keeps its value and type across batch boundaries, however the rows are read', () => {
  // Row i holds a value of kind i % KINDS (written through a LogWriter,
  // which stores what the language cannot write: NaN, NUL); rows of several
  // kinds share each batch and each of the texts' pieces (over 60,000 units).
  const FOREVER = 9223372036854775807n;
  const uuid = (i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const kinds = [
    (i) => ['string', `é😀\u0000${i}${'x'.repeat(i % 50)}`, `é😀\u0000${i}${'x'.repeat(i % 50)}`],
    (i) => ['string', '', ''],
    (i) => ['integer', BigInt(i) * 3n - 100n, BigInt(i) * 3n - 100n],
    (i) => ['integer', 2n ** 63n - BigInt(i), 2n ** 63n - BigInt(i)], // beyond 2^53 - 1
    (i) => ['float', NaN, NaN],
    (i) => ['float', i % 2 ? Infinity : -Infinity, i % 2 ? Infinity : -Infinity],
    (i) => ['float', i + 0.5, i + 0.5],
    (i) => ['float', -0, -0],
    (i) => ['boolean', i % 2 === 0, i % 2 === 0],
    (i) => ['null', null, null],
    (i) => ['keyword', `:k/é${i}`, new minigraf.Keyword(`:k/é${i}`)],
    (i) => ['ref', uuid(i + 1), new minigraf.Entity(uuid(i + 1))],
  ];
  const N = 6000;
  const file = path.join(os.tmpdir(), `minigraf-node-kinds-${process.pid}.graph`);
  const writer = minigraf.createLogWriter(file);
  for (let i = 0; i < N; i++) {
    const [type, value] = kinds[i % kinds.length](i);
    const fact = { entity: uuid(i + 1), tx_count: 1, tx_id: 1, valid_from: 1, valid_to: FOREVER };
    writer.append({
      ...fact,
      attribute: ':i',
      value: { type: 'integer', value: i },
      asserted: true,
    });
    writer.append({ ...fact, attribute: ':v', value: { type, value }, asserted: true });
  }
  writer.finish();
  writer.close();
  const db = minigraf.open(file, { safeIntegers: true });
  try {
    const text = '(query [:find ?i ?v ?e :where [?e :i ?i] [?e :v ?v]])';
    const check = (rows, how) => {
      assert.equal(rows.length, N, how);
      rows.sort((a, b) => (a[0] < b[0] ? -1 : 1));
      rows.forEach(([i, v, e], n) => {
        assert.equal(i, BigInt(n), how);
        assert.ok(e instanceof minigraf.Entity && e.equals(new minigraf.Entity(uuid(n + 1))), how);
        assertSameValue(v, kinds[n % kinds.length](n)[2], `${how}: row ${n}`);
      });
    };
    const batches = (size) => {
      const cursor = db.query(text);
      const rows = [];
      for (let batch; (batch = cursor.nextBatch(size)) !== null;) rows.push(...batch);
      return rows;
    };
    check(db.query(text).all(), 'cursor.all()');
    check(batches(7), 'nextBatch(7)');
    check(batches(4096), 'nextBatch(4096)');
    const pq = db.prepare(text);
    check(pq.all(), 'prepared all()');
    check([...pq.iterate()], 'prepared iterate()');
    assert.equal(pq.get().length, 3);
    const objects = db.query(text, null, { objects: true }).all();
    check(
      objects.map((o) => [o['?i'], o['?v'], o['?e']]),
      'objects',
    );
    // Without safeIntegers the first integer beyond 2^53 - 1 throws, in any batch.
    assert.throws(() => db.query(text, null, { safeIntegers: false }).all(), {
      code: 'ERR_MINIGRAF_UNSAFE_INTEGER',
    });
  } finally {
    db.close();
    fs.rmSync(file, { force: true });
    fs.rmSync(`${file}.wal`, { force: true });
  }
});

test('an entity read from a row behaves as one made from its text', () => {
  const db = minigraf.openInMemory();
  const facts = [];
  for (let n = 0; n < 3000; n++) facts.push(`[:e${n} :n ${n}]`);
  db.execute(`(transact [${facts.join(' ')}])`);
  const rows = db.query('(query [:find ?e ?n :where [?e :n ?n]])').all();
  const [e] = rows[2999];
  Object.freeze(e); // its text is still read on first use
  const same = new minigraf.Entity(e.uuid.toUpperCase());
  assert.ok(e.equals(same) && same.equals(e));
  assert.ok(!e.equals(rows[0][0]));
  assert.equal(e.uuid, same.uuid);
  assert.equal(e.toString(), same.uuid);
  assert.equal(JSON.stringify(rows[2999]), `["${same.uuid}",${rows[2999][1]}]`);
  assert.equal(util.inspect(e), `Entity(${same.uuid})`);
  assert.deepEqual(e, same);
  const [[bound]] = db.prepare('(query [:find ?n :where [$e :n ?n]])').all({ e: rows[1][0] });
  assert.equal(bound, rows[1][1]);
  db.close();
});

test('entities of a large batch keep their text after the database closes, in any order of reading', () => {
  // A large batch's UUIDs cross in text pieces of 60,000 characters and an
  // Entity keeps its piece and offset until first read: read from the last
  // piece first, after the cursor and the database closed, against texts
  // made per row.
  const db = minigraf.openInMemory();
  const facts = [];
  for (let n = 0; n < 5000; n++) facts.push(`[:e${n} :n ${n}]`);
  db.execute(`(transact [${facts.join(' ')}])`);
  const query = '(query [:find ?n ?e :where [?e :n ?n]])';
  const byRow = new Map(); // n -> UUID text, from batches of 7 rows (made per row)
  const cursor = db.query(query);
  for (let batch; (batch = cursor.nextBatch(7)) !== null;)
    for (const [n, e] of batch) byRow.set(n, e.uuid);
  const rows = db.query(query).all();
  const prepared = db.prepare(query).all();
  db.close();
  assert.equal(new Set(byRow.values()).size, 5000);
  for (const kept of [rows, prepared]) {
    assert.equal(kept.length, 5000);
    for (let i = kept.length - 1; i >= 0; i--) {
      const [n, e] = kept[i];
      assert.ok(e instanceof minigraf.Entity);
      assert.equal(e.uuid, byRow.get(n), `row ${i}`);
      assert.equal(`${e}`, byRow.get(n));
    }
  }
});

// ---- the rows read with the query, and the iterator (issue 14) ------------

test('leaving a loop by break or a throw closes the cursor, its rows read with the query or not', () => {
  for (const n of [10, 600]) {
    const db = dbWith(n);
    const stmt = db.prepare(ALL);
    const cursors = [db.query(ALL), stmt.cursor(), db.query(ALL), stmt.cursor()];
    for (const cursor of cursors.slice(0, 2)) {
      for (const row of cursor) {
        assert.equal(row.length, 1);
        break;
      }
    }
    for (const cursor of cursors.slice(2)) {
      assert.throws(() => {
        for (const row of cursor) if (row[0] >= 0) throw new Error('mid-loop');
      }, /mid-loop/);
    }
    for (const cursor of cursors) {
      assert.equal(cursor.closed, true, `${n} rows`);
      assert.throws(() => cursor.nextBatch(), { code: 'API-018' });
    }
    const it = stmt.iterate();
    assert.equal(it.next().done, false);
    assert.deepEqual(it.return(), { value: undefined, done: true });
    assert.equal(it.next().done, true);
    stmt.close();
    db.close();
  }
});

test('return() or throw() on an iterator not yet started closes its cursor', () => {
  const db = dbWith(3);
  const cursor = db.query(ALL);
  cursor[Symbol.iterator]().return();
  assert.equal(cursor.closed, true);
  const other = db.query(ALL);
  assert.throws(() => other[Symbol.iterator]().throw(new Error('stop')), /stop/);
  assert.equal(other.closed, true);
  db.close();
});

test('an iterator is iterable and gives every row once', () => {
  const db = dbWith(300);
  const it = db.prepare(ALL).iterate();
  assert.equal(it[Symbol.iterator](), it);
  const first = it.next().value;
  assert.deepEqual(sorted([first, ...it]), range(300));
  assert.equal(it.next().done, true);
  db.close();
});

test('a cursor whose rows were all read with the query stays open until closed', () => {
  const db = dbWith(10);
  const cursor = db.query(ALL);
  assert.equal(cursor.closed, false);
  assert.deepEqual(cursor.columns, ['?i']);
  assert.equal(cursor.nextBatch(4).length, 4);
  cursor.close();
  assert.equal(cursor.closed, true);
  assert.deepEqual(cursor.columns, ['?i']);
  assert.throws(() => cursor.nextBatch(), { code: 'API-018' });
  assert.throws(() => cursor.all(), { code: 'API-018' });
  db.close();
});

test('batches that cross the rows read with the query hold what was asked', () => {
  const db = dbWith(600);
  const read = (cursor, sizes) => {
    const got = [];
    const rows = [];
    for (const size of sizes) {
      const batch = cursor.nextBatch(size);
      got.push(batch === null ? null : batch.length);
      if (batch !== null) rows.push(...batch);
    }
    return { got, rows };
  };
  let { got, rows } = read(db.query(ALL), [100, 100, 100, 1000, 1]);
  assert.deepEqual(got, [100, 100, 100, 300, null]);
  assert.deepEqual(sorted(rows), range(600));
  ({ got, rows } = read(db.query(ALL), [300, 256, 300]));
  assert.deepEqual(got, [300, 256, 44]);
  assert.deepEqual(sorted(rows), range(600));
  const cursor = db.query(ALL);
  assert.equal(cursor.nextBatch(10).length, 10);
  assert.deepEqual(sorted([...cursor.nextBatch(20), ...cursor.all()]), range(600).slice(10));
  db.close();
});

test('nextBatchAsync and allAsync start with the rows read with the query', async () => {
  const db = dbWith(600);
  const cursor = db.query(ALL);
  const rows = [...(await cursor.nextBatchAsync(200)), ...(await cursor.nextBatchAsync(200))];
  rows.push(...(await cursor.allAsync()));
  assert.deepEqual(sorted(rows), range(600));
  assert.equal(cursor.closed, true);
  db.close();
});

test('cursors read in turns, in batches of several sizes and value types, keep their values', () => {
  const db = minigraf.openInMemory();
  const facts = Array.from(
    { length: 700 },
    (_, i) =>
      `[:e${i} :i ${i}] [:e${i} :s "s${'é'.repeat(i % 7)}${i}"] [:e${i} :k :k/v${i}] [:e${i} :f ${i}.5]`,
  );
  db.execute(`(transact [${facts.join(' ')}])`);
  const texts = [
    '(query [:find ?i ?s ?e :where [?e :i ?i] [?e :s ?s]])',
    '(query [:find ?i ?f :where [?e :i ?i] [?e :f ?f]])',
    '(query [:find ?i ?k :where [?e :i ?i] [?e :k ?k]])',
  ];
  const key = (row) => row.map((v) => String(v)).join('|');
  const expected = texts.map((text) => db.query(text).all().map(key).sort());
  const cursors = texts.map((text) => db.query(text));
  const got = texts.map(() => []);
  const sizes = [1, 300, 7, 32, 4096, 3];
  for (let turn = 0, open = cursors.length; open > 0; turn++) {
    open = 0;
    cursors.forEach((cursor, c) => {
      const batch = cursor.closed ? null : cursor.nextBatch(sizes[(turn + c) % sizes.length]);
      if (batch === null) cursor.close();
      else got[c].push(...batch.map(key)) && open++;
    });
  }
  got.forEach((rows, c) => assert.deepEqual(rows.sort(), expected[c], texts[c]));
  db.close();
});

test('a query a host function runs while rows are read gets rows of its own', () => {
  const db = dbWith(600);
  const inner = dbWith(40);
  db.function('inner?', (i) => inner.query(ALL).all().length === 40 && i >= 0);
  const rows = [];
  for (const row of db.query('(query [:find ?i :where [?e :i ?i] [(inner? ?i)]])')) rows.push(row);
  assert.deepEqual(sorted(rows), range(600));
  inner.close();
  db.close();
});

test('an integer beyond 2^53 - 1 throws at the read that gets to it, not at query()', () => {
  const db = minigraf.openInMemory();
  db.execute('(transact [[:a :big 9007199254740993] [:b :big 1]])');
  const text = '(query [:find ?e ?v :where [?e :big ?v]])';
  const cursor = db.query(text);
  assert.throws(() => cursor.nextBatch(), { code: 'ERR_MINIGRAF_UNSAFE_INTEGER' });
  cursor.close();
  const looped = db.query(text);
  assert.throws(
    () => {
      for (const row of looped) assert.ok(row);
    },
    { code: 'ERR_MINIGRAF_UNSAFE_INTEGER' },
  );
  assert.equal(looped.closed, true);
  db.close();
});

test('rows of batches read one after another keep their values while later batches are read', async () => {
  // Synchronous batches share one buffer in the addon (src/packed.c); the
  // rows of one must not change when the next is packed, async or not.
  const db = minigraf.openInMemory();
  const facts = Array.from(
    { length: 400 },
    (_, i) =>
      `[:e${i} :i ${i}] [:e${i} :s "s${'é'.repeat(i % 5)}${i}"] [:e${i} :k :k/v${i}] ` +
      `[:e${i} :f ${i}.25] [:e${i} :b ${i % 2 === 0}] [:e${i} :big ${2n ** 60n + BigInt(i)}]`,
  );
  db.execute(`(transact [${facts.join(' ')}])`);
  const text =
    '(query [:find ?e ?i ?s ?k ?f ?b ?big :where [?e :i ?i] [?e :s ?s] [?e :k ?k] [?e :f ?f] [?e :b ?b] [?e :big ?big]])';
  const key = (row) => row.map((v) => String(v)).join('|');
  const expected = db.query(text, null, { safeIntegers: true }).all().map(key).sort();
  const kept = [];
  const cursor = db.query(text, null, { safeIntegers: true });
  const other = db.query('(query [:find ?e ?i :where [?e :i ?i]])');
  for (const size of [1, 2, 5, 16, 100, 300]) {
    const batch = cursor.nextBatch(size);
    if (batch === null) break;
    kept.push(...batch); // entities not read yet: their text is taken when first read
    other.nextBatch(size); // packs into the same buffer
    db.prepare('(query [:find ?k :where [?e :k ?k]])').get();
  }
  const async = await db.queryAsync(text, { safeIntegers: true });
  const pending = async.nextBatchAsync(4096);
  other.nextBatch(7);
  const asyncRows = await pending;
  other.nextBatch(7);
  assert.deepEqual(kept.map(key).sort(), expected);
  assert.deepEqual(asyncRows.map(key).sort(), expected);
  for (const row of kept) assert.equal(typeof row[6], 'bigint');
  cursor.close();
  other.close();
  async.close();
  db.close();
});

test('the headers of a text or prepared query run again are those of its first run', () => {
  const db = minigraf.openInMemory();
  db.execute('(transact [[:a :n "x"] [:a :i 1] [:b :n "y"]])');
  const texts = [
    ['(query [:find ?e ?n :where [?e :n ?n]])', ['?e', '?n']],
    ['(query [:find (count ?e) :where [?e :n _]])', ['(count ?e)']],
    ['(query [:find ?i :where [:a :i ?i]])', ['?i']],
    ['(query [:find ?i :where [:zz :i ?i]])', ['?i']], // no rows
  ];
  // Each text twice in a row (the second run is not sent its headers),
  // then the texts in turns: every cursor has its own text's headers.
  for (const [text, columns] of [...texts, ...texts].flatMap((t) => [t, t])) {
    assert.deepEqual(db.query(text).columns, columns);
    const objects = db.query(text, undefined, { objects: true }).all();
    for (const row of objects) assert.deepEqual(Object.keys(row), columns);
  }
  assert.throws(() => db.query('(query [:find ?x :where'), minigraf.MinigrafError);
  assert.deepEqual(db.query(texts[0][0]).columns, ['?e', '?n']);
  // A cursor closed before its first batch is read keeps its headers.
  const closed = db.query(texts[0][0]);
  closed.close();
  assert.deepEqual(closed.columns, ['?e', '?n']);
  assert.throws(() => closed.nextBatch(), { code: 'API-018' });
  for (const [text, columns] of texts) {
    const pq = db.prepare(text);
    for (let run = 0; run < 3; run++) {
      assert.deepEqual(pq.cursor().columns, columns);
      for (const row of pq.objects(true).iterate()) assert.deepEqual(Object.keys(row), columns);
      pq.objects(false);
    }
    pq.close();
  }
  db.close();
});

test('query texts of every length around 1 KiB, with characters of 1 to 4 bytes, are read whole', () => {
  const db = minigraf.openInMemory();
  // A query text is read into a 1 KiB buffer first and measured only when
  // it may not fit (src/addon.c): texts that end at each byte around the
  // buffer's end, in characters of every UTF-8 length, must all be whole.
  for (const ch of ['a', '\u00e9', '\u20ac', '\u{1F600}']) {
    for (let pad = 980; pad <= 1040; pad++) {
      const value = 'v'.repeat(pad) + ch;
      db.execute(`(transact [[:k :s ${JSON.stringify(value)}]])`);
      const rows = db.query(`(query [:find ?e :where [?e :s ${JSON.stringify(value)}]])`).all();
      assert.equal(rows.length, 1, `a text of ${pad} + ${ch.length} units`);
      db.execute(`(retract [[:k :s ${JSON.stringify(value)}]])`);
    }
  }
  db.close();
});

test('a batch of texts longer than 4 KiB keeps every text whole', () => {
  const db = minigraf.openInMemory();
  // A batch's texts start in a 4 KiB stack buffer (src/packed.c) and move
  // to the heap when they outgrow it: one long text, and several that
  // cross its end together.
  const texts = [
    'x'.repeat(5000),
    '\u00e9'.repeat(3000),
    'y'.repeat(4095),
    'z'.repeat(4096),
    '\u{1F600}'.repeat(1500),
  ];
  const facts = texts.map((t, i) => `[:t${i} :s ${JSON.stringify(t)}] [:t${i} :i ${i}]`);
  db.execute(`(transact [${facts.join(' ')}])`);
  const rows = db.query('(query [:find ?i ?s :where [?e :i ?i] [?e :s ?s]])').all();
  assert.deepEqual(
    rows.sort((a, b) => a[0] - b[0]),
    texts.map((t, i) => [i, t]),
  );
  db.close();
});
