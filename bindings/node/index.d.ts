/**
 * minigraf — an embedded, single-file, bi-temporal graph database with a
 * Datalog query language.
 */

/**
 * One value in a result row.
 * - strings, booleans and null as themselves;
 * - keywords as ":ns/name" strings, entity ids as lowercase UUID strings;
 * - floats as numbers (NaN and ±Infinity arrive as null);
 * - integers as numbers when |v| <= Number.MAX_SAFE_INTEGER, else as
 *   bigints holding them exactly.
 */
export type Value = string | number | bigint | boolean | null;

export type Row = Value[];

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
  /** Writes fail with API-014. */
  readOnly?: boolean;
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
export class Cursor implements Iterable<Row>, AsyncIterable<Row> {
  private constructor();
  /** The :find column headers, e.g. ["?n", "(count ?e)"]. */
  readonly variables: readonly string[];
  readonly closed: boolean;
  /** The next at most `maxRows` rows (default 256; 0 counts as 1), or null at the end. */
  nextBatch(maxRows?: number): Row[] | null;
  /** `nextBatch` on the libuv thread pool. */
  nextBatchAsync(maxRows?: number): Promise<Row[] | null>;
  /** Frees the cursor. Idempotent. */
  close(): void;
  [Symbol.iterator](): Generator<Row, void, undefined>;
  [Symbol.asyncIterator](): AsyncGenerator<Row, void, undefined>;
  [Symbol.dispose](): void;
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
  nextBatchAsync(maxRecords?: number): Promise<FactRecord[] | null>;
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
  executeAsync(text: string): Promise<ExecuteResult>;
  /** Runs a (query ...) and opens a cursor over its answer (API-012 for other commands). */
  query(text: string): Cursor;
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
   * exist) through a LogWriter; the copy answers every query identically.
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

/** The loaded library's version, e.g. "0.1.0". */
export const version: string;

/** The library ABI version this package was built for. */
export const ABI_VERSION: number;
