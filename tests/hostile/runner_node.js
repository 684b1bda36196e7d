#!/usr/bin/env node
'use strict';
/**
 * Runs the hostile-input catalogue (tests/hostile/README.md) against the
 * `minigraf` npm package, as a user calls it: open / openInMemory with the
 * package's camelCase options, Database.execute, query, prepare (bind with
 * Keyword, Entity, TxCount, Timestamp, ANY_VALID_TIME and bigint values,
 * bindJson), checkpoint and close.
 *
 *     MINIGRAF_NODE_PACKAGE=build/node node tests/hostile/runner_node.js tests/hostile/cases [case.json ...]
 *
 * The package is MINIGRAF_NODE_PACKAGE's directory, else require('minigraf').
 * Every error must be the package's MinigrafError (or another Error carrying
 * `.code`) whose message starts with "[CODE] ". Other processes (a crashing
 * writer, a full disk, an unprivileged user) are this script run again with
 * --job FILE: under prlimit --fsize for RLIMIT_FSIZE (Node itself ignores
 * SIGXFSZ), with uid/gid nobody for permission cases, and ending in SIGKILL
 * for a crash. close_during closes the database on the JS thread while
 * async calls (executeAsync, queryAsync, nextBatchAsync) run on the libuv
 * pool. Text that is not UTF-8 cannot be a JS string: a UTF-8-encoded
 * surrogate is played as the lone UTF-16 surrogate it stands for, any other
 * invalid byte makes the case a "skip NAME (reason)", never a pass.
 * Exits non-zero on any failure.
 */

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const packagePath = process.env.MINIGRAF_NODE_PACKAGE;
const minigraf = require(packagePath ? path.resolve(packagePath) : 'minigraf');

const PAGE = 4096;
const PROBE = '(query [:find ?e :where [?e :hostile/probe _]])';
const NOBODY = 65534;
const CODE = /^[A-Z]{3}-\d{3}$/;

class Skip extends Error {}

// ---- texts ---------------------------------------------------------------------

/** The bytes of a TEXT: a string or {concat: [string | {repeat, times} | {hex}]}. */
function textBytes(value) {
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  const pieces = value.concat !== undefined ? value.concat : [value];
  return Buffer.concat(
    pieces.map((p) => {
      if (typeof p === 'string') return Buffer.from(p, 'utf8');
      if (p.repeat !== undefined) return Buffer.from(p.repeat.repeat(p.times), 'utf8');
      if (p.hex !== undefined) return Buffer.from(p.hex, 'hex');
      throw new Error(`bad text piece ${JSON.stringify(p)}`);
    }),
  );
}

/**
 * The JS string of a TEXT. Valid UTF-8 decodes as such; the three-byte
 * encoding of a surrogate (ED A0..BF xx) becomes that lone surrogate, the
 * only ill-formed text a JS string can hold; anything else is a Skip.
 */
function textString(value) {
  const bytes = textBytes(value);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return withSurrogates(bytes);
  }
}

function withSurrogates(bytes) {
  let out = '';
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0xed && (bytes[i + 1] & 0xe0) === 0xa0 && (bytes[i + 2] & 0xc0) === 0x80) {
      out += decodeStrict(bytes.subarray(start, i));
      out += String.fromCharCode(0xd000 | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f));
      i += 2;
      start = i + 1;
    }
  }
  return out + decodeStrict(bytes.subarray(start));
}

function decodeStrict(bytes) {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Skip('text that is not UTF-8 is not a JS string');
  }
}

// ---- outcomes ------------------------------------------------------------------

/** The code an error carries: MinigrafError's, or null for a JS error without one. */
function codeOf(error) {
  return typeof error.code === 'string' && CODE.test(error.code) ? error.code : null;
}

function matches(expect, code) {
  if (expect !== null && typeof expect === 'object' && !Array.isArray(expect)) {
    expect = expect.node !== undefined ? expect.node : expect.default;
  }
  if (expect === undefined) expect = 'ok';
  const alternatives = Array.isArray(expect) ? expect : [expect];
  return alternatives.some(
    (e) =>
      (e === 'ok' && code === 'ok') ||
      (code !== 'ok' && (e === code || (e.endsWith('-*') && code.startsWith(e.slice(0, 4))))),
  );
}

/** Runs fn; returns null or the error it threw (a Skip goes on up). */
function attempt(fn) {
  try {
    fn();
    return null;
  } catch (e) {
    if (e instanceof Skip) throw e;
    return e;
  }
}

