'use strict';
/**
 * minigraf — an embedded, single-file, bi-temporal graph database with a
 * Datalog query language. This file is the package's whole JavaScript API;
 * the native addon under build/Release does the calls into libminigraf.
 *
 *   const minigraf = require('minigraf');
 *   const db = minigraf.openInMemory();
 *   db.execute('(transact [[:alice :name "Alice"]])');
 *   for (const [name] of db.query('(query [:find ?n :where [?e :name ?n]])')) …
 *   db.close();
 *
 * Values in results: strings, booleans, null, keywords as ":ns/name"
 * strings, entity ids as UUID strings, floats as Numbers, integers as
 * Numbers when |v| <= Number.MAX_SAFE_INTEGER and as BigInts beyond it
 * (never rounded).
 *
 * The fact log (db.factLog) streams every stored fact version as a record
 * object; a LogWriter (createLogWriter) builds a new database file from such
 * records, and db.export(path) chains the two.
 */

const { fileURLToPath } = require('node:url');

/**
 * Every failure reported by minigraf. `code` is the spec code ("PRS-011"),
 * `errno` its number (family * 1000 + NNN, e.g. 1011), and `message` the
 * library's text, which starts with "[CODE] ".
 */
class MinigrafError extends Error {
  constructor(message, code, errno) {
    super(message);
    this.name = 'MinigrafError';
    this.code = code;
    this.errno = errno;
  }
}

const native = require('./build/Release/minigraf.node');

native.setErrorClass(MinigrafError);
if (native.abiVersion() !== native.ABI_VERSION) {
  throw new Error(
    `minigraf: the loaded libminigraf has ABI version ${native.abiVersion()}, ` +
      `but this package was built for ABI version ${native.ABI_VERSION}`,
  );
}

/** Rows fetched per native call by the iterators. */
const DEFAULT_BATCH_SIZE = 256;

/** Guards the constructors: handles come only from open() and query(). */
const INTERNAL = Symbol('minigraf.internal');

function closedError(what) {
  return new MinigrafError(`[API-018] the ${what} is closed`, 'API-018', 5018);
}

const OPTIONS = {
  readOnly: { key: 'read_only', type: 'boolean' },
  maxDerivedFacts: { key: 'max_derived_facts', type: 'integer' },
  maxResults: { key: 'max_results', type: 'integer' },
};

/** The options object as the JSON text minigraf_open_with_options takes. */
function optionsToJson(options) {
  if (options === undefined || options === null) return null;
  if (typeof options !== 'object') throw new TypeError('options must be an object');
  const members = [];
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const option = OPTIONS[name];
    if (option === undefined) throw new TypeError(`unknown option: ${name}`);
    if (option.type === 'boolean' ? typeof value !== 'boolean'
      : !(typeof value === 'bigint' || Number.isSafeInteger(value))) {
      throw new TypeError(`options.${name} must be ${option.type === 'boolean' ? 'a boolean' : 'an integer'}`);
    }
    // Ranges (>= 1) are the library's to check: it fails with API-017.
    members.push(`"${option.key}":${String(value)}`);
  }
  return `{${members.join(',')}}`;
}

function checkMaxRows(maxRows) {
  if (typeof maxRows !== 'number') throw new TypeError('maxRows must be a number');
  if (!Number.isSafeInteger(maxRows) || maxRows < 0) {
    throw new RangeError('maxRows must be a non-negative integer');
  }
}

const isInteger = (v) => typeof v === 'bigint' || Number.isSafeInteger(v);

/** The filter's JS names that differ from the library's JSON keys. */
const FILTER_KEYS = {
  attributePrefixes: 'attribute_prefixes',
  txFrom: 'tx_from',
  txTo: 'tx_to',
};

/**
 * A fact log filter as the JSON text minigraf_fact_log takes: the camelCase
 * names mapped to the library's keys, values as given. Validation is the
 * library's (an unknown key or a wrong type is API-017), so every binding
 * reports the same error for the same filter.
 */
