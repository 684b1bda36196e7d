package org.minigraf;

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
     * database does nothing. Open cursors stay readable.
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

    /** The native library's version, e.g. {@code "0.1.0"}. */
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
