#!/usr/bin/env node
'use strict';
/**
 * The Node.js parity runner (tests/parity/README.md).
 *
 *     node node_runner.js [--package=<dir>] <cases_dir> <transcript_out>
 *
 * Runs every case in <cases_dir>/*.json, in file-name order, through the
 * public API of the `minigraf` npm package only, and writes the canonical
 * transcript: one line per step, `<case name>#<step index>\t<outcome>`.
 * Expectations are not checked here: that is the harness's job. The runner
 * exits non-zero only when it cannot run at all.
 *
 * The package is the one given by --package, else by the environment
 * variable MINIGRAF_NODE_PACKAGE (a package directory such as <build>/node),
 * else require('minigraf').
 */

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const INT64_MIN = -(2 ** 63);
const INT64_LIMIT = 2 ** 63; // exclusive

// ---- the canonical writer ------------------------------------------------------

/** Compact JSON in the README's canonical form; objects keep their order. */
function canonical(value) {
  if (value === null) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return canonicalNumber(value);
  if (typeof value === 'string') return canonicalString(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object') {
    const members = Object.entries(value).map(([k, v]) => `${canonicalString(k)}:${canonical(v)}`);
    return `{${members.join(',')}}`;
  }
  throw new TypeError(`no canonical form for ${typeof value}`);
}

