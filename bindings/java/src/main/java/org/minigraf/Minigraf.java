package org.minigraf;

import java.util.List;
import java.util.Objects;
import org.minigraf.internal.minigraf_jni;

/**
 * A minigraf database: an embedded, single-file, bi-temporal graph database
 * queried with Datalog.
 *
 * <pre>{@code
 * try (Minigraf db = Minigraf.openInMemory()) {
 *     db.execute("(transact [[:alice :person/name \"Alice\"]])");
 *     Result r = db.execute("(query [:find ?n :where [?e :person/name ?n]])");
 *     System.out.println(r.rows());          // [[Alice]]
 * }
 * }</pre>
 *
 * <p>A database may be shared between threads: calls on it are serialised.
 * Committed transactions are durable when {@link #execute(String)} returns.
 * {@link #close()} releases the native handle (and checkpoints a file-backed
 * database); there is no finalizer, so use try-with-resources. Using a
 * closed database throws {@link MinigrafApiException} with code API-018.
 *
 * <p>Failures throw a {@link MinigrafException} subclass carrying the spec
 * code, e.g. {@code PRS-011} for an unknown command.
 */
public final class Minigraf implements AutoCloseable {
    static {
        int library = minigraf_jni.minigraf_abi_version(); // loads the natives
        if (library != minigraf_jni.MINIGRAF_ABI_VERSION) {
            throw new UnsatisfiedLinkError("minigraf: the native library has ABI version " + library
                    + ", this binding was built for " + minigraf_jni.MINIGRAF_ABI_VERSION);
        }
    }

    /** Records per batch when {@link #exportTo(String)} copies the fact log. */
    private static final int EXPORT_BATCH = 1000;

    /** Guards {@link #handle}: every native call on it is made holding this lock. */
    private final Object lock = new Object();
    private long handle; // 0 once closed

    private Minigraf(long handle) {
        this.handle = handle;
    }

    /**
     * Opens (creating if missing) the database file at {@code path}.
     *
     * @param path the database file; its write-ahead log is {@code path + ".wal"}
     * @return the open database
     * @throws MinigrafException if the file cannot be opened (e.g. STG codes)
     */
    public static Minigraf open(String path) {
        return open(path, OpenOptions.defaults());
    }

