package org.minigraf;

import java.lang.ref.Reference;
import java.util.List;
import java.util.Objects;

/**
 * A write transaction; from {@link Minigraf#beginWrite()}. Its statements are staged in memory and
 * commit together as one transaction (one counter value, one tx time) at {@link #commit()}, or
 * never: {@link #rollback()}, {@link #close()} without commit, or the end of the process.
 *
 * <pre>{@code
 * try (Transaction tx = db.beginWrite()) {
 *     tx.execute("(transact [[:alice :balance 90]])");
 *     tx.execute("(transact [[:bob :balance 110]])");
 *     tx.commit();
 * } // not committed: rolled back
 * }</pre>
 *
 * <p>It holds the database's writer until it ends: readers on any thread go on, seeing only
 * committed data; other threads' writes wait (at most {@code busy_timeout_ms}, then API-020); a
 * write on {@link Minigraf} from the thread that began it fails at once with INT-003. Its queries
 * see the committed data plus what it staged. One thread at a time uses it (its methods are
 * synchronized); it may be committed or closed from another.
 */
public final class Transaction implements AutoCloseable {

    private final Minigraf db; // keeps the database from being collected while this is used
    private final NativeHandle native_;

    Transaction(Minigraf db, long handle) {
        this.db = db;
        this.native_ = new NativeHandle(handle, NativeCalls::txFree, "transaction").cleanWith(this);
    }

    /**
     * Runs one command in the transaction: a transact or retract is checked and staged ({@link
     * Result.Kind#OK}); a query sees the staged statements; a rule registers at once (and stays
     * after a rollback).
     *
     * @param text the command
     * @return the result
     * @throws MinigrafApiException API-018 once the transaction has ended
     * @throws MinigrafException what the command fails with (the transaction stays open)
     */
    public synchronized Result execute(String text) {
        try {
            byte[] command = Utf8.encode(Objects.requireNonNull(text, "text"));
            return Result.fromJson(Utf8.decode(NativeCalls.txExecute(liveHandle(), command)));
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * A cursor over a query's typed rows on the committed data plus the staged statements; computed
     * in full, it outlives the transaction.
     *
     * @param text the query
     * @return the cursor, to be closed
     */
    public synchronized Cursor query(String text) {
        try {
            byte[] command = Utf8.encode(Objects.requireNonNull(text, "text"));
            return new Cursor(NativeCalls.txQuery(liveHandle(), command));
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * All typed rows of a query, as {@link #query(String)} sees them.
     *
     * @param text the query
     * @return the rows
     */
    public synchronized List<List<Object>> queryAll(String text) {
        try {
            byte[] command = Utf8.encode(Objects.requireNonNull(text, "text"));
            return Cursor.readAll(NativeCalls.txQuery(liveHandle(), command));
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Commits every staged statement as one transaction. Success or failure, the transaction has
     * ended afterwards.
     *
     * @throws MinigrafApiException API-018 if it had ended; API-019 a window made empty by the
     *     commit instant
     * @throws MinigrafStorageException WAL-003 size limits; storage errors
     */
    public synchronized void commit() {
        try {
            NativeCalls.txEnd(liveHandle(), true);
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Discards the staged statements and ends the transaction.
     *
     * @throws MinigrafApiException API-018 if it had ended
     */
    public synchronized void rollback() {
        try {
            NativeCalls.txEnd(liveHandle(), false);
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /** Rolls back if still open, and frees the handle. */
    @Override
    public void close() {
        native_.close();
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        return native_.isClosed();
    }

    private long liveHandle() {
        return native_.live();
    }
}
