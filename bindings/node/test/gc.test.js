'use strict';
// Handles nobody closed are freed by the garbage collector and at exit.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const PACKAGE = path.join(__dirname, '..');

function runNode(args, source) {
  const child = spawnSync(process.execPath, [...args, '-e', source], {
    env: { ...process.env, MINIGRAF_PACKAGE: PACKAGE },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(child.status, 0, `exit ${child.status} ${child.signal ?? ''}\n${child.stderr}`);
  return child.stdout;
}

test('unclosed databases and cursors are collected without a crash', () => {
  const out = runNode(['--expose-gc'], `
    const minigraf = require(process.env.MINIGRAF_PACKAGE);
    (async () => {
      for (let round = 0; round < 20; round++) {
        for (let i = 0; i < 50; i++) {
          const db = minigraf.openInMemory();
          db.execute('(transact [[:a :n 1] [:b :n 2]])');
          const cursor = db.query('(query [:find ?n :where [_ :n ?n]])');
          if (i % 2) cursor.nextBatch(1);
          if (i % 3 === 0) db.close(); // a closed db with an unclosed cursor
        }
        globalThis.gc();
        await new Promise((resolve) => setImmediate(resolve)); // finalizers run here
      }
      globalThis.gc();
      console.log('ok');
    })();
  `);
  assert.equal(out.trim(), 'ok');
});

test('a cursor outliving its collected database stays readable', () => {
  const out = runNode(['--expose-gc'], `
    const minigraf = require(process.env.MINIGRAF_PACKAGE);
    (async () => {
      let cursor;
      {
        const db = minigraf.openInMemory();
        db.execute('(transact [[:a :n 1] [:b :n 2]])');
        cursor = db.query('(query [:find ?n :where [_ :n ?n]])');
      }
      globalThis.gc();
      await new Promise((resolve) => setImmediate(resolve));
      globalThis.gc();
      console.log([...cursor].length);
    })();
  `);
  assert.equal(out.trim(), '2');
});

test('exiting with open handles and pending async calls is clean', () => {
  runNode([], `
    const minigraf = require(process.env.MINIGRAF_PACKAGE);
    const db = minigraf.openInMemory();
    db.execute('(transact [[:a :n 1]])');
    globalThis.keep = db.query('(query [:find ?n :where [_ :n ?n]])');
    db.executeAsync('(query [:find ?n :where [_ :n ?n]])');
    process.exit(0);
  `);
});
