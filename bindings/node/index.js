'use strict';
/**
 * minigraf — an embedded, single-file, bi-temporal graph database with a
 * Datalog query language. This file is the package's whole JavaScript API;
 * the native addon does the calls into libminigraf.
 *
 *   const minigraf = require('minigraf');
 *   const db = minigraf.openInMemory();
 *   db.execute('(transact [[:alice :name "Alice"]])');
 *   for (const [name] of db.query('(query [:find ?n :where [?e :name ?n]])')) …
 *   db.close();
 *
 * Rows of queries (db.query, prepared queries, transactions) come from the
 * library's typed rows: strings, booleans, null, Keyword and Entity
 * objects, floats as Numbers, integers as Numbers (a RangeError beyond
 * Number.MAX_SAFE_INTEGER, never a rounded value) or, with
 * safeIntegers(true), always as BigInts. execute() returns the library's
 * JSON result object as before (keywords and entity ids as strings there).
 * docs/node.md is the guide.
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

// The addon: build/Release/minigraf.node when built here (CMake, or node-gyp
// at install time), else the prebuild matching this platform, CPU and libc
// (prebuilds/linux-x64/minigraf.napi.glibc.node, ...); see docs/node.md.
const native = require('node-gyp-build')(__dirname);

native.setErrorClass(MinigrafError);

/**
 * A TypeError or RangeError for an argument the package refuses before the
 * library sees it (an unknown option, a malformed Keyword or Entity, ...):
 * still the JS error class for misuse, but carrying the spec code the
 * library gives a bad argument, as MinigrafError does: `code` 'API-017',
 * `errno` 5017 and a message starting "[API-017] ".
 */
function invalidArgument(ErrorClass, message) {
  const error = new ErrorClass(`[API-017] ${message}`);
  error.code = 'API-017';
  error.errno = 5017;
  return error;
}
if (native.abiVersion() !== native.ABI_VERSION) {
  throw new Error(
    `minigraf: the loaded libminigraf has ABI version ${native.abiVersion()}, ` +
      `but this package was built for ABI version ${native.ABI_VERSION}`,
  );
}

// ---- values ---------------------------------------------------------------------

/** Lets the addon make values from texts it already checked. */
const TRUSTED = Symbol('minigraf.trusted');

/** A keyword value such as `:person/name` (distinct from the string ":person/name"). */
class Keyword {
  #text;

  constructor(text, trusted) {
    if (
      trusted !== TRUSTED &&
      (typeof text !== 'string' || !text.startsWith(':') || text.length < 2)
    ) {
      throw invalidArgument(
        TypeError,
        'a Keyword is a string starting with ":", e.g. ":person/name"',
      );
    }
    this.#text = text;
  }

  /** The keyword with its ':', e.g. ":person/name". */
  get text() {
    return this.#text;
  }

  toString() {
    return this.#text;
  }

  toJSON() {
    return this.#text;
  }

