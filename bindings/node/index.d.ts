/**
 * minigraf — an embedded, single-file, bi-temporal graph database with a
 * Datalog query language.
 */

/**
 * One value in an `execute` result (the library's JSON):
 * - strings, booleans and null as themselves;
 * - keywords as ":ns/name" strings, entity ids as lowercase UUID strings;
 * - floats as numbers (NaN and ±Infinity arrive as null);
 * - integers as numbers when |v| <= Number.MAX_SAFE_INTEGER, else as
 *   bigints holding them exactly.
 */
export type Value = string | number | bigint | boolean | null;

export type Row = Value[];

/** A keyword value such as `:person/name`. */
export class Keyword {
  constructor(text: string);
  /** The keyword with its ':', e.g. ":person/name". */
  readonly text: string;
  toString(): string;
  toJSON(): string;
  equals(other: unknown): boolean;
}

/** An entity (a reference), by its lowercase UUID text. */
export class Entity {
  constructor(uuid: string);
  readonly uuid: string;
  toString(): string;
  toJSON(): string;
  equals(other: unknown): boolean;
}

/** A transaction counter for `:as-of $t`. */
export class TxCount {
  constructor(count: number | bigint);
  readonly count: number | bigint;
}

/** A point in time (ms since the epoch, UTC) for `:as-of $t` / `:valid-at $t`. */
export class Timestamp {
  constructor(ms: number | bigint | Date);
  readonly ms: number | bigint;
}

/** `:valid-at $t` bound to every valid time. */
export const ANY_VALID_TIME: { readonly toString: () => string };

/**
 * One value of a typed row (query, prepared query, transaction query):
 * integers are numbers (a RangeError with code ERR_MINIGRAF_UNSAFE_INTEGER
 * beyond Number.MAX_SAFE_INTEGER) or, with safeIntegers, bigints; floats
 * numbers (NaN and ±Infinity kept); a collect-set is an array.
 */
export type RowValue = string | number | bigint | boolean | null | Keyword | Entity | RowValue[];

/** A typed row: an array in :find order, or an object keyed by the :find headers. */
export type TypedRow = RowValue[] | Record<string, RowValue>;

/** What a $slot may be bound to. */
export type BindValue =
  | string
  | number
  | bigint
  | boolean
  | null
  | undefined
  | Keyword
  | Entity
  | TxCount
  | Timestamp
  | Date
  | typeof ANY_VALID_TIME;

export type Binds = Record<string, BindValue>;

export interface AsyncOptions {
  /** Aborts the call; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface RowOptions {
  /** Rows as objects keyed by the :find headers. */
  objects?: boolean;
  /** Integers as bigints. */
  safeIntegers?: boolean;
}

/** The result of `(transact ...)`: the transaction's wall-clock time in ms. */
export interface TransactResult {
  transacted: number;
}

/** The result of `(retract ...)`: the transaction's wall-clock time in ms. */
export interface RetractResult {
  retracted: number;
}

/** The result of `(rule ...)`. */
export interface OkResult {
  ok: true;
}

/** The result of `(query ...)` run through `execute`. */
export interface QueryResult {
  variables: string[];
  results: Row[];
}

export type ExecuteResult = TransactResult | RetractResult | OkResult | QueryResult;

export interface OpenOptions {
  /** Integers of typed rows and host function values as bigints (the package's option). */
  safeIntegers?: boolean;
  /** Writes fail with API-014. */
  readOnly?: boolean;
  allowUnlocked?: boolean;
  pageCacheSize?: number | bigint;
  walCheckpointThreshold?: number | bigint;
  synchronous?: 'full' | 'normal';
  recover?: 'truncate_wal';
  queryMemoryLimit?: number | bigint;
  busyTimeoutMs?: number | bigint;
  queryTimeoutMs?: number | bigint;
  /** Keep the history index (docs/c-api.md, history_index). */
  historyIndex?: boolean;
  /** Limit on facts derived by rules (default 1000000). */
  maxDerivedFacts?: number | bigint;
  /** Limit on result rows (default 1000000). */
  maxResults?: number | bigint;
}

/** Every failure reported by minigraf. */
export class MinigrafError extends Error {
  /** The spec code, e.g. "PRS-011". */
  readonly code: string;
  /** The numeric code: family * 1000 + NNN, e.g. 1011. */
  readonly errno: number;
  /** The library's message; starts with "[CODE] ". */
  readonly message: string;
  name: 'MinigrafError';
  private constructor(message: string, code: string, errno: number);
}

/**
 * A query's answer, read in batches. Iterating it (sync or async) yields
 * rows and closes the cursor when the loop ends.
 */
