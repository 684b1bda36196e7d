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
  const out = runNode(
    ['--expose-gc'],
    `
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
  `,
  );
  assert.equal(out.trim(), 'ok');
});

test('a cursor outliving its collected database stays readable', () => {
  const out = runNode(
    ['--expose-gc'],
    `
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
  `,
  );
  assert.equal(out.trim(), '2');
});

test('exiting with open handles and pending async calls is clean', () => {
  runNode(
    [],
    `
    const minigraf = require(process.env.MINIGRAF_PACKAGE);
    const db = minigraf.openInMemory();
    db.execute('(transact [[:a :n 1]])');
    globalThis.keep = db.query('(query [:find ?n :where [_ :n ?n]])');
    db.executeAsync('(query [:find ?n :where [_ :n ?n]])');
    process.exit(0);
  `,
  );
});

test('unclosed fact logs and log writers are collected; a collected writer is abandoned', () => {
  const out = runNode(
    ['--expose-gc'],
    `
    const fs = require('node:fs');
    const os = require('node:os');
    const path = require('node:path');
    const minigraf = require(process.env.MINIGRAF_PACKAGE);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minigraf-gc-'));
    (async () => {
      const files = [];
      for (let round = 0; round < 10; round++) {
        for (let i = 0; i < 20; i++) {
          const db = minigraf.openInMemory();
          db.execute('(transact [[:a :n 1] [:b :n 2]])');
          const log = db.factLog();
          if (i % 2) log.nextBatch(1);
          const file = path.join(dir, round + '-' + i + '.graph');
          files.push(file);
          const writer = minigraf.createLogWriter(file);
          writer.appendBatch(db.factLog().nextBatch(10));
          if (i % 3 === 0) db.close(); // a closed db with an unclosed log
        }
        globalThis.gc();
        await new Promise((resolve) => setImmediate(resolve)); // finalizers run here
      }
      globalThis.gc();
      await new Promise((resolve) => setImmediate(resolve));
      globalThis.gc();
      await new Promise((resolve) => setImmediate(resolve));
      const left = files.filter((f) => fs.existsSync(f) || fs.existsSync(f + '.wal'));
      fs.rmSync(dir, { recursive: true, force: true });
      console.log(left.length < files.length ? 'ok' : 'nothing was abandoned: ' + left.length);
    })();
  `,
  );
  assert.equal(out.trim(), 'ok');
});

test('exiting with an unfinished writer abandons it, with or without process.exit()', () => {
  const fs = require('node:fs');
  const os = require('node:os');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minigraf-exit-'));
  try {
    for (const ending of ['process.exit(0);', '', 'process.exitCode = 0;']) {
      const file = path.join(dir, `w${ending.length}.graph`);
      const finished = path.join(dir, `f${ending.length}.graph`);
      runNode(
        [],
        `
        const minigraf = require(process.env.MINIGRAF_PACKAGE);
        const db = minigraf.openInMemory();
        db.execute('(transact [[:a :n 1]])');
        globalThis.keep = [minigraf.createLogWriter(${JSON.stringify(file)}), db.factLog()];
        globalThis.keep[0].appendBatch(db.factLog().nextBatch(10));
        globalThis.keep[1].nextBatchAsync(1);
        const done = minigraf.createLogWriter(${JSON.stringify(finished)});
        done.finish(); // finished but never closed: kept
        ${ending}
      `,
      );
      assert.equal(fs.existsSync(file), false, ending);
      assert.equal(fs.existsSync(`${file}.wal`), false, ending);
      assert.equal(fs.existsSync(finished), true, ending);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an open fact log keeps its unreferenced database alive', () => {
  const out = runNode(
    ['--expose-gc'],
    `
    const minigraf = require(process.env.MINIGRAF_PACKAGE);
    (async () => {
      let log;
      {
        const db = minigraf.openInMemory();
        db.execute('(transact [[:a :n 1] [:b :n 2] [:c :n 3]])');
        log = db.factLog();
      }
      for (let i = 0; i < 3; i++) {
        globalThis.gc();
        await new Promise((resolve) => setImmediate(resolve));
      }
      console.log([...log].length);
    })();
  `,
  );
  assert.equal(out.trim(), '3');
});