// ---- one case ------------------------------------------------------------------

const OPTION_NAMES = {
  read_only: 'readOnly',
  allow_unlocked: 'allowUnlocked',
  page_cache_size: 'pageCacheSize',
  wal_checkpoint_threshold: 'walCheckpointThreshold',
  synchronous: 'synchronous',
  recover: 'recover',
  max_derived_facts: 'maxDerivedFacts',
  max_results: 'maxResults',
  query_memory_limit: 'queryMemoryLimit',
  busy_timeout_ms: 'busyTimeoutMs',
  query_timeout_ms: 'queryTimeoutMs',
};

/** The case's options as the package's: camelCase names (an unknown one as it is). */
function packageOptions(options) {
  const out = {};
  for (const [name, value] of Object.entries(options)) out[OPTION_NAMES[name] ?? name] = value;
  return out;
}

class Case {
  constructor(spec, dir) {
    this.name = spec.name ?? '?';
    this.spec = spec;
    this.dir = dir;
    this.path = path.join(dir, 'db.graph');
    this.target = undefined;
    this.db = null;
    this.readOnly = false;
    this.acked = 0;
    this.failures = [];
  }

  fail(step, message) {
    this.failures.push(`${step}: ${message}`);
  }

  outcome(step, expect, error) {
    if (process.env.HOSTILE_VERBOSE)
      console.error(
        `  ${this.name}: ${step}: ${error ? `${error.code} ${error.message.slice(0, 160)}` : 'ok'}`,
      );
    let code = 'ok';
    if (error !== null) {
      code = codeOf(error);
      if (code === null) {
        this.fail(step, `${error.name} without a spec code: ${error.message}`);
        return;
      }
      if (!String(error.message).startsWith(`[${code}] `))
        this.fail(step, `message without its code: ${error.message}`);
    }
    if (!matches(expect, code))
      this.fail(step, `got ${code}${error ? ` (${error.message.slice(0, 200)})` : ''}`);
  }

  // ---- opening
  targetPath(target) {
    switch (target) {
      case 'memory':
        return null;
      case 'file':
        return this.path;
      case 'other':
        return path.join(this.dir, 'other.graph');
      case 'directory':
        return this.dir;
      case 'dev_null':
        return '/dev/null';
      case 'missing_dir':
        return path.join(this.dir, 'missing', 'db.graph');
      case 'readonly_dir': {
        const ro = path.join(this.dir, 'ro');
        fs.mkdirSync(ro, { recursive: true });
        fs.chmodSync(ro, 0o555);
        return path.join(ro, 'db.graph');
      }
      default:
        throw new Error(`unknown target ${target}`);
    }
  }

  close() {
    if (this.db !== null && !this.db.closed) this.db.close();
  }

  open(spec, target) {
    this.close();
    const options = packageOptions(spec.options ?? {});
    const where = this.targetPath(target);
    this.target = where;
    let db = null;
    const error = attempt(() => {
      db = where === null ? minigraf.openInMemory(options) : minigraf.open(where, options);
    });
    this.outcome('open', spec.expect, error);
    if (db !== null) {
      this.db = db;
      this.readOnly = options.readOnly === true;
    }
  }

  // ---- commands
  execute(spec) {
    if (spec.handle === 'null') throw new Skip('a NULL handle: a JS caller has no such thing');
    const text = textString(spec.execute);
    this.outcome(
      'execute',
      spec.expect,
      attempt(() => this.db.execute(text)),
    );
  }

  countRows(query) {
    return this.db.query(query).all().length;
  }

  count(spec) {
    let got = 0;
    const error = attempt(() => {
      got = this.countRows(spec.count);
    });
    if (error !== null) this.fail('count', error.message);
    else if (got !== spec.rows) this.fail('count', `${spec.count}: ${got} rows, want ${spec.rows}`);
  }

  /** The value a bind step gives its slot, as a JS caller writes it. */
  bindValue(kind, value) {
    switch (kind) {
      case 'string':
        return textString(value);
      case 'keyword':
        return new minigraf.Keyword(textString(value));
      case 'entity':
        return new minigraf.Entity(textString(value));
      case 'int64':
        return BigInt(value);
      case 'double':
        return Number(value);
      case 'bool':
        return value === true;
      case 'null':
        return null;
      case 'tx_count':
        return new minigraf.TxCount(BigInt(value));
      case 'timestamp':
        return new minigraf.Timestamp(BigInt(value));
      case 'any_valid_time':
        return minigraf.ANY_VALID_TIME;
      default:
        throw new Error(`unknown bind kind ${kind}`);
    }
  }