export class Cursor implements Iterable<TypedRow>, AsyncIterable<TypedRow> {
  private constructor();
  /** The :find column headers, e.g. ["?n", "(count ?e)"]. */
  readonly columns: readonly string[];
  /** The same as columns. */
  readonly variables: readonly string[];
  readonly closed: boolean;
  /** The next at most `maxRows` typed rows (default 256; 0 counts as 1), or null at the end. */
  nextBatch(maxRows?: number): TypedRow[] | null;
  /** `nextBatch` stepped on the libuv thread pool. */
  nextBatchAsync(maxRows?: number, options?: AsyncOptions): Promise<TypedRow[] | null>;
  /** Every remaining row; closes the cursor. */
  all(): TypedRow[];
  allAsync(options?: AsyncOptions): Promise<TypedRow[]>;
  /** Frees the cursor. Idempotent. */
  close(): void;
  [Symbol.iterator](): Generator<TypedRow, void, undefined>;
  [Symbol.asyncIterator](): AsyncGenerator<TypedRow, void, undefined>;
  [Symbol.dispose](): void;
}

/** A (query ...) parsed once, run with values for its $slots (Database.prepare). */
export class PreparedQuery {
  private constructor();
  readonly closed: boolean;
  safeIntegers(on?: boolean): this;
  objects(on?: boolean): this;
  bind(binds: Binds): this;
  /** Binds from minigraf_stmt_bind_json's JSON text. */
  bindJson(json: string): this;
  clearBindings(): this;
  cursor(binds?: Binds): Cursor;
  all(binds?: Binds): TypedRow[];
  get(binds?: Binds): TypedRow | undefined;
  iterate(binds?: Binds): Iterator<TypedRow>;
  /** The JSON result object, as Database.execute. */
  execute(binds?: Binds): QueryResult;
  cursorAsync(binds?: Binds, options?: AsyncOptions): Promise<Cursor>;
  allAsync(binds?: Binds, options?: AsyncOptions): Promise<TypedRow[]>;
  iterateAsync(binds?: Binds, options?: AsyncOptions): AsyncGenerator<TypedRow, void, undefined>;
  close(): void;
  [Symbol.dispose](): void;
}

/** An explicit write transaction (Database.beginWrite). */
export class Transaction {
  private constructor();
  /** True until commit, rollback or close. */
  readonly active: boolean;
  execute(text: string): ExecuteResult;
  query(text: string, options?: { objects?: boolean }): Cursor;
  commit(): void;
  rollback(): void;
  /** Rolls back if still active, frees the handle. Idempotent. */
  close(): void;
  [Symbol.dispose](): void;
}

export interface AggregateSpec<S = unknown> {
  /** The state of a new group: a value, or a function making one. */
  start?: S | (() => S);
  /** The next state (undefined keeps the state). */
  step: (state: S, value: RowValue) => S | undefined;
  /** The answer (default: the state). */
  result?: (state: S, n: number) => RowValue;
  safeIntegers?: boolean;
}

/**
 * A typed value of a fact record: lossless, unlike the values in query
 * results. Integers beyond Number.MAX_SAFE_INTEGER are bigints; a float's
 * NaN and ±Infinity are the strings "NaN", "Infinity", "-Infinity"; keywords
 * are ":ns/name" strings, refs lowercase UUID strings.
 */
export type TypedValue =
  | { type: 'string'; value: string }
  | { type: 'integer'; value: number | bigint }
  | { type: 'float'; value: number | 'NaN' | 'Infinity' | '-Infinity' }
  | { type: 'boolean'; value: boolean }
  | { type: 'keyword'; value: string }
  | { type: 'ref'; value: string }
  | { type: 'null'; value: null };

/**
 * One stored fact version, with the library's keys. Integers beyond
 * Number.MAX_SAFE_INTEGER are bigints — `valid_to` of a fact valid forever
 * is 9223372036854775807n.
 */
export interface FactRecord {
  /** The entity's lowercase UUID. */
  entity: string;
  /** The attribute keyword, e.g. ":person/age". */
  attribute: string;
  value: TypedValue;
  /** The transaction counter of the fact's transaction (what `:as-of N` counts). */
  tx_count: number | bigint;
  /** The transaction's wall-clock time, ms since the epoch. */
  tx_id: number | bigint;
  /** Start of the valid-time window, ms (inclusive). */
  valid_from: number | bigint;
  /** End of the valid-time window, ms (exclusive). */
  valid_to: number | bigint;
  /** false for a retraction. */
  asserted: boolean;
}

/** Which records a fact log streams. Every key is optional. */
export interface FactLogFilter {
  /** Keep records whose attribute is one of these keywords (with the ':'). */
  attributes?: string[];
  /** … or starts with one of these texts (either list passes a record). */
  attributePrefixes?: string[];
  /** Keep records of these entities (UUID strings). */
  entities?: string[];
  /** Keep records with txFrom <= tx_count. */
  txFrom?: number | bigint;
  /** Keep records with tx_count <= txTo. */
  txTo?: number | bigint;
  /** Keep records whose valid window [valid_from, valid_to) overlaps [from, to). */
  window?: { from?: number | bigint; to?: number | bigint };
  /** "tx" (default): commit order, statement order within a transaction;
   * "storage": entity index order, the cheapest to produce. */
  order?: 'tx' | 'storage';
}

export interface LogWriterOptions {
  /** "normal" (the default here: nothing survives unless finish() succeeds,
   * and finish() syncs) or "full". */
  synchronous?: 'full' | 'normal';
  /** Pages of 4096 bytes kept in the page cache. */
  pageCacheSize?: number | bigint;
  /** Facts in the WAL that trigger a checkpoint while writing; 0 never. */
  walCheckpointThreshold?: number | bigint;
  /** Make the file with the history index (the open option historyIndex). */
  historyIndex?: boolean;
}

