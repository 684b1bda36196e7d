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

/**
 * A query's answer, read in batches. The answer is fixed when the cursor
 * opens. Iterating it (sync or async) yields rows and closes the cursor
 * when the loop ends, also on `break` or an exception.
 */
class Cursor {
  #handle;
  #variables;

  constructor(internal, handle) {
    if (internal !== INTERNAL) throw new TypeError('use Database.query() to open a cursor');
    this.#handle = handle;
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

  get closed() {
    return this.#handle === null;
  }

  /** The next at most `maxRows` rows (0 counts as 1), or null at the end. */
  nextBatch(maxRows = DEFAULT_BATCH_SIZE) {
    checkMaxRows(maxRows);
    return native.cursorNextBatch(this.#open(), maxRows);
  }

  /** nextBatch() on the libuv thread pool. */
  async nextBatchAsync(maxRows = DEFAULT_BATCH_SIZE) {
    checkMaxRows(maxRows);
    return native.cursorNextBatchAsync(this.#open(), maxRows);
  }

  /** Frees the cursor. Idempotent. */
  close() {
    if (this.#handle !== null) {
      native.cursorClose(this.#handle);
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

  #open() {
    if (this.#handle === null) throw closedError('cursor');
    return this.#handle;
  }
}

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

/** Opens a new, empty in-memory database. */
function openInMemory(options) {
  return new Database(INTERNAL, native.dbOpen(null, optionsToJson(options)));
}

/** The loaded library's version, e.g. "0.1.0". */
const version = native.version();
/** The library ABI version this package was built for. */
const { ABI_VERSION } = native;

// Shorthand members only, so that ES modules can import them by name.
module.exports = { open, openInMemory, Database, Cursor, MinigrafError, version, ABI_VERSION };