  prepare(spec) {
    let stmt = null;
    const error = attempt(() => {
      stmt = this.db.prepare(spec.prepare);
    });
    if (error !== null) {
      this.fail('prepare', error.message);
      return;
    }
    try {
      if (spec.kind === 'json') {
        const json = textString(spec.value);
        this.outcome(
          'bind',
          spec.expect,
          attempt(() => stmt.bindJson(json)),
        );
      } else {
        const value = spec.kind === 'string' ? textString(spec.value) : null;
        this.outcome(
          'bind',
          spec.expect,
          attempt(() => {
            stmt.bind({
              [spec.bind]: spec.kind === 'string' ? value : this.bindValue(spec.kind, spec.value),
            });
          }),
        );
      }
      if (spec.then !== undefined)
        this.outcome(
          'bind then execute',
          spec.then,
          attempt(() => stmt.all()),
        );
    } finally {
      stmt.close();
    }
  }

  checkpoint(spec) {
    this.outcome(
      'checkpoint',
      spec.expect,
      attempt(() => this.db.checkpoint()),
    );
  }

  transactUntilError(spec) {
    const max = spec.max ?? 1000;
    for (let i = 0; i < max; i++) {
      const error = attempt(() =>
        this.db.execute(spec.transact_until_error.replaceAll('{n}', String(this.acked))),
      );
      if (error !== null) {
        this.outcome('transact_until_error', spec.expect, error);
        return;
      }
      this.acked++;
    }
    this.outcome('transact_until_error', spec.expect, null);
  }

  checkAcked(spec) {
    const { results } = this.db.execute(spec.acked);
    const got = results.length > 0 ? Number(results[0][0]) : 0;
    if (got !== this.acked) this.fail('acked', `${this.acked} acknowledged, ${got} found`);
  }

  // ---- files and processes
  damage(spec, file) {
    if (file === undefined) file = spec.file === 'wal' ? `${this.path}.wal` : this.path;
    const size = fs.statSync(file).size;
    let offset = spec.offset ?? 0;
    if (offset < 0) offset += size;
    if (spec.damage === 'truncate') {
      fs.truncateSync(file, offset);
      return;
    }
    const fd = fs.openSync(file, 'r+');
    try {
      if (spec.damage === 'zero') {
        fs.writeSync(fd, Buffer.alloc(spec.length ?? size - offset), 0, undefined, offset);
      } else if (spec.damage === 'flip' && offset < size) {
        const byte = Buffer.alloc(1);
        fs.readSync(fd, byte, 0, 1, offset);
        byte[0] ^= 1 << ((spec.bit ?? 0) & 7);
        fs.writeSync(fd, byte, 0, 1, offset);
      } else if (spec.damage !== 'flip') {
        throw new Error(`unknown damage ${spec.damage}`);
      }
    } finally {
      fs.closeSync(fd);
    }
  }

  static copy(source, target) {
    if (fs.existsSync(source)) fs.copyFileSync(source, target);
    else fs.rmSync(target, { force: true });
  }

  async eachPage(spec) {
    this.close();
    const keep = path.join(this.dir, 'pristine');
    const wal = `${this.path}.wal`;
    Case.copy(this.path, keep);
    Case.copy(wal, `${keep}.wal`);
    const how = spec.each_page;
    const pages = Math.floor(fs.statSync(keep).size / PAGE);
    for (let page = 0; page < pages && this.failures.length === 0; page++) {
      Case.copy(keep, this.path);
      Case.copy(`${keep}.wal`, wal);
      this.damage({ ...how, offset: page * PAGE + (how.offset ?? 0) }, this.path);
      await this.runSteps(spec.steps);
      this.close();
    }
    Case.copy(keep, this.path);
    Case.copy(`${keep}.wal`, wal);
  }