/**
 * A stream over a database's fact records, as the database stood when the
 * log opened. Iterating it (sync or async) yields records and closes the
 * log when the loop ends. Closing the database ends the log (API-018); an
 * open log keeps its database from being garbage-collected.
 */
export class FactLog implements Iterable<FactRecord>, AsyncIterable<FactRecord> {
  private constructor();
  readonly closed: boolean;
  /** The next at most `maxRecords` records (default 256; 0 counts as 1), or null at the end. */
  nextBatch(maxRecords?: number): FactRecord[] | null;
  /** `nextBatch` on the libuv thread pool. */
  nextBatchAsync(maxRecords?: number, options?: AsyncOptions): Promise<FactRecord[] | null>;
  /** Frees the fact log. Idempotent. */
  close(): void;
  [Symbol.iterator](): Generator<FactRecord, void, undefined>;
  [Symbol.asyncIterator](): AsyncGenerator<FactRecord, void, undefined>;
  [Symbol.dispose](): void;
}

/**
 * Builds a new database file from fact records. close() before finish()
 * abandons the writer and deletes the partial file (as does garbage
 * collection of an unclosed writer).
 */
export class LogWriter {
  private constructor();
  readonly closed: boolean;
  /** True once finish() succeeded. */
  readonly finished: boolean;
  /**
   * Appends one record. tx_count must not decrease; records with the same
   * tx_count form one transaction. A typed float's integral number is
   * written as a float (3 → 3.0).
   */
  append(record: FactRecord): void;
  /** Appends records, all or nothing. */
  appendBatch(records: Iterable<FactRecord>): void;
  /** Raises the transaction counter to `txCount` with empty transactions. */
  advanceTxCount(txCount: number | bigint): void;
  /** The writer's transaction counter so far. */
  txCount(): number | bigint;
  /** Commits everything, checkpoints and closes the file. */
  finish(): void;
  /** Frees the writer; an unfinished one is abandoned and its file deleted. Idempotent. */
  close(): void;
  [Symbol.dispose](): void;
}

/** An open database. Using it after close() throws MinigrafError API-018. */
export class Database {
  private constructor();
  readonly closed: boolean;
  /** Runs one command: transact, retract, query or rule. */
  execute(text: string): ExecuteResult;
  /** `execute` on the libuv thread pool. */
  executeAsync(text: string, options?: AsyncOptions): Promise<ExecuteResult>;
  /** Runs a (query ...) and opens a cursor over its typed rows (API-012 for other commands). */
  query(text: string, binds?: Binds | null, options?: RowOptions): Cursor;
  /** `query` computed on the libuv thread pool. */
  queryAsync(text: string, options?: AsyncOptions & RowOptions): Promise<Cursor>;
  prepare(text: string): PreparedQuery;
  beginWrite(): Transaction;
  /** A function running `fn` in a write transaction: commit, or rollback on a throw. */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  readonly inTransaction: boolean;
  /** Registers (null: unregisters) a host predicate. */
  function(name: string, fn: ((value: RowValue) => unknown) | null): this;
  function(
    name: string,
    options: { safeIntegers?: boolean },
    fn: ((value: RowValue) => unknown) | null,
  ): this;
  /** Registers (null: unregisters) a host aggregate. */
  aggregate<S>(name: string, spec: AggregateSpec<S> | null): this;
  /** Stops every call running on the database (API-013). */
  interrupt(): void;
  setProgressHandler(every: number, fn: (() => unknown) | null): void;
  setProgressHandler(fn: null): void;
  safeIntegers(on?: boolean): this;
  /**
   * The transaction counter (what `:as-of N` counts): a number while it is
   * at most Number.MAX_SAFE_INTEGER, a bigint beyond.
   */
  txCount(): number | bigint;
  /** Folds the write-ahead log into the main file; a no-op in memory. */
  checkpoint(): void;
  /** Opens a stream over the fact records, as the database stands now. */
  factLog(filter?: FactLogFilter): FactLog;
  /**
   * Writes a copy of the database to the new file `path` (which must not
   * exist) with minigraf_export; the copy answers every query identically.
   * On failure nothing is left at `path`.
   */
  export(path: string | URL, options?: LogWriterOptions): void;
  /** Closes the database (checkpointing a file). Idempotent; open cursors stay readable. */
  close(): void;
  [Symbol.dispose](): void;
}

/** Opens (creating if missing) the database file at `path`. */
export function open(path: string | URL, options?: OpenOptions): Database;

/** Opens a new, empty in-memory database. */
export function openInMemory(options?: OpenOptions): Database;

/** Starts writing a new database file at `path`; neither it nor `<path>.wal` may exist (STG-043). */
export function createLogWriter(path: string | URL, options?: LogWriterOptions): LogWriter;

/** The loaded library's version, e.g. "0.2.0". */
export const version: string;

/** The library ABI version this package was built for. */
export const ABI_VERSION: number;