    /**
     * Opens (creating if missing) the database file at {@code path} with options.
     * An empty {@code path} opens an in-memory database, as in the C API.
     *
     * @param path the database file
     * @param options read-only mode and limits
     * @return the open database
     * @throws MinigrafException if the file cannot be opened or an option is invalid (API-017)
     */
    public static Minigraf open(String path, OpenOptions options) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        return new Minigraf(openHandle(Utf8.encode(path), options));
    }

    /** Opens a new, empty in-memory database. */
    public static Minigraf openInMemory() {
        return openInMemory(OpenOptions.defaults());
    }

    /**
     * Opens a new, empty in-memory database with options (limits; read-only
     * is allowed but leaves an empty database).
     *
     * @param options the options
     * @return the open database
     */
    public static Minigraf openInMemory(OpenOptions options) {
        Objects.requireNonNull(options, "options");
        return new Minigraf(openHandle(null, options));
    }

    private static long openHandle(byte[] path, OpenOptions options) {
        String json = options.toJson();
        byte[] optionsJson = json == null ? null : Utf8.encode(json);
        long h = minigraf_jni.minigraf_open_with_options(path, optionsJson); // throws on failure
        if (h == 0) {
            throw new OutOfMemoryError("minigraf: cannot open a database");
        }
        return h;
    }

    /**
     * Executes exactly one command — {@code (transact ...)}, {@code (retract ...)},
     * {@code (query ...)} or {@code (rule ...)} — and returns its whole result.
     * Use {@link #query(String)} to read a large answer in batches.
     *
     * @param text the command
     * @return the result
     * @throws MinigrafParseException if the text is not a valid command
     * @throws MinigrafQueryException if the query fails
     * @throws MinigrafApiException if the database is closed (API-018) or read-only (API-014)
     */
    public Result execute(String text) {
        byte[] command = Utf8.encode(Objects.requireNonNull(text, "text"));
        byte[] json;
        synchronized (lock) {
            json = minigraf_jni.minigraf_execute(liveHandle(), command);
        }
        return Result.fromJson(Utf8.decode(json));
    }

    /**
     * Runs a {@code (query ...)} and opens a cursor over its answer, fixed as
     * of now. The cursor must be closed, even after this database is.
     *
     * @param text the query
     * @return a cursor over the answer
     * @throws MinigrafApiException if {@code text} is not a query (API-012) or the database is closed
     * @throws MinigrafException if the query fails
     */
    public Cursor query(String text) {
        byte[] command = Utf8.encode(Objects.requireNonNull(text, "text"));
        synchronized (lock) {
            return new Cursor(minigraf_jni.minigraf_query(liveHandle(), command));
        }
    }

    /**
     * The transaction counter: 0 for a new database, plus one per committed
     * transact or retract (what {@code :as-of N} counts).
     *
     * @return the counter
     */
    public long txCount() {
        synchronized (lock) {
            return minigraf_jni.minigraf_current_tx_count(liveHandle());
        }
    }

    /**
     * Opens a stream over every stored fact record, in commit order
     * ({@link FactLogFilter#all()}). See {@link #factLog(FactLogFilter)}.
     *
     * @return the log, to be closed
     * @throws MinigrafApiException (API-018) if the database is closed
     */
    public FactLog factLog() {
        return factLog(FactLogFilter.all());
    }

    /**
     * Opens a stream over the stored fact records that pass {@code filter}:
     * every version of every fact, assertions and retractions, with its
     * transaction and valid window. The log shows the database as it stands
     * now; later commits are not seen. It must be closed, and can be read
     * only while this database is open.
     *
     * <pre>{@code
     * try (FactLog log = db.factLog(FactLogFilter.builder().attributes(":person/age").build())) {
     *     log.stream().forEach(r -> System.out.println(r.entity() + " " + r.value()));
     * }
     * }</pre>
     *
     * @param filter which records, in which order
     * @return the log, to be closed
     * @throws MinigrafApiException API-017 if the library refuses the filter; API-018 if the database is closed
     */
    public FactLog factLog(FactLogFilter filter) {
        String json = Objects.requireNonNull(filter, "filter").toJson();
        byte[] filterJson = json == null ? null : Utf8.encode(json);
        synchronized (lock) {
            return new FactLog(minigraf_jni.minigraf_fact_log(liveHandle(), filterJson));
        }
    }

    /**
     * Copies this database into a new file at {@code path}: its fact log in
     * commit order goes through a {@link LogWriter}, whose counter is then
     * raised to {@link #txCount()}, and the writer finishes. The copy answers
     * every query as this database does, {@code :as-of} included. If any
     * step fails the partial file is deleted and the error is thrown.
     *
     * @param path the new file, which must not exist
     * @throws MinigrafStorageException STG-043 if {@code path} exists
     * @throws MinigrafException if the copy cannot be made
     */
    public void exportTo(String path) {
        exportTo(path, LogWriterOptions.defaults());
    }

    /**
     * {@link #exportTo(String)} with options for the new file.
     *
     * @param path the new file, which must not exist
     * @param options how the new file is written
     * @throws MinigrafStorageException STG-043 if {@code path} exists
     * @throws MinigrafException if the copy cannot be made
     */
    public void exportTo(String path, LogWriterOptions options) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        FactLog log;
        long count;
        synchronized (lock) { // the log and the counter from the same state
            log = factLog(FactLogFilter.all());
            try {
                count = txCount();
            } catch (RuntimeException | Error e) {
                log.close();
                throw e;
            }
        }
        try (FactLog records = log; LogWriter writer = LogWriter.create(path, options)) {
            for (List<FactRecord> batch = records.nextBatch(EXPORT_BATCH); !batch.isEmpty();
                    batch = records.nextBatch(EXPORT_BATCH)) {
                writer.appendBatch(batch);
            }
            writer.advanceTxCount(count);
            writer.finish();
        }
    }

    /**
     * Makes a file-backed database's file self-contained: writes every
     * committed transaction into the main file and empties the log. Does
     * nothing for an in-memory database.
     */
    public void checkpoint() {
        synchronized (lock) {
            minigraf_jni.minigraf_checkpoint(liveHandle());
        }
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        synchronized (lock) {
            return handle == 0;
        }
    }

    /**
     * Closes the database (checkpointing a file-backed one) and frees its
     * handle; waits for calls in progress on other threads. Closing a closed
     * database does nothing. Open cursors stay readable; open fact logs
     * then throw API-018 when read (both must still be closed).
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (handle != 0) {
                long h = handle;
                handle = 0;
                minigraf_jni.minigraf_close(h);
            }
        }
    }

    /** Loads and checks the natives (this class's initializer) before another class calls them. */
    static void checkNatives() {
        // Calling a static method runs the static initializer first.
    }

    /** The native library's version, e.g. {@code "0.2.0"}. */
    public static String libraryVersion() {
        return Utf8.decode(minigraf_jni.minigraf_version());
    }

    private long liveHandle() {
        if (handle == 0) {
            throw MinigrafException.create(5018, "API-018", "Use of a closed database");
        }
        return handle;
    }
}