function filterToJson(filter) {
  if (filter === undefined || filter === null) return null;
  if (typeof filter !== 'object' || Array.isArray(filter)) throw new TypeError('filter must be an object');
  const json = {};
  for (const [name, value] of Object.entries(filter)) {
    if (value !== undefined) json[FILTER_KEYS[name] ?? name] = value;
  }
  return toJson(json);
}

const WRITER_OPTIONS = {
  synchronous: { key: 'synchronous', check: (v) => typeof v === 'string', what: "'full' or 'normal'" },
  pageCacheSize: { key: 'page_cache_size', check: isInteger, what: 'an integer' },
  walCheckpointThreshold: { key: 'wal_checkpoint_threshold', check: isInteger, what: 'an integer' },
};

/** LogWriter options as the JSON text minigraf_log_writer_create takes. */
function writerOptionsToJson(options) {
  if (options === undefined || options === null) return null;
  if (typeof options !== 'object') throw new TypeError('options must be an object');
  const json = {};
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const option = WRITER_OPTIONS[name];
    if (option === undefined) throw new TypeError(`unknown option: ${name}`);
    if (!option.check(value)) throw new TypeError(`options.${name} must be ${option.what}`);
    json[option.key] = value;
  }
  return toJson(json);
}

function toPath(path) {
  if (path instanceof URL) path = fileURLToPath(path);
  if (typeof path !== 'string') throw new TypeError('path must be a string or a file URL');
  if (path === '') throw new TypeError('path must not be empty');
  return path;
}

// ---- JSON for the library (records, filters, options) -------------------------

/* JSON string: only `"`, `\` and C0 controls are escaped. Everything else
 * stays raw, so the addon's UTF-16 -> UTF-8 conversion applies — a lone
 * surrogate becomes U+FFFD, as in every other text passed in. */
// eslint-disable-next-line no-control-regex
const ESCAPED = /["\\\u0000-\u001f]/g;
const escapeChar = (c) => (c === '"' ? '\\"' : c === '\\' ? '\\\\'
  : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const jsonString = (text) => `"${text.replace(ESCAPED, escapeChar)}"`;

/** A float of a typed value: integral ones keep ".0" (3 is "3.0", so the
 * library sees a float), -0 keeps its sign, non-finite ones are the typed
 * form's strings. */
function floatText(number) {
  if (Number.isNaN(number)) return '"NaN"';
  if (number === Infinity) return '"Infinity"';
  if (number === -Infinity) return '"-Infinity"';
  if (Object.is(number, -0)) return '-0.0';
  const text = String(number); // shortest round-trip digits
  return /[.e]/.test(text) ? text : `${text}.0`;
}

/**
 * JSON text of a record, a record array, a filter or options — JSON.stringify
 * with BigInts written exactly, and the numbers of typed float values
 * ({type: 'float', value}) written as floats. Non-finite numbers elsewhere,
 * functions, symbols and cycles are TypeErrors; `undefined` members are left
 * out; objects with toJSON (e.g. Date) are written as toJSON() returns.
 */
function toJson(value, seen = new Set()) {
  switch (typeof value) {
    case 'string': return jsonString(value);
    case 'bigint': return value.toString();
    case 'boolean': return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`${value} cannot be written as JSON`);
      return String(value);
    case 'object': {
      if (value === null) return 'null';
      if (typeof value.toJSON === 'function') return toJson(value.toJSON(), seen);
      if (seen.has(value)) throw new TypeError('cannot write a cyclic structure as JSON');
      seen.add(value);
      let text;
      if (Array.isArray(value)) {
        text = `[${value.map((item) => (item === undefined ? 'null' : toJson(item, seen))).join(',')}]`;
      } else {
        const float = value.type === 'float' && typeof value.value === 'number';
        const members = [];
        for (const [key, member] of Object.entries(value)) {
          if (member === undefined) continue;
          const text = float && key === 'value' ? floatText(member) : toJson(member, seen);
          members.push(`${jsonString(key)}:${text}`);
        }
        text = `{${members.join(',')}}`;
      }
      seen.delete(value);
      return text;
    }
    default:
      throw new TypeError(`a ${typeof value} cannot be written as JSON`);
  }
}

function checkRecord(record) {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    throw new TypeError('a record must be an object');
  }
  return record;
}

