'use strict';
// How values cross from the library into JavaScript (and text into it).
const test = require('node:test');
const assert = require('node:assert/strict');
const minigraf = require('..');

/** Stores `literal` as [:v :x literal] and reads it back. */
function roundTrip(literal) {
  const db = minigraf.openInMemory();
  try {
    db.execute(`(transact [[:v :x ${literal}]])`);
    const { results } = db.execute('(query [:find ?x :where [:v :x ?x]])');
    const [[viaCursor]] = db.query('(query [:find ?x :where [:v :x ?x]])').nextBatch(10);
    assert.deepEqual(viaCursor, results[0][0], 'execute and the cursor agree');
    return results[0][0];
  } finally {
    db.close();
  }
}

test('integers up to 2^53 - 1 are Numbers', () => {
  assert.equal(roundTrip('42'), 42);
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

test('floats are Numbers', () => {
  assert.equal(roundTrip('1.5'), 1.5);
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
  assert.equal(roundTrip('#uuid "6ba7b810-9dad-11d1-80b4-00c04fd430c8"'),
    '6ba7b810-9dad-11d1-80b4-00c04fd430c8');
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

test('a lone surrogate in JS text reaches the library as U+FFFD', () => {
  // JS strings are UTF-16 and may hold unpaired surrogates; the addon
  // converts text to UTF-8, where each one becomes U+FFFD.
  assert.equal(roundTrip('"a\ud800b"'), 'a\ufffdb');
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