/** Escapes only `"`, `\` and code points below U+0020 (as \u00xx). */
function canonicalString(text) {
  let out = '"';
  for (const char of text) {
    if (char === '"') out += '\\"';
    else if (char === '\\') out += '\\\\';
    else if (char < ' ') out += `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

/**
 * An integral value that fits int64 in decimal (30 and 30.0 both read 30);
 * any other finite number as its shortest round-trip digits d1.d2...dn and
 * exponent x: `d1.d2...dne<x>`, or `d1e<x>` when n = 1.
 */
function canonicalNumber(number) {
  if (!Number.isFinite(number)) return 'null'; // never produced by the library's JSON
  if (Number.isInteger(number) && number >= INT64_MIN && number < INT64_LIMIT) {
    return BigInt(number).toString(); // exact, and -0 reads 0
  }
  // String() gives the shortest digits that round-trip: "0.001", "1.5e+21", "1e-7".
  const sign = number < 0 ? '-' : '';
  const [mantissa, exponent = '0'] = String(Math.abs(number)).split('e');
  const [whole, fraction = ''] = mantissa.split('.');
  const digits = (whole + fraction).replace(/^0+/, '');
  const stripped = digits.replace(/0+$/, '');
  // value = int(stripped) * 10 ** power
  const power = Number(exponent) - fraction.length + (digits.length - stripped.length);
  const x = power + stripped.length - 1;
  const rest = stripped.length > 1 ? `.${stripped.slice(1)}` : '';
  return `${sign}${stripped[0]}${rest}e${x}`;
}

/**
 * A typed-row value as the library's JSON batches write it (the `query`
 * steps): keywords as their text, entities as their UUID text, lists as
 * arrays; integers are BigInts (the runner reads with safeIntegers).
 */
function plainValue(minigraf, value) {
  if (value instanceof minigraf.Keyword) return value.text;
  if (value instanceof minigraf.Entity) return value.uuid;
  if (Array.isArray(value)) return value.map((v) => plainValue(minigraf, v));
  return value;
}

/** A typed-row value as {type, value} (the `query_typed` steps). */
function typedValue(minigraf, value) {
  if (value === null) return { type: 'null', value: null };
  if (value instanceof minigraf.Keyword) return { type: 'keyword', value: value.text };
  if (value instanceof minigraf.Entity) return { type: 'ref', value: value.uuid };
  if (Array.isArray(value))
    return { type: 'list', value: value.map((v) => typedValue(minigraf, v)) };
  switch (typeof value) {
    case 'string':
      return { type: 'string', value };
    case 'bigint':
      return { type: 'integer', value };
    case 'boolean':
      return { type: 'boolean', value };
    case 'number':
      return { type: 'float', value: Number.isFinite(value) ? value : nonFinite(value) };
    default:
      throw new TypeError(`no typed form for ${typeof value}`);
  }
}

const nonFinite = (v) => (Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity');

/** Rows as one array, sorted by the UTF-8 bytes of their text unless ordered. */
function canonicalRows(rows, ordered) {
  const texts = rows.map(canonical);
  if (!ordered) texts.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return `[${texts.join(',')}]`;
}

function errorOutcome(code, message) {
  return canonical({ error: { code, message } });
}

const isPositiveInteger = (v) =>
  (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) || (typeof v === 'bigint' && v > 0n);

// ---- running the steps --------------------------------------------------------------

/** One case file: its database (opened when the case starts) and its steps. */
class Case {
  constructor(minigraf, spec, workdir) {
    this.minigraf = minigraf;
    this.name = spec.name;
    this.steps = spec.steps ?? [];
    this.workdir = workdir;
    this.path = spec.storage === 'file' ? path.join(workdir, 'case.graph') : null;
    this.exports = 0;
    this.db = null;
    this.openError = null;
    this.tx = null;
    this.statements = new Map();
  }

  /** Opens (or reopens) the database with the README's five host
   * functions; a failure is every later step's outcome. Integers are read
   * as BigInts, so that an integer and an integral float stay apart. */
  open() {
    this.db = null;
    this.openError = null;
    try {
      const options = { safeIntegers: true };
      this.db = this.path
        ? this.minigraf.open(this.path, options)
        : this.minigraf.openInMemory(options);
      registerHostFunctions(this.db);
    } catch (error) {
      this.openError = error;
    }
  }

  /** Closes the database; statements and the transaction stay with the
   * case (their later steps report API-018), as the C runner's do. */
  close() {
    this.db?.close();
  }

  /** The end of the case: everything it holds. */
  finish() {
    for (const stmt of this.statements.values()) stmt.close();
    this.tx?.close();
    this.close();
  }

  /** The canonical outcome of one step. */
  run(step) {
    const ordered = step.ordered === true;
    try {
      if (this.db === null && !('reopen' in step)) throw this.openError;
      if (typeof step.execute === 'string') return this.execute(step.execute, ordered);
      if (typeof step.query === 'string')
        return this.query(step.query, step.batch ?? 1000, ordered);
      if ('tx_count' in step) return canonical({ tx_count: this.db.txCount() });
      if ('checkpoint' in step) {
        this.db.checkpoint();
        return '{"ok":true}';
      }
      if ('reopen' in step) {
        this.close();
        this.open();
        if (this.openError !== null) throw this.openError;
        return '{"ok":true}';
      }
      if ('fact_log' in step) return this.factLog(step.fact_log);
      if ('export_import' in step) return this.exportImport();
      if (typeof step.query_typed === 'string') return this.queryTyped(step.query_typed, ordered);
      if (typeof step.query_cancelled === 'string')
        return this.queryCancelled(step.query_cancelled, step.every ?? 1, ordered);
      if (typeof step.prepare === 'string') return this.prepare(step.prepare, step.as);
      if (typeof step.execute_prepared === 'string') return this.executePrepared(step, ordered);
      if (typeof step.query_prepared === 'string') return this.queryPrepared(step, ordered);
      if (typeof step.clear_bindings === 'string') {
        this.statement(step.clear_bindings).clearBindings();
        return '{"ok":true}';
      }
      if (typeof step.bind_entity === 'string') {
        this.statement(step.bind_entity).bind({ [step.slot]: new this.minigraf.Entity(step.uuid) });
        return '{"ok":true}';
      }
      if ('begin_write' in step) return this.beginWrite();
      if (typeof step.tx_execute === 'string')
        return this.executeOutcome(this.transaction().execute(step.tx_execute), ordered);
      if (typeof step.tx_query === 'string')
        return this.cursorOutcome(
          this.transaction().query(step.tx_query),
          step.batch ?? 1000,
          ordered,
        );
      if ('commit' in step) {
        this.transaction().commit();
        return '{"ok":true}';
      }
      if ('rollback' in step) {
        this.transaction().rollback();
        return '{"ok":true}';
      }
      return '{"unknown_step":true}';
    } catch (error) {
      if (error instanceof this.minigraf.MinigrafError)
        return errorOutcome(error.code ?? '', error.message);
      if (error?.message?.startsWith('[RUNNER] ')) return errorOutcome('RUNNER', error.message);
      return errorOutcome('NODE', `${error?.name}: ${error?.message}`);
    }
  }

  execute(text, ordered) {
    return this.executeOutcome(this.db.execute(text), ordered);
  }

  executeOutcome(result, ordered) {
    if ('variables' in result && 'results' in result) {
      return `{"variables":${canonical(result.variables)},"results":${canonicalRows(result.results, ordered)}}`;
    }
    for (const key of ['transacted', 'retracted']) {
      if (key in result && isPositiveInteger(result[key])) result[key] = '<ms>';
    }
    return canonical(result);
  }

  query(text, batch, ordered) {
    return this.cursorOutcome(this.db.query(text), batch, ordered);
  }

  /** A cursor drained in batches of `batch` typed rows, written as the
   * library's JSON batches write them; closes it. */
  cursorOutcome(cursor, batch, ordered) {
    try {
      const rows = [];
      for (let chunk; (chunk = cursor.nextBatch(batch)) !== null;) {
        for (const row of chunk) rows.push(row.map((v) => plainValue(this.minigraf, v)));
      }
      return `{"variables":${canonical(cursor.columns)},"rows":${canonicalRows(rows, ordered)}}`;
    } finally {
      cursor.close();
    }
  }

  /** Every value as {type, value}, through the typed rows. */
  queryTyped(text, ordered) {
    const cursor = this.db.query(text);
    const rows = cursor.all().map((row) => row.map((v) => typedValue(this.minigraf, v)));
    return `{"variables":${canonical(cursor.columns)},"rows":${canonicalRows(rows, ordered)}}`;
  }

  /** An execute step under a progress handler that stops at its first call. */
  queryCancelled(text, every, ordered) {
    this.db.setProgressHandler(Number(every), () => true);
    try {
      return this.execute(text, ordered);
    } finally {
      this.db.setProgressHandler(null);
    }
  }

  prepare(text, name) {
    const stmt = this.db.prepare(text);
    this.statements.get(name)?.close();
    this.statements.set(name, stmt);
    return '{"ok":true}';
  }

  statement(name) {
    const stmt = this.statements.get(name);
    if (stmt === undefined) throw new Error('[RUNNER] no prepared statement of that name');
    return stmt;
  }

  /** The step's binds handed on as their canonical JSON text. */
  bound(step) {
    const stmt = this.statement(step.execute_prepared ?? step.query_prepared);
    if (step.binds !== undefined) stmt.bindJson(canonical(step.binds));
    return stmt;
  }

  executePrepared(step, ordered) {
    return this.executeOutcome(this.bound(step).execute(), ordered);
  }

  queryPrepared(step, ordered) {
    return this.cursorOutcome(this.bound(step).cursor(), step.batch ?? 1000, ordered);
  }

  /** A successful begin replaces an ended transaction; a failed one keeps it. */
  beginWrite() {
    const tx = this.db.beginWrite();
    this.tx?.close();
    this.tx = tx;
    return '{"ok":true}';
  }

  transaction() {
    if (this.tx === null) throw new Error('[RUNNER] no begin_write before this step');
    return this.tx;
  }

  /** Streams the fact log in batches of 2; records in stream order. */
  factLog(filter) {
    const log = this.db.factLog(filterFromCase(filter));
    try {
      const records = [];
      for (let batch; (batch = log.nextBatch(2)) !== null;) {
        for (const r of batch) {
          records.push([
            r.entity,
            r.attribute,
            { type: r.value.type, value: r.value.value },
            r.tx_count,
            r.valid_to,
            r.asserted,
          ]);
        }
      }
      return canonical({ records });
    } finally {
      log.close();
    }
  }

  /**
   * Copies every record (tx order, batches of 2) into a new file with the
   * log writer, advances its counter to the database's, finishes, and
   * continues the case on the copy.
   */
  exportImport() {
    this.exports += 1;
    const target = path.join(this.workdir, `export-${this.exports}.graph`);
    const writer = this.minigraf.createLogWriter(target);
    try {
      const log = this.db.factLog({ order: 'tx' });
      try {
        for (let batch; (batch = log.nextBatch(2)) !== null;) writer.appendBatch(batch);
      } finally {
        log.close();
      }
      writer.advanceTxCount(this.db.txCount());
      writer.finish();
    } finally {
      writer.close(); // abandons the file if finish() was not reached
    }
    this.close();
    this.path = target;
    this.open();
    if (this.openError !== null) throw this.openError;
    return '{"ok":true}';
  }
}

/** The README's five host functions ("Host functions"), on every open. */
function registerHostFunctions(db) {
  db.function('email?', (v) => typeof v === 'string' && v.includes('@'));
  db.function('big?', (v) => typeof v === 'bigint' && v > 100n);
  db.function('fails?', () => {
    throw new Error('fails? always fails');
  });
  db.aggregate('geomean', {
    start: () => ({ s: 0, k: 0 }),
    step(acc, v) {
      if (v === null) return acc;
      const positive = (typeof v === 'bigint' && v > 0n) || (typeof v === 'number' && v > 0);
      if (!positive) throw new Error('geomean: expected a positive number');
      return { s: acc.s + Math.log(Number(v)), k: acc.k + 1 };
    },
    result: (acc) => (acc.k === 0 ? null : Math.floor(Math.exp(acc.s / acc.k) * 1e9 + 0.5) / 1e9),
  });
  db.aggregate('sum-int', {
    start: () => 0n,
    step(sum, v) {
      if (v === null) return sum;
      if (typeof v !== 'bigint') throw new Error('sum-int: expected an integer');
      return sum + v;
    },
  });
}

/**
 * A case's filter (the library's JSON keys) as the package's filter object:
 * snake_case keys to their camelCase names, anything else as it is (the
 * library judges unknown keys and wrong types).
 */
function filterFromCase(filter) {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) return filter;
  const names = { attribute_prefixes: 'attributePrefixes', tx_from: 'txFrom', tx_to: 'txTo' };
  return Object.fromEntries(Object.entries(filter).map(([k, v]) => [names[k] ?? k, v]));
}

/**
 * JSON.parse, except that integers beyond Number.MAX_SAFE_INTEGER become
 * exact BigInts (a filter bound such as 9223372036854775807 must reach the
 * library unrounded). Big integer tokens outside strings are swapped for
 * marked strings, which the reviver turns back into BigInts.
 */
function parseCase(text) {
  const MARK = '\u0000bigint:'; // in the parsed value: NUL, then "bigint:"
  const tokens = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
  const marked = text.replace(tokens, (t) =>
    /^-?\d+$/.test(t) && !Number.isSafeInteger(Number(t)) ? `"\\u0000bigint:${t}"` : t,
  );
  return JSON.parse(marked, (key, value) =>
    typeof value === 'string' && value.startsWith(MARK) ? BigInt(value.slice(MARK.length)) : value,
  );
}

function runCase(minigraf, file) {
  const spec = parseCase(fs.readFileSync(file, 'utf8'));
  const workdir = fs.mkdtempSync(path.join(os.tmpdir(), 'minigraf-parity-'));
  const lines = [];
  const c = new Case(minigraf, spec, workdir);
  try {
    c.open();
    c.steps.forEach((step, index) => lines.push(`${c.name}#${index}\t${c.run(step)}\n`));
  } finally {
    c.finish();
    fs.rmSync(workdir, { recursive: true, force: true });
  }
  return lines.join('');
}

function main(argv) {
  const packageArg = argv.find((a) => a.startsWith('--package='));
  const args = argv.filter((a) => a !== packageArg);
  if (args.length !== 2) {
    process.stderr.write(
      'usage: node node_runner.js [--package=<dir>] <cases_dir> <transcript_out>\n',
    );
    return 2;
  }
  const [casesDir, transcriptOut] = args;
  const packagePath = packageArg?.slice('--package='.length) || process.env.MINIGRAF_NODE_PACKAGE;
  const minigraf = require(packagePath ? path.resolve(packagePath) : 'minigraf');

  const files = fs
    .readdirSync(casesDir)
    .filter((n) => n.endsWith('.json'))
    .sort();
  const transcript = files.map((name) => runCase(minigraf, path.join(casesDir, name))).join('');
  fs.writeFileSync(transcriptOut, transcript, 'utf8');
  return 0;
}

process.exitCode = main(process.argv.slice(2));