/**
 * What Cursor and FactLog share: a native handle read batch by batch, on the
 * JS thread or on the libuv thread pool. Iterating (sync or async) yields
 * the items of each batch and closes the reader when the loop ends, also on
 * `break` or an exception. `calls` names the handle's native functions and
 * what the reader is called in API-018 errors.
 */
class BatchReader {
  #handle;
  #calls;

  constructor(handle, calls) {
    this.#handle = handle;
    this.#calls = calls;
  }

  get closed() {
    return this.#handle === null;
  }

  /** The next at most `maxItems` items (0 counts as 1), or null at the end. */
  nextBatch(maxItems = DEFAULT_BATCH_SIZE) {
    checkMaxRows(maxItems);
    return this.#calls.nextBatch(this.#open(), maxItems);
  }

  /** nextBatch() on the libuv thread pool. */
  async nextBatchAsync(maxItems = DEFAULT_BATCH_SIZE) {
    checkMaxRows(maxItems);
    return this.#calls.nextBatchAsync(this.#open(), maxItems);
  }

  /** Frees the native handle. Idempotent. */
  close() {
    if (this.#handle !== null) {
      this.#calls.close(this.#handle);
      this.#handle = null;
    }
  }

  * [Symbol.iterator]() {
    try {
      for (let batch; (batch = this.nextBatch()) !== null;) yield* batch;
    } finally {
      this.close();
    }
  }

  async* [Symbol.asyncIterator]() {
    try {
      for (let batch; (batch = await this.nextBatchAsync()) !== null;) yield* batch;
    } finally {
      this.close();
    }
  }

  /** For the subclasses: the open handle (API-018 once closed). */
  static handleOf(reader) {
    return reader.#open();
  }

  #open() {
    if (this.#handle === null) throw closedError(this.#calls.what);
    return this.#handle;
  }
}

const { handleOf: readerHandle } = BatchReader;
delete BatchReader.handleOf;

const CURSOR_CALLS = Object.freeze({
  what: 'cursor',
  nextBatch: native.cursorNextBatch,
  nextBatchAsync: native.cursorNextBatchAsync,
  close: native.cursorClose,
});

const FACT_LOG_CALLS = Object.freeze({
  what: 'fact log',
  nextBatch: native.factLogNextBatch,
  nextBatchAsync: native.factLogNextBatchAsync,
  close: native.factLogClose,
});

/**
 * A query's answer, read in batches (nextBatch(maxRows), nextBatchAsync,
 * close and iteration come from BatchReader). The answer is fixed when the
 * cursor opens. Iterating it (sync or async) yields rows and closes the
 * cursor when the loop ends, also on `break` or an exception.
 */
class Cursor extends BatchReader {
  #variables;

  constructor(internal, handle) {
    if (internal !== INTERNAL) throw new TypeError('use Database.query() to open a cursor');
    super(handle, CURSOR_CALLS);
    try {
      this.#variables = Object.freeze(native.cursorVariables(handle));
    } catch (error) {
      this.close();
      throw error;
    }
  }

  /** The :find column headers, e.g. ['?n', '(count ?e)']. */
  get variables() {
    return this.#variables;
  }
}

/**
 * A stream over a database's fact records (every stored fact version), as
 * the database stood when the log opened (nextBatch(maxRecords),
 * nextBatchAsync, close and iteration come from BatchReader). Iterating it
 * (sync or async) yields record objects and closes the log when the loop
 * ends, also on `break` or an exception. The log reads the database batch
 * by batch: closing the database ends it (API-018), so the log keeps its
 * Database from being garbage-collected while it is open.
 */
class FactLog extends BatchReader {
  #database;

  constructor(internal, handle, database) {
    if (internal !== INTERNAL) throw new TypeError('use Database.factLog() to open a fact log');
    super(handle, FACT_LOG_CALLS);
    this.#database = database;
  }

  /** Frees the fact log. Idempotent. */
  close() {
    super.close();
    this.#database = null;
  }

