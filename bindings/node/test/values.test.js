'use strict';
// How values cross from the library into JavaScript (and text into it).
const test = require('node:test');
const assert = require('node:assert/strict');
const minigraf = require('..');

/** Stores `literal` as [:v :x literal] and reads it back through execute
 * (the library's JSON result: keywords and entity ids as strings, integers
 * beyond 2^53 - 1 as BigInts). */
function roundTrip(literal) {
  const db = minigraf.openInMemory();
  try {
    db.execute(`(transact [[:v :x ${literal}]])`);
    return db.execute('(query [:find ?x :where [:v :x ?x]])').results[0][0];
  } finally {
    db.close();
  }
}

/** The value through execute and through a cursor's typed rows (with
 * safeIntegers when asked). */
function readBack(literal, safeIntegers = false) {
  const db = minigraf.openInMemory({ safeIntegers });
  try {
    db.execute(`(transact [[:v :x ${literal}]])`);
    const { results } = db.execute('(query [:find ?x :where [:v :x ?x]])');
    const [[viaCursor]] = db.query('(query [:find ?x :where [:v :x ?x]])').nextBatch(10);
    return { viaExecute: results[0][0], viaCursor };
  } finally {
    db.close();
  }
}

/** A value of the typed rows: execute and the cursor agree on it. */
function typedRoundTrip(literal) {
  const { viaExecute, viaCursor } = readBack(literal);
  assert.deepEqual(viaCursor, viaExecute, 'execute and the cursor agree');
  return viaCursor;
}

test('integers up to 2^53 - 1 are Numbers', () => {
  assert.equal(typedRoundTrip('42'), 42);
  assert.equal(roundTrip('-7'), -7);
  assert.equal(roundTrip('9007199254740991'), Number.MAX_SAFE_INTEGER);
  assert.equal(roundTrip('-9007199254740991'), Number.MIN_SAFE_INTEGER);
});

test('integers beyond 2^53 - 1 are exact BigInts', () => {
  assert.equal(roundTrip('9007199254740992'), 9007199254740992n);
  assert.equal(roundTrip('9007199254740993'), 9007199254740993n); // no double holds it
  assert.equal(roundTrip('-9007199254740993'), -9007199254740993n);
  assert.equal(roundTrip('9223372036854775807'), 2n ** 63n - 1n);
  assert.equal(roundTrip('-9223372036854775808'), -(2n ** 63n));
});

test('typed rows: an integer beyond 2^53 - 1 is a RangeError unless safeIntegers, never rounded', () => {
  for (const literal of ['9007199254740992', '-9007199254740993', '9223372036854775807']) {
    assert.throws(() => readBack(literal), {
      name: 'RangeError',
      code: 'ERR_MINIGRAF_UNSAFE_INTEGER',
    });
    assert.equal(readBack(literal, true).viaCursor, BigInt(literal));
  }
  assert.equal(readBack('-9223372036854775808', true).viaCursor, -(2n ** 63n));
  assert.equal(readBack('42', true).viaCursor, 42n, 'safeIntegers: every integer is a BigInt');
  assert.equal(readBack('42.0', true).viaCursor, 42, 'a float stays a Number');
});

test('floats are Numbers', () => {
  assert.equal(typedRoundTrip('1.5'), 1.5);
  assert.equal(roundTrip('-0.25'), -0.25);
  assert.equal(roundTrip('30.0'), 30);
  assert.equal(roundTrip('0.1'), 0.1);
});

test('strings, booleans, null, keywords and entities', () => {
  assert.equal(roundTrip('"plain"'), 'plain');
  assert.equal(roundTrip('"tab\\tquote\\"back\\\\slash\\nline"'), 'tab\tquote"back\\slash\nline');
  assert.equal(roundTrip('true'), true);
  assert.equal(roundTrip('false'), false);
  assert.equal(roundTrip(':ns/name'), ':ns/name');
  assert.equal(
    roundTrip('#uuid "6ba7b810-9dad-11d1-80b4-00c04fd430c8"'),
    '6ba7b810-9dad-11d1-80b4-00c04fd430c8',
  );
  assert.equal(typedRoundTrip('"plain"'), 'plain');
  assert.equal(typedRoundTrip('true'), true);
  assert.equal(typedRoundTrip('false'), false);
});

test('typed rows keep keywords, strings and entities apart', () => {
  const keyword = readBack(':ns/name').viaCursor;
  assert.ok(keyword instanceof minigraf.Keyword);
  assert.equal(keyword.text, ':ns/name');
  assert.equal(String(keyword), ':ns/name');
  assert.equal(readBack('":ns/name"').viaCursor, ':ns/name');
  const entity = readBack('#uuid "6BA7B810-9dad-11d1-80b4-00c04fd430c8"').viaCursor;
  assert.ok(entity instanceof minigraf.Entity);
  assert.equal(entity.uuid, '6ba7b810-9dad-11d1-80b4-00c04fd430c8');
  assert.ok(entity.equals(new minigraf.Entity('6BA7B810-9DAD-11D1-80B4-00C04FD430C8')));
});

test('non-BMP text round-trips unchanged', () => {
  const text = 'emoji 😀 math 𝔸 cjk 𠀀 accents é ñ';
  assert.equal(roundTrip(JSON.stringify(text)), text);
  const db = minigraf.openInMemory();
  db.execute('(transact [[:e1 :name "🦄"] [:e2 :name "𝔘𝔫𝔦"]])');
  const rows = [...db.query('(query [:find ?n :where [_ :name ?n]])')].map(([n]) => n).sort();
  assert.deepEqual(rows, ['𝔘𝔫𝔦', '🦄'].sort());
  db.close();
});

test('a lone surrogate in JS text is refused with API-017, never changed to U+FFFD', () => {
  // JS strings are UTF-16 and may hold unpaired surrogates, which UTF-8
  // cannot carry (tests/hostile: surrogate_utf8; more in hostile.test.js).
  assert.throws(() => roundTrip('"a\ud800b"'), { code: 'API-017', errno: 5017 });
});

test('text containing U+0000 is refused with API-017, never cut short', () => {
  const db = minigraf.openInMemory();
  assert.throws(() => db.execute('(transact [[:a :s "x\0y"]])'), { code: 'API-017', errno: 5017 });
  db.close();
});

test('result objects are plain objects and arrays', () => {
  const db = minigraf.openInMemory();
  const result = db.execute('(query [:find ?x :where [?x :none 1]])');
  assert.equal(Object.getPrototypeOf(result), Object.prototype);
  assert.ok(Array.isArray(result.results));
  assert.deepEqual(result, { variables: ['?x'], results: [] });
  db.close();
});

test('typed rows: empty strings, NUL bytes, booleans and nulls beside other columns', () => {
  const db = minigraf.openInMemory();
  db.execute('(transact [[:a :s ""] [:a :b false] [:a :k :x/y] [:b :s "z"] [:b :b true]])');
  const rows = db
    .query('(query [:find ?s ?b :where [?e :s ?s] [?e :b ?b]])')
    .all()
    .sort((x, y) => (x[0] < y[0] ? -1 : 1));
  assert.deepEqual(rows, [
    ['', false],
    ['z', true],
  ]);
  const [[only]] = db.query('(query [:find ?s :where [:a :s ?s]])').all();
  assert.equal(only, '');
  db.close();
});
