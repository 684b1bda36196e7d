package org.minigraf;

import java.util.List;
import java.util.Objects;
import org.minigraf.internal.minigraf_jni;

/**
 * Builds a new database file from fact records: the records of a {@link FactLog} read in {@link
 * FactLogFilter.Order#TX} order and appended here rebuild a database that answers every query
 * identically, including {@code :as-of} and the transaction counter ({@link
 * Minigraf#exportTo(String)} does exactly that).
 *
 * <pre>{@code
 * try (LogWriter writer = LogWriter.create("copy.graph")) {
 *     writer.append(new FactRecord(entity, ":person/age", TypedValue.ofInteger(30),
 *             1, txId, txId, FactRecord.FOREVER, true));
 *     writer.finish();
 * } // closing an unfinished writer deletes the partial file
 * }</pre>
 *
 * <p>Records come in non-decreasing {@link FactRecord#txCount()} order, each at least the writer's
 * current counter; records with the same number form one transaction. Nothing is readable until
 * {@link #finish()} commits, checkpoints and closes the file. {@link #close()} without a successful
 * {@code finish()} abandons the file: it and its write-ahead log are deleted. The methods are
 * synchronized; a writer is meant to be fed by one thread.
 */
public final class LogWriter extends NativeObject {
    private boolean finished;

    private LogWriter(long handle) {
        super(handle, "log writer");
    }

    /**
     * Starts writing a new database file at {@code path}.
     *
     * @param path the new file, which must not exist
     * @return the writer
     * @throws MinigrafStorageException STG-043 if the file exists; other STG codes if it cannot be
     *     made
     */
    public static LogWriter create(String path) {
        return create(path, LogWriterOptions.defaults());
    }

    /**
     * Starts writing a new database file at {@code path} with options.
     *
     * @param path the new file, which must not exist
     * @param options how the file is written
     * @return the writer
     * @throws MinigrafStorageException STG-043 if the file exists; other STG codes if it cannot be
     *     made
     * @throws MinigrafApiException API-017 if an option is invalid
     */
    public static LogWriter create(String path, LogWriterOptions options) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        Minigraf.checkNatives();
        String json = options.toJson();
        long h =
                minigraf_jni.minigraf_log_writer_create(
                        Utf8.encode(path),
                        json == null ? null : Utf8.encode(json)); // throws on failure
        if (h == 0) {
            throw new OutOfMemoryError("minigraf: cannot create a log writer");
        }
        return new LogWriter(h);
    }

    /**
     * Appends one record.
     *
     * @param record the record
     * @throws MinigrafApiException API-017 for an invalid record, a decreasing transaction number
     *     or an empty valid window; API-018 after {@link #finish()} or {@link #close()}
     * @throws MinigrafException if the file cannot be written
     */
    public synchronized void append(FactRecord record) {
        byte[] json = Utf8.encode(Objects.requireNonNull(record, "record").toJson());
        minigraf_jni.minigraf_log_writer_append(liveHandle(), json);
    }

    /**
     * Appends records, all or nothing: if one is refused, none is appended.
     *
     * @param records the records, in order
     * @throws MinigrafApiException as {@link #append(FactRecord)} does
     * @throws MinigrafException if the file cannot be written
     */
    public synchronized void appendBatch(List<FactRecord> records) {
        byte[] json =
                Utf8.encode(FactRecord.toJsonArray(Objects.requireNonNull(records, "records")));
        minigraf_jni.minigraf_log_writer_append_batch(liveHandle(), json);
    }

    /**
     * Raises the transaction counter to {@code txCount} with empty transactions, as a source
     * database's empty transacts did, so that the rebuilt counter matches.
     *
     * @param txCount the new counter, at least the current one
     * @throws IllegalArgumentException if {@code txCount} is negative
     * @throws MinigrafApiException API-017 if {@code txCount} is below the current counter
     */
    public synchronized void advanceTxCount(long txCount) {
        if (txCount < 0) {
            throw new IllegalArgumentException("txCount must not be negative: " + txCount);
        }
        minigraf_jni.minigraf_log_writer_advance_tx_count(liveHandle(), txCount);
    }

    /**
     * The writer's transaction counter so far.
     *
     * @return the counter
     * @throws MinigrafApiException API-018 after {@link #close()}
     */
    public synchronized long txCount() {
        return minigraf_jni.minigraf_log_writer_tx_count(liveHandle());
    }

    /**
     * Commits everything, checkpoints and closes the file, which is then a complete database. The
     * writer can then only be closed; a second {@code finish} fails with API-018.
     *
     * @throws MinigrafException if the file cannot be completed (then {@link #close()} deletes it)
     */
    public synchronized void finish() {
        minigraf_jni.minigraf_log_writer_finish(liveHandle());
        finished = true;
    }

    /** Whether {@link #finish()} has succeeded. */
    public synchronized boolean isFinished() {
        return finished;
    }

    // isClosed() and close() come from NativeObject: closing an unfinished
    // writer abandons it, deleting its partial file and write-ahead log.

    @Override
    void free(long handle) {
        minigraf_jni.minigraf_log_writer_free(handle);
    }
}