  /** For Database.export: the handle and the database's counter at open. */
  static internals(log) {
    const handle = readerHandle(log);
    return { handle, txCount: native.factLogTxCount(handle) };
  }
}

/*
 * Unfinished writers must be abandoned (their partial files deleted) when
 * the process exits. Teardown does it natively (env cleanup hooks), but
 * process.exit() on the main thread skips those hooks, so the writers still
 * open are closed from an 'exit' listener. Weak references: tracking must
 * not keep a writer from being garbage-collected (which abandons it too).
 */
const openWriters = new Set();
const writerRegistry = new FinalizationRegistry((ref) => openWriters.delete(ref));
process.on('exit', () => {
  for (const ref of openWriters) ref.deref()?.close();
});

/**
 * Builds a new database file from fact records (createLogWriter). Append
 * records in non-decreasing tx_count order (records with the same tx_count
 * form one transaction), then finish(). close() without finish() abandons
 * the writer and deletes the partial file; so does garbage collection of an
 * unclosed writer.
 */
class LogWriter {
  #handle;
  #finished = false;
  #ref;

  constructor(internal, handle) {
    if (internal !== INTERNAL) throw new TypeError('use createLogWriter() to create a log writer');
    this.#handle = handle;
    this.#ref = new WeakRef(this);
    openWriters.add(this.#ref);
    writerRegistry.register(this, this.#ref, this.#ref);
  }

  get closed() {
    return this.#handle === null;
  }

  /** True once finish() succeeded. */
  get finished() {
    return this.#finished;
  }

  /** Appends one record (an object as the fact log yields them). */
  append(record) {
    const handle = this.#open();
    native.logWriterAppend(handle, toJson(checkRecord(record)));
  }

  /** Appends an array (or iterable) of records, all or nothing. */
  appendBatch(records) {
    const handle = this.#open();
    if (records === null || typeof records !== 'object' || typeof records[Symbol.iterator] !== 'function') {
      throw new TypeError('records must be an array of records');
    }
    const list = Array.isArray(records) ? records : Array.from(records);
    list.forEach(checkRecord);
    native.logWriterAppendBatch(handle, toJson(list));
  }

  /** Raises the transaction counter to `txCount` with empty transactions. */
  advanceTxCount(txCount) {
    native.logWriterAdvanceTxCount(this.#open(), txCount);
  }

  /** The writer's transaction counter so far (a number, or a bigint beyond 2^53 - 1). */
  txCount() {
    return native.logWriterTxCount(this.#open());
  }

  /** Commits everything, checkpoints and closes the file. */
  finish() {
    native.logWriterFinish(this.#open());
    this.#finished = true;
  }

  /** Frees the writer; an unfinished one is abandoned (its file deleted). Idempotent. */
  close() {
    if (this.#handle !== null) {
      native.logWriterClose(this.#handle);
      this.#handle = null;
      openWriters.delete(this.#ref);
      writerRegistry.unregister(this.#ref);
    }
  }

  /** For Database.export. */
  static handleOf(writer) {
    return writer.#open();
  }

  #open() {
    if (this.#handle === null) throw closedError('log writer');
    return this.#handle;
  }
}

const { internals: factLogInternals } = FactLog;
const { handleOf: writerHandle } = LogWriter;
delete FactLog.internals;
delete LogWriter.handleOf;

/** Records moved per native call by Database.export. */
const EXPORT_BATCH_SIZE = 1024;

/**
 * An open database. A Database may be used from async code freely: calls on
 * it are serialised by the library. Close it when done (or let `using`
 * do it); an unclosed one is closed when garbage-collected.
 */
class Database {
  #handle;

  constructor(internal, handle) {
    if (internal !== INTERNAL) throw new TypeError('use open() or openInMemory()');
    this.#handle = handle;
  }

  get closed() {
    return this.#handle === null;
  }

  /** Runs one command and returns its result object. */
  execute(text) {
    return native.dbExecute(this.#open(), text);
  }

  /** execute() on the libuv thread pool. */
  async executeAsync(text) {
    return native.dbExecuteAsync(this.#open(), text);
  }

  /** Runs a (query ...) and returns a cursor over its answer. */
  query(text) {
    return new Cursor(INTERNAL, native.dbQuery(this.#open(), text));
  }

  /**
   * The transaction counter (`:as-of N` counts it): a Number while it is at
   * most Number.MAX_SAFE_INTEGER, a BigInt beyond — the rule for integers
   * in results.
   */
  txCount() {
    return native.dbTxCount(this.#open());
  }

  /** Folds the write-ahead log into the main file (no-op in memory). */
  checkpoint() {
    native.dbCheckpoint(this.#open());
  }

  /**
   * Opens a stream over the fact records, as the database stands now.
   * Filter (all optional): attributes, attributePrefixes, entities, txFrom,
   * txTo, window: {from, to}, order: 'tx' (default) | 'storage'. The library
   * checks it: an unknown key or a wrong type is MinigrafError API-017.
   */
  factLog(filter) {
    return new FactLog(INTERNAL, native.dbFactLog(this.#open(), filterToJson(filter)), this);
  }

  /**
   * Writes a copy of the database to the new file `path` (which must not
   * exist): every fact record in tx order through a LogWriter, then the
   * transaction counter. The copy answers every query identically. On
   * failure nothing is left at `path`. Options as for createLogWriter.
   */
  export(path, options) {
    const log = this.factLog({ order: 'tx' });
    try {
      const { handle, txCount } = factLogInternals(log);
      const writer = createLogWriter(path, options);
      try {
        const w = writerHandle(writer);
        while (native.logWriterCopyBatch(w, handle, EXPORT_BATCH_SIZE));
        writer.advanceTxCount(txCount);
        writer.finish();
      } finally {
        writer.close(); // abandons (deletes) the file unless finished
      }
    } finally {
      log.close();
    }
  }

  /** Closes the database (checkpointing a file). Idempotent. Open cursors
   * stay readable. */
  close() {
    if (this.#handle !== null) {
      native.dbClose(this.#handle);
      this.#handle = null;
    }
  }

  #open() {
    if (this.#handle === null) throw closedError('database');
    return this.#handle;
  }
}

if (typeof Symbol.dispose === 'symbol') {
  Database.prototype[Symbol.dispose] = Database.prototype.close;
  Cursor.prototype[Symbol.dispose] = Cursor.prototype.close;
  FactLog.prototype[Symbol.dispose] = FactLog.prototype.close;
  LogWriter.prototype[Symbol.dispose] = LogWriter.prototype.close;
}

/**
 * Opens (creating if missing) the database file at `path` (a string or a
 * file: URL). Options: readOnly, maxDerivedFacts, maxResults.
 */
function open(path, options) {
  if (path instanceof URL) path = fileURLToPath(path);
  if (typeof path !== 'string') throw new TypeError('path must be a string or a file URL');
  if (path === '') throw new TypeError('path must not be empty; use openInMemory()');
  return new Database(INTERNAL, native.dbOpen(path, optionsToJson(options)));
}

/**
 * Starts writing a new database file at `path` (a string or a file: URL);
 * neither it nor `<path>.wal` may exist (STG-043). Options: synchronous
 * ('normal', the default here: finish() syncs | 'full'), pageCacheSize,
 * walCheckpointThreshold.
 */
function createLogWriter(path, options) {
  const json = writerOptionsToJson(options);
  return new LogWriter(INTERNAL, native.logWriterCreate(toPath(path), json));
}

/** Opens a new, empty in-memory database. */
function openInMemory(options) {
  return new Database(INTERNAL, native.dbOpen(null, optionsToJson(options)));
}

/** The loaded library's version, e.g. "0.2.0". */
const version = native.version();
/** The library ABI version this package was built for. */
const { ABI_VERSION } = native;

// Shorthand members only, so that ES modules can import them by name.
module.exports = {
  open,
  openInMemory,
  createLogWriter,
  Database,
  Cursor,
  FactLog,
  LogWriter,
  MinigrafError,
  version,
  ABI_VERSION,
};
