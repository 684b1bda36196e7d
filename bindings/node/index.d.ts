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
  /** Closes the database (checkpointing a file). Idempotent; open cursors stay readable. */
  close(): void;
  [Symbol.dispose](): void;
}

/** Opens (creating if missing) the database file at `path`. */
export function open(path: string | URL, options?: OpenOptions): Database;

/** Opens a new, empty in-memory database. */
export function openInMemory(options?: OpenOptions): Database;

/** The loaded library's version, e.g. "0.1.0". */
export const version: string;

/** The library ABI version this package was built for. */
export const ABI_VERSION: number;