  /** Plays steps in another process: a crash (SIGKILL, nothing closed) or a child under a file size limit. */
  child(spec, crash) {
    const job = path.join(this.dir, `job-${process.pid}-${Date.now()}.json`);
    fs.writeFileSync(
      job,
      JSON.stringify({
        name: this.name,
        dir: this.dir,
        crash,
        steps: crash ? spec.crash : spec.child,
      }),
    );
    const limit = spec.file_size_limit;
    const command =
      limit === undefined
        ? [process.execPath, __filename, '--job', job]
        : ['prlimit', `--fsize=${limit}`, process.execPath, __filename, '--job', job];
    const result = spawnSync(command[0], command.slice(1), {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    fs.rmSync(job, { force: true });
    const report = parseReport(result.stdout);
    if (report === null) {
      this.fail(
        'child',
        `the child process reported nothing (status ${result.status}, signal ${result.signal})`,
      );
      return;
    }
    if (report.skip !== undefined) throw new Skip(report.skip);
    this.acked += report.acked;
    for (const f of report.failures) this.fail('child', f);
    const died = crash ? result.signal === 'SIGKILL' : result.status === 0;
    if (!died)
      this.fail(
        'child',
        `the child process ended with status ${result.status}, signal ${result.signal}`,
      );
  }

  foreignWal() {
    const other = this.targetPath('other');
    const job = path.join(this.dir, 'foreign-job.json');
    fs.writeFileSync(
      job,
      JSON.stringify({
        name: 'foreign',
        dir: this.dir,
        crash: true,
        steps: [{ open: 'other' }, { execute: '(transact [[:foreign :x/y 1]])' }],
      }),
    );
    spawnSync(process.execPath, [__filename, '--job', job], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    fs.rmSync(job, { force: true });
    fs.copyFileSync(`${other}.wal`, `${this.path}.wal`);
  }

  /**
   * The database closed on the main thread while this case's calls run on
   * the libuv pool (executeAsync, queryAsync, nextBatchAsync), repeated
   * until one fails (API-013 interrupted, API-018 closed). A JS handle
   * lives on one thread: there is no async checkpoint to close under, and
   * no second thread to close at the same moment.
   */
  async closeDuring(spec) {
    const call = spec.close_during;
    if (call === 'checkpoint')
      throw new Skip('the package has no async checkpoint: it and close both run on the JS thread');
    if (call === 'close') throw new Skip('one JS thread owns a handle: two closes cannot overlap');
    const db = this.db;
    const text = spec.text ?? '';
    const closer = new Promise((resolve) => {
      setTimeout(() => {
        db.close();
        resolve();
      }, spec.after_ms ?? 0);
    });
    const deadline = Date.now() + 30000;
    let error = null;
    while (error === null && Date.now() < deadline) {
      try {
        if (call === 'fetch') {
          const cursor = await db.queryAsync(text);
          try {
            while ((await cursor.nextBatchAsync(256)) !== null);
          } finally {
            cursor.close();
          }
        } else if (call === 'query') {
          await db.executeAsync(text);
        } else if (call === 'transact') {
          await db.executeAsync(text.replaceAll('{n}', String(this.acked)));
          this.acked++;
        } else {
          throw new Error(`unknown close_during call ${call}`);
        }
      } catch (e) {
        error = e;
      }
    }
    await closer;
    if (error === null)
      this.fail('close_during', 'the calls never failed: the close did not stop them');
    else this.outcome('close_during', spec.expect, error);
  }

  // ---- the driver
  async runStep(spec) {
    if ('open' in spec) this.open(spec, spec.open);
    else if ('reopen' in spec) this.open(spec, this.target === null ? 'memory' : 'file');
    else if ('close' in spec) this.close();
    else if ('execute' in spec) this.execute(spec);
    else if ('count' in spec) this.count(spec);
    else if ('prepare' in spec) this.prepare(spec);
    else if ('checkpoint' in spec) this.checkpoint(spec);
    else if ('transact_until_error' in spec) this.transactUntilError(spec);
    else if ('acked' in spec) this.checkAcked(spec);
    else if ('damage' in spec) this.damage(spec);
    else if ('each_page' in spec) await this.eachPage(spec);
    else if ('close_during' in spec) await this.closeDuring(spec);
    else if ('delete_wal' in spec) fs.rmSync(`${this.path}.wal`, { force: true });
    else if ('foreign_wal' in spec) this.foreignWal();
    else if ('crash' in spec) this.child(spec, true);
    else if ('child' in spec) this.child(spec, false);
    else this.fail('?', `unknown step ${JSON.stringify(spec)}`);
  }

  async runSteps(steps) {
    for (const spec of steps) await this.runStep(spec);
  }

  probe() {
    if (this.db === null || this.db.closed) return;
    const error = attempt(() => {
      const before = this.countRows(PROBE);
      if (this.readOnly) return;
      this.db.execute('(transact [[:hostile-probe :hostile/probe 1]])');
      if (this.countRows(PROBE) !== 1 || before !== 0)
        this.fail('probe', 'the probe fact is missing');
    });
    if (error !== null) this.fail('probe', error.message);
  }

  async run() {
    try {
      await this.runSteps(this.spec.steps);
      if (this.spec.usable ?? true) this.probe();
    } finally {
      this.close();
    }
  }
}

// ---- other processes -------------------------------------------------------------

function parseReport(stdout) {
  const line = (stdout ?? '').split('\n').find((l) => l.startsWith('{'));
  return line === undefined ? null : JSON.parse(line);
}

/** --job FILE: plays a job's steps here and reports {acked, failures} or {skip} on stdout. */
async function runJob(file) {
  const job = JSON.parse(fs.readFileSync(file, 'utf8'));
  const c = new Case({ name: job.name, steps: job.steps }, job.dir);
  let report;
  try {
    if (job.wholeCase) {
      c.spec = job.spec;
      await c.run();
    } else {
      await c.runSteps(job.steps);
      if (!job.crash) c.close();
    }
    report = { acked: c.acked, failures: c.failures };
  } catch (e) {
    report = e instanceof Skip ? { skip: e.message } : { acked: c.acked, failures: [`${e.stack}`] };
  }
  fs.writeSync(1, `${JSON.stringify(report)}\n`);
  if (job.crash) process.kill(process.pid, 'SIGKILL');
  c.close();
  return 0;
}

/** Permission cases mean nothing to root: run them as nobody. */
function runAsNobody(c) {
  fs.chmodSync(c.dir, 0o777);
  const job = path.join(c.dir, 'case-job.json');
  fs.writeFileSync(
    job,
    JSON.stringify({ name: c.name, dir: c.dir, wholeCase: true, spec: c.spec, steps: [] }),
  );
  fs.chmodSync(job, 0o644);
  const result = spawnSync(process.execPath, [__filename, '--job', job], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    uid: NOBODY,
    gid: NOBODY,
  });
  const report = parseReport(result.stdout);
  if (report === null)
    c.fail('-', `the unprivileged run reported nothing (status ${result.status})`);
  else if (report.skip !== undefined) throw new Skip(report.skip);
  else report.failures.forEach((f) => c.fail('unprivileged', f));
}

function remove(dir) {
  const walk = (d) => {
    fs.chmodSync(d, 0o700);
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(d, entry.name));
    }
  };
  try {
    walk(dir);
  } catch {
    /* gone already */
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

// ---- the catalogue ---------------------------------------------------------------

async function runCase(file) {
  const spec = JSON.parse(fs.readFileSync(file, 'utf8'));
  const name = spec.name ?? file;
  if (spec.runners !== undefined && !spec.runners.includes('node')) {
    console.log(`skip ${name} (the case is for ${spec.runners.join(', ')} only)`);
    return 'skip';
  }
  const c = new Case(spec, fs.mkdtempSync(path.join(os.tmpdir(), 'minigraf-hostile-node-')));
  try {
    if (spec.unprivileged && process.geteuid() === 0) runAsNobody(c);
    else await c.run();
  } catch (e) {
    if (!(e instanceof Skip)) throw e;
    console.log(`skip ${name} (${e.message})`);
    return 'skip';
  } finally {
    remove(c.dir);
  }
  for (const f of c.failures) console.error(`  ${name}: ${f}`);
  console.log(`${c.failures.length > 0 ? 'FAIL' : 'ok'} ${name}`);
  return c.failures.length > 0 ? 'fail' : 'pass';
}

async function main(argv) {
  if (argv[0] === '--job') return runJob(argv[1]);
  const files = [];
  for (const arg of argv) {
    if (fs.statSync(arg).isDirectory()) {
      files.push(
        ...fs
          .readdirSync(arg)
          .filter((n) => n.endsWith('.json'))
          .sort()
          .map((n) => path.join(arg, n)),
      );
    } else {
      files.push(arg);
    }
  }
  const counts = { pass: 0, fail: 0, skip: 0 };
  for (const file of files) {
    let result;
    try {
      result = await runCase(file);
    } catch (e) {
      console.error(`  ${file}: ${e.stack}`);
      console.log(`FAIL ${path.basename(file)}`);
      result = 'fail';
    }
    counts[result]++;
  }
  console.log(`${counts.pass} passed, ${counts.fail} failed, ${counts.skip} skipped`);
  return counts.fail === 0 && counts.pass > 0 ? 0 : 1;
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