  equals(other) {
    return other instanceof Keyword && other.#text === this.#text;
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `Keyword(${this.#text})`;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An entity (a reference), identified by its UUID text in lowercase. */
class Entity {
  // The UUID text; or, while #at >= 0, the text of a batch of rows that
  // holds it at #at (sliced on first use: most rows' entities never are).
  #uuid;
  #at = -1;

  constructor(uuid, trusted, at) {
    if (trusted === TRUSTED) {
      this.#uuid = uuid;
      if (at !== undefined) this.#at = at;
      return;
    }
    const text = typeof uuid === 'string' ? uuid.toLowerCase() : uuid;
    if (typeof text !== 'string' || !UUID.test(text)) {
      throw invalidArgument(
        TypeError,
        'an Entity takes a UUID string, e.g. "6ba7b810-9dad-11d1-80b4-00c04fd430c8"',
      );
    }
    this.#uuid = text;
  }

  /** The lowercase UUID text. */
  get uuid() {
    return this.#text();
  }

  toString() {
    return this.#text();
  }

  toJSON() {
    return this.#text();
  }

  equals(other) {
    return other instanceof Entity && other.#text() === this.#text();
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `Entity(${this.#text()})`;
  }

  #text() {
    if (this.#at >= 0) {
      this.#uuid = this.#uuid.slice(this.#at, this.#at + 36);
      this.#at = -1;
    }
    return this.#uuid;
  }
}

/** A transaction counter for `:as-of $t` (a non-negative integer). */
class TxCount {
  constructor(count) {
    if (!(typeof count === 'bigint' ? count >= 0n : Number.isSafeInteger(count) && count >= 0)) {
      throw invalidArgument(RangeError, 'a TxCount is a non-negative integer');
    }
    this.count = count;
    Object.freeze(this);
  }
}

/** A point in time for `:as-of $t` / `:valid-at $t`: ms since the epoch (UTC). */
class Timestamp {
  constructor(ms) {
    const value = ms instanceof Date ? ms.getTime() : ms;
    if (!(typeof value === 'bigint' || Number.isSafeInteger(value))) {
      throw invalidArgument(
        RangeError,
        'a Timestamp is an integer of milliseconds or a valid Date',
      );
    }
    this.ms = value;
    Object.freeze(this);
  }
}

/** `:valid-at $t` bound to every valid time (as `:valid-at :any-valid-time`). */
const ANY_VALID_TIME = Object.freeze({ toString: () => ':any-valid-time' });

/** A collect-set LIST: the typed JSON items made into values. */
function decodeList(json, safe) {
  // Integers keep their digits: quote them before JSON.parse reads them.
  const quoted = json.replace(/"type":"integer","value":(-?\d+)/g, '"type":"integer","value":"$1"');
  return JSON.parse(quoted).map((item) => typedValue(item, safe));
}

/** A typed value {type, value} (fact log records, lists) as a row value. */
function typedValue({ type, value }, safe) {
  switch (type) {
    case 'integer': {
      const big = BigInt(value);
      if (safe) return big;
      if (big > MAX_SAFE || big < -MAX_SAFE) throw unsafeInteger(big);
      return Number(big);
    }
    case 'float':
      return typeof value === 'string' ? Number(value) : value;
    case 'keyword':
      return new Keyword(value);
    case 'ref':
      return new Entity(value);
    case 'list':
      return value.map((item) => typedValue(item, safe));
    default:
      return value; // string, boolean, null
  }
}

native.setValueClasses(
  (text) => new Keyword(text, TRUSTED),
  (uuid) => new Entity(uuid, TRUSTED),
  decodeList,
  Keyword,
  Entity,
);

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function unsafeInteger(big) {
  const error = new RangeError(
    `the integer ${big} is beyond Number.MAX_SAFE_INTEGER; read it with safeIntegers(true) to get a BigInt`,
  );
  error.code = 'ERR_MINIGRAF_UNSAFE_INTEGER';
  return error;
}

// The parts of a packed batch's buffer (src/packed.c: MG_PACK_*).
const PACK_HEADER = 4;
const PACK_NUMS = 1;
const PACK_INTS = 2;
const PACK_TEXT = 4;

// Most batches come in the environment's one ArrayBuffer (src/packed.c):
// its view is kept, not made again for each.
let lastBuffer = null;
let lastWords = null;

/** A batch's buffer as 32-bit words. */
function wordsOf(buffer) {
  if (buffer !== lastBuffer) {
    lastWords = new Uint32Array(buffer);
    lastBuffer = buffer;
  }
  return lastWords;
}

/**
 * The cells of a packed batch (src/packed.c: its buffer and texts) as
 * values, read in cell order: the texts come in pieces cut between cells,
 * spans count from the start of the first, and `base` is where `piece`
 * starts.
 */
class Cells {
  constructor(buffer, texts, flags) {
    const words = wordsOf(buffer);
    this.nrows = words[0];
    this.ncols = words[1];
    const cells = words[0] * words[1];
    const parts = words[2];
    let at = PACK_HEADER + cells + ((parts & PACK_TEXT) !== 0 ? 2 * cells : 0);
    at = 4 * (at + (at % 2)); // the numbers start 8-byte aligned
    this.words = words; // types from PACK_HEADER, spans from `spans`
    this.spans = PACK_HEADER + cells;
    this.nums = (parts & PACK_NUMS) !== 0 ? new Float64Array(buffer, at, cells) : undefined;
    if ((parts & PACK_NUMS) !== 0) at += 8 * cells;
    this.ints = (parts & PACK_INTS) !== 0 ? new BigInt64Array(buffer, at, cells) : undefined;
    this.texts = texts;
    this.safe = (flags & ROWS_BIGINT) !== 0;
    this.piece =
      this.texts === undefined ? '' : typeof this.texts === 'string' ? this.texts : this.texts[0];
    this.p = 0;
    this.base = 0;
  }

  /** Where cell k's text starts in `piece`, after moving to its piece. */
  start(k) {
    const span = this.spans + 2 * k;
    const end = this.words[span] + this.words[span + 1];
    while (end - this.base > this.piece.length) {
      this.base += this.piece.length;
      this.piece = this.texts[++this.p];
    }
    return this.words[span] - this.base;
  }

  text(k) {
    const start = this.start(k);
    return this.piece.slice(start, start + this.words[this.spans + 2 * k + 1]);
  }

  value(k) {
    switch (this.words[PACK_HEADER + k]) {
      case 1:
        return this.text(k);
      case 2:
        return this.safe ? this.ints[k] : this.nums[k];
      case 3:
        return this.nums[k];
      case 4:
        return this.nums[k] !== 0;
      case 5:
        return new Keyword(this.text(k), TRUSTED);
      case 6: {
        const start = this.start(k); // first: it may move to the next piece
        return new Entity(this.piece, TRUSTED, start); // sliced when first read
      }
      case 7:
        return decodeList(this.text(k), this.safe);
      case 8: // an integer beyond 2^53 - 1
        if (!this.safe) throw unsafeInteger(this.ints[k]);
        return this.ints[k];
      default:
        return null;
    }
  }
}

/** How many rows a packed batch from the addon holds. */
function batchLength(packed) {
  return packed === null ? 0 : wordsOf(packed[0])[0];
}

/**
 * The rows of a batch from the addon (src/packed.c: [buffer, texts?,
 * names?]) as arrays or, with ROWS_OBJECTS, objects keyed by `columns`.
 * null stays null (the end of the rows).
 */
function decodeRows(packed, flags, columns) {
  if (packed === null) return null; // the end
  return decodeBatch(packed[0], packed[1], flags, columns ?? packed[2]);
}

/** The rows of a packed batch given as its buffer and texts (null: none). */
function decodeBatch(buffer, texts, flags, keys) {
  if (buffer === null) return null;
  const cells = new Cells(buffer, texts, flags);
  const rows = new Array(cells.nrows);
  fillRows(rows, 0, cells, flags, keys);
  return rows;
}

/** Appends the rows of a batch from the addon to `rows`. */
function appendRows(rows, packed, flags, columns) {
  fillRows(rows, rows.length, new Cells(packed[0], packed[1], flags), flags, columns ?? packed[2]);
}

/**
 * Writes the rows of a packed batch (its `cells`) to rows[at], rows[at + 1],
 * ... (objects keyed by `keys` with ROWS_OBJECTS). Rows of
 * up to four columns are array literals, one allocation each that V8 can
 * place in the old generation once it sees them kept.
 */
function fillRows(rows, at, cells, flags, keys) {
  const { nrows, ncols } = cells;
  if ((flags & ROWS_OBJECTS) !== 0) {
    for (let r = 0, k = 0; r < nrows; r++) {
      const row = {};
      for (let c = 0; c < ncols; c++, k++) row[keys[c]] = cells.value(k);
      rows[at + r] = row;
    }
    return;
  }
  // Array literals evaluate their elements left to right: in cell order.
  switch (ncols) {
    case 1:
      for (let r = 0; r < nrows; r++) rows[at + r] = [cells.value(r)];
      return;
    case 2:
      for (let r = 0, k = 0; r < nrows; r++, k += 2)
        rows[at + r] = [cells.value(k), cells.value(k + 1)];
      return;
    case 3:
      for (let r = 0, k = 0; r < nrows; r++, k += 3)
        rows[at + r] = [cells.value(k), cells.value(k + 1), cells.value(k + 2)];
      return;
    case 4:
      for (let r = 0, k = 0; r < nrows; r++, k += 4)
        rows[at + r] = [cells.value(k), cells.value(k + 1), cells.value(k + 2), cells.value(k + 3)];
      return;
    default:
      for (let r = 0, k = 0; r < nrows; r++) {
        const row = new Array(ncols);
        for (let c = 0; c < ncols; c++, k++) row[c] = cells.value(k);
        rows[at + r] = row;
      }
  }
}

/** Kinds of bound values: the numbers stmt.c's MG_BIND_* use. */
const BIND = Object.freeze({
  NULL: 0,
  STRING: 1,
  INT64: 2,
  DOUBLE: 3,
  BOOL: 4,
  KEYWORD: 5,
  ENTITY: 6,
  TX_COUNT: 7,
  TIMESTAMP: 8,
  ANY_VALID_TIME: 9,
});

/**
 * Binds as the flat [name, kind, value, ...] array stmtBind takes. A number
 * binds as an integer when it is a safe integer and the statement does not
 * use safe integers (where every integer is a bigint, so a number is
 * always a float); otherwise as a float.
 */
function bindList(binds, safe) {
  if (binds === null || typeof binds !== 'object' || Array.isArray(binds)) {
    throw new TypeError('binds must be an object of slot names to values');
  }
  const list = [];
  for (const [name, value] of Object.entries(binds)) {
    if (value === undefined) continue;
    list.push(name.startsWith('$') ? name.slice(1) : name);
    switch (typeof value) {
      case 'string':
        list.push(BIND.STRING, value);
        break;
      case 'bigint':
        list.push(BIND.INT64, value);
        break;
      case 'boolean':
        list.push(BIND.BOOL, value);
        break;
      case 'number':
        list.push(!safe && Number.isSafeInteger(value) ? BIND.INT64 : BIND.DOUBLE, value);
        break;
      default:
        if (value === null) list.push(BIND.NULL, null);
        else if (value instanceof Keyword) list.push(BIND.KEYWORD, value.text);
        else if (value instanceof Entity) list.push(BIND.ENTITY, value.uuid);
        else if (value instanceof TxCount) list.push(BIND.TX_COUNT, value.count);
        else if (value instanceof Timestamp) list.push(BIND.TIMESTAMP, value.ms);
        else if (value instanceof Date) list.push(BIND.TIMESTAMP, new Timestamp(value).ms);
        else if (value === ANY_VALID_TIME) list.push(BIND.ANY_VALID_TIME, null);
        else throw new TypeError(`cannot bind ${typeof value} to $${name}`);
    }
  }
  return list;
}

/**
 * Runs an async native call with an AbortSignal: the call gets an abort
 * token (or null) and stops with the signal's reason when it fires.
 */
async function withSignal(signal, start) {
  if (signal === undefined || signal === null) return start(null);
  if (!(signal instanceof AbortSignal)) throw new TypeError('signal must be an AbortSignal');
  signal.throwIfAborted();
  const token = native.abortNew();
  const onAbort = () => native.abortFire(token);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await start(token);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

function signalOf(options) {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object') throw invalidArgument(TypeError, 'options must be an object');
  return options.signal;
}

/** Rows fetched per native call by the iterators, and with the query when
 * a cursor opens (src/first_batch.c). */
const DEFAULT_BATCH_SIZE = 256;
/** Rows fetched per native call by all(). */
const ALL_BATCH_SIZE = 4096;

const ROWS_BIGINT = 1;
const ROWS_OBJECTS = 2;
// To dbQuery and stmtQuery: the caller has the :find headers already.
const ROWS_NO_COLUMNS = 8;

/** Guards the constructors: handles come only from open() and query(). */
const INTERNAL = Symbol('minigraf.internal');

function closedError(what) {
  return new MinigrafError(`[API-018] the ${what} is closed`, 'API-018', 5018);
}

const OPTIONS = {
  readOnly: { key: 'read_only', type: 'boolean' },
  allowUnlocked: { key: 'allow_unlocked', type: 'boolean' },
  pageCacheSize: { key: 'page_cache_size', type: 'integer' },
  walCheckpointThreshold: { key: 'wal_checkpoint_threshold', type: 'integer' },
  synchronous: { key: 'synchronous', type: 'string' },
  recover: { key: 'recover', type: 'string' },
  maxDerivedFacts: { key: 'max_derived_facts', type: 'integer' },
  maxResults: { key: 'max_results', type: 'integer' },
  queryMemoryLimit: { key: 'query_memory_limit', type: 'integer' },
  busyTimeoutMs: { key: 'busy_timeout_ms', type: 'integer' },
  queryTimeoutMs: { key: 'query_timeout_ms', type: 'integer' },
  historyIndex: { key: 'history_index', type: 'boolean' },
};
/** Options of the package itself, not passed to the library. */
const PACKAGE_OPTIONS = new Set(['safeIntegers']);

/** The options object as the JSON text minigraf_open_with_options takes. */
function optionsToJson(options) {
  if (options === undefined || options === null) return null;
  if (typeof options !== 'object') throw invalidArgument(TypeError, 'options must be an object');
  const members = [];
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined || PACKAGE_OPTIONS.has(name)) continue;
    const option = OPTIONS[name];
    if (option === undefined) throw invalidArgument(TypeError, `unknown option: ${name}`);
    const ok =
      option.type === 'boolean'
        ? typeof value === 'boolean'
        : option.type === 'string'
          ? typeof value === 'string'
          : typeof value === 'bigint' || Number.isSafeInteger(value);
    if (!ok) {
      throw invalidArgument(
        TypeError,
        `options.${name} must be ${{ boolean: 'a boolean', string: 'a string', integer: 'an integer' }[option.type]}`,
      );
    }
    // Ranges (>= 1) and values are the library's to check: it fails with API-017.
    members.push(`"${option.key}":${option.type === 'string' ? jsonString(value) : String(value)}`);
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
  if (typeof filter !== 'object' || Array.isArray(filter))
    throw new TypeError('filter must be an object');
  const json = {};
  for (const [name, value] of Object.entries(filter)) {
    if (value !== undefined) json[FILTER_KEYS[name] ?? name] = value;
  }
  return toJson(json);
}

const WRITER_OPTIONS = {
  synchronous: {
    key: 'synchronous',
    check: (v) => typeof v === 'string',
    what: "'full' or 'normal'",
  },
  pageCacheSize: { key: 'page_cache_size', check: isInteger, what: 'an integer' },
  walCheckpointThreshold: { key: 'wal_checkpoint_threshold', check: isInteger, what: 'an integer' },
  historyIndex: { key: 'history_index', check: (v) => typeof v === 'boolean', what: 'a boolean' },
};

/** LogWriter options as the JSON text minigraf_log_writer_create takes. */
function writerOptionsToJson(options) {
  if (options === undefined || options === null) return null;
  if (typeof options !== 'object') throw invalidArgument(TypeError, 'options must be an object');
  const json = {};
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const option = WRITER_OPTIONS[name];
    if (option === undefined) throw invalidArgument(TypeError, `unknown option: ${name}`);
    if (!option.check(value))
      throw invalidArgument(TypeError, `options.${name} must be ${option.what}`);
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
 * surrogate is refused (API-017), as in every other text passed in. */
// eslint-disable-next-line no-control-regex
const ESCAPED = /["\\\u0000-\u001f]/g;
const escapeChar = (c) =>
  c === '"' ? '\\"' : c === '\\' ? '\\\\' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
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
    case 'string':
      return jsonString(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
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

const NO_ITEMS = Object.freeze([]);

/**
 * The items of a reader's batches (a Cursor's rows, a FactLog's records),
 * closing the reader when the loop ends, also on `break` or an exception
 * (return() and throw() close it, as a generator's finally would). A plain
 * iterator over the batch in hand: a generator with `yield* batch` cost
 * about 1 µs a query and 0.1 µs a row more.
 */
class BatchIterator {
  #reader;
  #batch = NO_ITEMS;
  #at = 0;

  constructor(reader) {
    this.#reader = reader;
  }

  next() {
    if (this.#at < this.#batch.length) return { value: this.#batch[this.#at++], done: false };
    return this.#nextBatch();
  }

  #nextBatch() {
    for (;;) {
      if (this.#reader === null) return { value: undefined, done: true };
      let batch;
      try {
        batch = this.#reader.nextBatch();
      } catch (error) {
        this.return();
        throw error;
      }
      if (batch === null) return this.return();
      if (batch.length > 0) {
        this.#batch = batch;
        this.#at = 1;
        return { value: batch[0], done: false };
      }
    }
  }

  return(value) {
    const reader = this.#reader;
    this.#reader = null;
    this.#batch = NO_ITEMS;
    reader?.close();
    return { value, done: true };
  }

  throw(error) {
    this.return();
    throw error;
  }

  [Symbol.iterator]() {
    return this;
  }
}
// The iterator helpers (map, filter, take...) where the runtime has them,
// as a generator has.
if (globalThis.Iterator?.prototype !== undefined)
  Object.setPrototypeOf(BatchIterator.prototype, globalThis.Iterator.prototype);

async function* itemsOfAsync(reader) {
  try {
    for (let batch; (batch = await reader.nextBatchAsync()) !== null;) yield* batch;
  } finally {
    reader.close();
  }
}

/**
 * A FactLog: a native handle read batch by batch, on the
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
  async nextBatchAsync(maxItems = DEFAULT_BATCH_SIZE, options) {
    checkMaxRows(maxItems);
    const handle = this.#open();
    return withSignal(signalOf(options), (token) =>
      this.#calls.nextBatchAsync(handle, maxItems, token),
    );
  }

  /** Frees the native handle. Idempotent. */
  close() {
    if (this.#handle !== null) {
      this.#calls.close(this.#handle);
      this.#handle = null;
    }
  }

  [Symbol.iterator]() {
    return new BatchIterator(this);
  }

  [Symbol.asyncIterator]() {
    return itemsOfAsync(this);
  }

  #open() {
    if (this.#handle === null) throw closedError(this.#calls.what);
    return this.#handle;
  }
}

const FACT_LOG_CALLS = Object.freeze({
  what: 'fact log',
  nextBatch: native.factLogNextBatch,
  nextBatchAsync: native.factLogNextBatchAsync,
  close: native.factLogClose,
});

/**
 * A query's answer as typed rows (the library's step API, no JSON). The
 * answer is fixed when the cursor opens. Rows are arrays in :find order, or
 * objects keyed by the :find headers when the cursor was opened with
 * `objects`. Iterating it (sync or async) yields rows and closes the cursor
 * when the loop ends, also on `break` or an exception.
 *
 * A cursor opened on the JS thread comes with its first DEFAULT_BATCH_SIZE
 * rows already read (src/first_batch.c); the reads serve those first, and
 * an error met reading them is thrown by the read that gets to it.
 */
class Cursor {
  #handle; // null when closed, or when the rows read at open were all of them
  #columns;
  #flags;
  #closed = false;
  #ended = false; // the addon has given every row: a batch came back short
  #ahead = null; // rows read when the cursor opened, not yet returned
  #aheadAt = 0;
  #failure; // the error met reading them, or undefined

  /** `opened` is a cursor handle (the async opens) or dbQuery's
   * [handle?, columns?, buffer, texts?, failure?] (src/first_batch.c);
   * `columns` the headers when dbQuery was asked not to send them. */
  constructor(internal, opened, flags = 0, columns = undefined) {
    if (internal !== INTERNAL) throw new TypeError('use Database.query() to open a cursor');
    this.#flags = flags;
    if (!Array.isArray(opened)) {
      this.#handle = opened;
      try {
        this.#columns = Object.freeze(native.cursorColumns(opened));
      } catch (error) {
        this.close();
        throw error;
      }
      return;
    }
    // Indexes, not destructuring: that goes through the array iterator.
    this.#handle = opened[0] ?? null;
    this.#columns = opened[1] ?? columns; // NUL-separated: split when first asked for
    this.#ended = this.#handle === null;
    this.#failure = opened[4];
    try {
      this.#ahead = decodeBatch(opened[2], opened[3], flags, this.#keys());
    } catch (error) {
      this.#failure = error; // a value JS cannot hold: it comes before `failure`
    }
  }

  /** The :find column headers, e.g. ['?n', '(count ?e)']. */
  get columns() {
    if (typeof this.#columns === 'string') this.#columns = Object.freeze(this.#columns.split('\0'));
    return this.#columns;
  }

  /** The same as columns (the name of the earlier release). */
  get variables() {
    return this.columns;
  }

  get closed() {
    return this.#closed;
  }

  /** The next at most `maxRows` rows (0 counts as 1), or null at the end. */
  nextBatch(maxRows = DEFAULT_BATCH_SIZE) {
    checkMaxRows(maxRows);
    this.#open();
    const want = Math.max(1, maxRows);
    const ahead = this.#takeAhead(want);
    if (ahead !== null && (ahead.length === want || this.#ended)) return ahead;
    const packed = this.#packed(want - (ahead?.length ?? 0));
    return joinRows(ahead, decodeRows(packed, this.#flags, this.#keys()));
  }

  /** nextBatch() stepped on the libuv thread pool; `options.signal` aborts it. */
  async nextBatchAsync(maxRows = DEFAULT_BATCH_SIZE, options) {
    checkMaxRows(maxRows);
    this.#open();
    const want = Math.max(1, maxRows);
    const ahead = this.#takeAhead(want);
    if (ahead !== null && (ahead.length === want || this.#ended)) return ahead;
    const packed = await this.#packedAsync(want - (ahead?.length ?? 0), options);
    return joinRows(ahead, decodeRows(packed, this.#flags, this.#keys()));
  }

  /** The keys of object rows, or undefined for array rows. */
  #keys() {
    return (this.#flags & ROWS_OBJECTS) !== 0 ? this.columns : undefined;
  }

  /**
   * Up to `want` of the rows read when the cursor opened, or null when none
   * are left. Throws the error met reading them when a read of `want` rows
   * gets to it (as the addon would have thrown it then).
   */
  #takeAhead(want) {
    const ahead = this.#ahead;
    const left = ahead === null ? 0 : ahead.length - this.#aheadAt;
    if (left < want && this.#failure !== undefined) {
      const failure = this.#failure;
      this.#failure = undefined;
      this.#ahead = null;
      throw failure;
    }
    if (left > want) return ahead.slice(this.#aheadAt, (this.#aheadAt += want));
    this.#ahead = null;
    if (left === 0) return null;
    return this.#aheadAt === 0 ? ahead : ahead.slice(this.#aheadAt);
  }

  /** The addon's next batch (packed), or null at the end. */
  #packed(maxRows) {
    checkMaxRows(maxRows);
    const handle = this.#open();
    if (this.#ended) return null;
    return this.#note(native.cursorRows(handle, maxRows, this.#flags), maxRows);
  }

  async #packedAsync(maxRows, options) {
    checkMaxRows(maxRows);
    const handle = this.#open();
    if (this.#ended) return null;
    const packed = await withSignal(signalOf(options), (token) =>
      native.cursorRowsAsync(handle, maxRows, this.#flags, token),
    );
    return this.#note(packed, maxRows);
  }

  /** A batch shorter than asked for is the last: the addon steps until it
   * has maxRows rows or the cursor ends. */
  #note(packed, maxRows) {
    if (batchLength(packed) < Math.max(1, maxRows)) this.#ended = true;
    return packed;
  }

  /** Every remaining row, then closes the cursor. */
  all() {
    try {
      this.#open();
      const rows = this.#takeAhead(Infinity) ?? [];
      for (let packed; (packed = this.#packed(ALL_BATCH_SIZE)) !== null;)
        appendRows(rows, packed, this.#flags, this.#keys());
      return rows;
    } finally {
      this.close();
    }
  }

  /** all() on the thread pool. */
  async allAsync(options) {
    try {
      this.#open();
      const rows = this.#takeAhead(Infinity) ?? [];
      for (let packed; (packed = await this.#packedAsync(ALL_BATCH_SIZE, options)) !== null;)
        appendRows(rows, packed, this.#flags, this.#keys());
      return rows;
    } finally {
      this.close();
    }
  }

  /** Frees the native cursor. Idempotent. */
  close() {
    this.#closed = true;
    this.#ahead = null;
    this.#failure = undefined;
    if (this.#handle !== null) {
      native.cursorClose(this.#handle);
      this.#handle = null;
    }
  }

  [Symbol.iterator]() {
    return new BatchIterator(this);
  }

  [Symbol.asyncIterator]() {
    return itemsOfAsync(this);
  }

  #open() {
    if (this.#closed) throw closedError('cursor');
    return this.#handle;
  }
}

/** The rows of `first` (or null) followed by those of `rest` (or null). */
function joinRows(first, rest) {
  if (first === null) return rest;
  return rest === null ? first : first.concat(rest);
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
    if (
      records === null ||
      typeof records !== 'object' ||
      typeof records[Symbol.iterator] !== 'function'
    ) {
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

  #open() {
    if (this.#handle === null) throw closedError('log writer');
    return this.#handle;
  }
}

/** The row flags of a safe-integers setting and an objects setting. */
const rowFlags = (safe, objects) => (safe ? ROWS_BIGINT : 0) | (objects ? ROWS_OBJECTS : 0);

/**
 * A (query ...) parsed and checked once (Database.prepare), run any number
 * of times with values for its `$name` slots. Bindings stay until re-bound
 * or cleared. Each run sees the database as it is then.
 */
class PreparedQuery {
  #handle;
  #safe;
  #objects = false;
  #busy = false;
  #columns; // the :find headers (NUL-separated) once a run has given them

  constructor(internal, handle, safe) {
    if (internal !== INTERNAL) throw new TypeError('use Database.prepare()');
    this.#handle = handle;
    this.#safe = safe;
  }

  get closed() {
    return this.#handle === null;
  }

  /** Integers as BigInts (true) or Numbers (false) in this query's rows. */
  safeIntegers(on = true) {
    this.#safe = Boolean(on);
    return this;
  }

  /** Rows as objects keyed by the :find headers (true) or arrays (false). */
  objects(on = true) {
    this.#objects = Boolean(on);
    return this;
  }

  /** Binds the slots of `binds` ({name: value}); the others keep theirs. */
  bind(binds) {
    native.stmtBind(this.#open(), bindList(binds, this.#safe));
    return this;
  }

  /**
   * Binds slots from the JSON text minigraf_stmt_bind_json takes, e.g.
   * '{"e": {"entity": "<uuid>"}, "t": {"tx_count": 1}, "v": {"val": 25}}'
   * (for binds that arrive as JSON). All or nothing.
   */
  bindJson(json) {
    native.stmtBindJson(this.#open(), json);
    return this;
  }

  /** Unbinds every slot. */
  clearBindings() {
    native.stmtClear(this.#open());
    return this;
  }

  /** Runs the query (after binding `binds`, if given) and returns a Cursor. */
  cursor(binds) {
    if (binds !== undefined) this.bind(binds);
    const flags = rowFlags(this.#safe, this.#objects);
    const known = this.#columns;
    const opened = native.stmtQuery(
      this.#open(),
      DEFAULT_BATCH_SIZE,
      known === undefined ? flags : flags | ROWS_NO_COLUMNS,
    );
    if (known === undefined) this.#columns = opened[1];
    return new Cursor(INTERNAL, opened, flags, known);
  }

  /** Every row of a run. */
  all(binds) {
    if (binds !== undefined) this.bind(binds);
    const flags = rowFlags(this.#safe, this.#objects);
    return decodeRows(native.stmtRows(this.#open(), 0, flags), flags) ?? [];
  }

  /** The first row of a run, or undefined. */
  get(binds) {
    if (binds !== undefined) this.bind(binds);
    const flags = rowFlags(this.#safe, this.#objects);
    return decodeRows(native.stmtRows(this.#open(), 1, flags), flags)?.[0];
  }

  /** An iterator over the rows of a run (closes its cursor when done). */
  iterate(binds) {
    return this.cursor(binds)[Symbol.iterator]();
  }

  /** The library's JSON result object of a run, as Database.execute gives it. */
  execute(binds) {
    if (binds !== undefined) this.bind(binds);
    return native.stmtExecute(this.#open());
  }

  /** cursor() with the whole run on the thread pool; `options.signal` aborts it. */
  async cursorAsync(binds, options) {
    if (binds !== undefined) this.bind(binds);
    const handle = this.#open();
    if (this.#busy) throw new TypeError('this prepared query is running an async call');
    this.#busy = true;
    try {
      const cursorHandle = await withSignal(signalOf(options), (token) =>
        native.stmtQueryAsync(handle, token),
      );
      return new Cursor(INTERNAL, cursorHandle, rowFlags(this.#safe, this.#objects));
    } finally {
      this.#busy = false;
    }
  }

  /** all() off the event loop: the whole run is one job on the thread pool. */
  async allAsync(binds, options) {
    // Object rows need the :find headers, which a cursor carries.
    if (this.#objects) return (await this.cursorAsync(binds, options)).allAsync(options);
    if (binds !== undefined) this.bind(binds);
    const handle = this.#open();
    const flags = rowFlags(this.#safe, false);
    this.#busy = true;
    try {
      const packed = await withSignal(signalOf(options), (token) =>
        native.stmtRowsAsync(handle, flags, token),
      );
      return decodeRows(packed, flags) ?? [];
    } finally {
      this.#busy = false;
    }
  }

  /** An async iterator over a run's rows, computed off the event loop. */
  async *iterateAsync(binds, options) {
    const cursor = await this.cursorAsync(binds, options);
    try {
      for (let batch; (batch = await cursor.nextBatchAsync(DEFAULT_BATCH_SIZE, options)) !== null;)
        yield* batch;
    } finally {
      cursor.close();
    }
  }

  /** Frees the statement (its open cursors stay readable). Idempotent. */
  close() {
    if (this.#handle !== null) {
      native.stmtClose(this.#handle);
      this.#handle = null;
    }
  }

  #open() {
    if (this.#handle === null) throw closedError('prepared query');
    if (this.#busy) throw new TypeError('this prepared query is running an async call');
    return this.#handle;
  }
}

/**
 * An explicit write transaction (Database.beginWrite): its statements are
 * staged and become visible at commit, all at once, or never (rollback,
 * close, an exception in Database.transaction's function).
 */
class Transaction {
  #handle;
  #safe;
  #active = true;

  constructor(internal, handle, safe) {
    if (internal !== INTERNAL) throw new TypeError('use Database.beginWrite()');
    this.#handle = handle;
    this.#safe = safe;
  }

  /** True until commit, rollback or close. */
  get active() {
    return this.#active && this.#handle !== null;
  }

  /** Stages a transact / retract ({ok: true}), or runs a query on the
   * committed data plus the staged statements. */
  execute(text) {
    return native.txExecute(this.#open(), text);
  }

  /** A Cursor over a query on the committed data plus the staged statements. */
  query(text, options) {
    const objects = options?.objects === true;
    const flags = rowFlags(this.#safe, objects);
    return new Cursor(
      INTERNAL,
      native.txQuery(this.#open(), text, DEFAULT_BATCH_SIZE, flags),
      flags,
    );
  }

  /** Commits every staged statement as one transaction. */
  commit() {
    const handle = this.#open();
    this.#active = false;
    native.txCommit(handle);
  }

  /** Discards the staged statements. */
  rollback() {
    const handle = this.#open();
    this.#active = false;
    native.txRollback(handle);
  }

  /** Rolls back if still active and frees the handle. Idempotent. */
  close() {
    if (this.#handle !== null) {
      native.txClose(this.#handle);
      this.#handle = null;
      this.#active = false;
    }
  }

  #open() {
    if (this.#handle === null) throw closedError('transaction');
    return this.#handle;
  }
}

/**
 * An open database. A Database may be used from async code freely: the
 * library runs calls from several threads in parallel. Close it when done
 * (or let `using` do it); an unclosed one is closed when garbage-collected.
 */
class Database {
  #handle;
  #safe;
  #tx = null; // the transaction of a running transaction(fn)
  // The last text query() ran and its :find headers (NUL-separated), which
  // are a function of the text alone: the next run of it is not sent them.
  #lastText;
  #lastColumns;

  constructor(internal, handle, safe = false) {
    if (internal !== INTERNAL) throw new TypeError('use open() or openInMemory()');
    this.#handle = handle;
    this.#safe = safe;
  }

  get closed() {
    return this.#handle === null;
  }

  /** True while a function of transaction() runs. */
  get inTransaction() {
    return this.#tx !== null;
  }

  /**
   * The integer rule of later queries, statements and host functions:
   * BigInts (true) or Numbers (false, the default; an integer beyond
   * Number.MAX_SAFE_INTEGER is then a RangeError).
   */
  safeIntegers(on = true) {
    this.#safe = Boolean(on);
    return this;
  }

  /** Runs one command and returns its result object (the library's JSON). */
  execute(text) {
    if (this.#tx !== null) return this.#tx.execute(text);
    return native.dbExecute(this.#open(), text);
  }

  /** execute() on the libuv thread pool; `options.signal` aborts it. */
  async executeAsync(text, options) {
    const handle = this.#open();
    return withSignal(signalOf(options), (token) => native.dbExecuteAsync(handle, text, token));
  }

  /**
   * Runs a (query ...) and returns a Cursor over its typed rows. With
   * `binds`, the query is prepared and bound first. Options: objects
   * (rows as objects), safeIntegers (this cursor's integer rule).
   */
  query(text, binds, options) {
    const safe = options?.safeIntegers ?? this.#safe;
    const flags = rowFlags(safe, options?.objects === true);
    if (binds !== undefined && binds !== null) {
      const stmt = this.prepare(text)
        .safeIntegers(safe)
        .objects(options?.objects === true);
      try {
        return stmt.cursor(binds);
      } finally {
        stmt.close();
      }
    }
    if (this.#tx !== null) return this.#tx.query(text, options);
    const known = text === this.#lastText ? this.#lastColumns : undefined;
    const opened = native.dbQuery(
      this.#open(),
      text,
      DEFAULT_BATCH_SIZE,
      known === undefined ? flags : flags | ROWS_NO_COLUMNS,
    );
    if (known === undefined) {
      this.#lastText = text;
      this.#lastColumns = opened[1];
    }
    return new Cursor(INTERNAL, opened, flags, known);
  }

  /**
   * query() computed on the thread pool: opening runs the query up to its
   * first row (joins, aggregates, sorts), so the event loop keeps running.
   * `options.signal` aborts it.
   */
  async queryAsync(text, options) {
    const handle = this.#open();
    const flags = rowFlags(options?.safeIntegers ?? this.#safe, options?.objects === true);
    const cursor = await withSignal(signalOf(options), (token) =>
      native.dbQueryAsync(handle, text, token),
    );
    return new Cursor(INTERNAL, cursor, flags);
  }

  /** Parses and checks a (query ...) once; see PreparedQuery. */
  prepare(text) {
    return new PreparedQuery(INTERNAL, native.dbPrepare(this.#open(), text), this.#safe);
  }

  /** Begins an explicit write transaction (one writer at a time). */
  beginWrite() {
    return new Transaction(INTERNAL, native.dbBeginWrite(this.#open()), this.#safe);
  }

  /**
   * Wraps `fn` in a write transaction: the returned function begins one,
   * runs fn (where db.execute and db.query go to the transaction), commits
   * and returns fn's result, or rolls back and rethrows when fn throws.
   * Called inside another transaction() function it joins that one.
   */
  transaction(fn) {
    if (typeof fn !== 'function') throw new TypeError('transaction expects a function');
    const db = this;
    return function transactionFunction(...args) {
      if (db.#tx !== null) return fn.apply(this, args);
      const tx = db.beginWrite();
      db.#tx = tx;
      try {
        const result = fn.apply(this, args);
        if (result !== null && typeof result?.then === 'function') {
          throw new TypeError('a transaction function must not return a promise');
        }
        tx.commit();
        return result;
      } catch (error) {
        if (tx.active) tx.rollback();
        throw error;
      } finally {
        db.#tx = null;
        tx.close();
      }
    };
  }

  /**
   * Registers the predicate `name` (`fn(value) -> truthy`), called by
   * queries as [(name ?x)]; fn null unregisters it. A throw fails the
   * query with API-016 and the thrown message. Options: safeIntegers.
   */
  function(name, options, fn) {
    if (fn === undefined) [options, fn] = [undefined, options];
    const safe = options?.safeIntegers ?? this.#safe;
    if (fn !== null && typeof fn !== 'function')
      throw new TypeError('fn must be a function or null');
    native.dbRegisterPredicate(this.#open(), name, fn, rowFlags(safe, false));
    return this;
  }

  /**
   * Registers the aggregate `name` ({start, step, result}), usable in
   * :find and with :over: start (a value or a function making one) is a
   * group's state; step(state, value) returns the next state (undefined
   * keeps it); result(state, n) gives the answer (default: the state).
   * null unregisters. Options in the same object: safeIntegers.
   */
  aggregate(name, spec) {
    if (spec === null) {
      native.dbRegisterAggregate(this.#open(), name, null, null, null, 0);
      return this;
    }
    if (spec === null || typeof spec !== 'object')
      throw new TypeError('aggregate expects {start, step, result}');
    const { start, step, result, safeIntegers } = spec;
    if (typeof step !== 'function') throw new TypeError('aggregate step must be a function');
    if (result !== undefined && typeof result !== 'function')
      throw new TypeError('aggregate result must be a function');
    const init = typeof start === 'function' ? start : () => start;
    native.dbRegisterAggregate(
      this.#open(),
      name,
      init,
      step,
      result ?? ((state) => state),
      rowFlags(safeIntegers ?? this.#safe, false),
    );
    return this;
  }

  /** Stops every call running on the database (they fail with API-013). */
  interrupt() {
    if (this.#handle !== null) native.dbInterrupt(this.#handle);
  }

  /**
   * Calls `fn()` about every `every` units of work of the synchronous
   * calls on this thread; a truthy return stops the call (API-013). null
   * removes it.
   */
  setProgressHandler(every, fn) {
    if (fn === undefined) [every, fn] = [1000, every];
    native.dbSetProgressHandler(this.#open(), every, fn ?? null);
  }

  /**
   * The transaction counter (`:as-of N` counts it): a Number while it is at
   * most Number.MAX_SAFE_INTEGER, a BigInt beyond.
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
   * exist; STG-043) in one library call (minigraf_export): every fact
   * record and the transaction counter. The copy answers every query
   * identically. On failure nothing is left at `path`. Options as for
   * createLogWriter.
   */
  export(path, options) {
    const json = writerOptionsToJson(options);
    native.dbExport(this.#open(), toPath(path), json);
  }

  /** Closes the database (checkpointing a file). Idempotent. Open cursors
   * stay readable; an open transaction is rolled back. */
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
  PreparedQuery.prototype[Symbol.dispose] = PreparedQuery.prototype.close;
  Transaction.prototype[Symbol.dispose] = Transaction.prototype.close;
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
  return new Database(INTERNAL, native.dbOpen(path, optionsToJson(options)), safeOption(options));
}

function safeOption(options) {
  const safe = options?.safeIntegers;
  if (safe !== undefined && typeof safe !== 'boolean')
    throw invalidArgument(TypeError, 'options.safeIntegers must be a boolean');
  return safe === true;
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
  return new Database(INTERNAL, native.dbOpen(null, optionsToJson(options)), safeOption(options));
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
  PreparedQuery,
  Transaction,
  Keyword,
  Entity,
  TxCount,
  Timestamp,
  ANY_VALID_TIME,
  FactLog,
  LogWriter,
  MinigrafError,
  version,
  ABI_VERSION,
};
