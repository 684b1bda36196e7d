package org.minigraf;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.minigraf.internal.minigraf_jni;

/**
 * A minigraf database: an embedded, single-file, bi-temporal graph database queried with Datalog.
 *
 * <pre>{@code
 * try (Minigraf db = Minigraf.openInMemory()) {
 *     db.execute("(transact [[:alice :person/name \"Alice\"]])");
 *     List<List<Object>> rows = db.queryAll("(query [:find ?n :where [?e :person/name ?n]])");
 *     System.out.println(rows);          // [[Alice]]
 * }
 * }</pre>
 *
 * <p>A database is shared between threads with no lock of this package: queries from several
 * threads run in parallel, each on its own snapshot; writes take the database's single writer in
 * turn. Committed transactions are durable when {@link #execute(String)} returns. {@link #close()}
 * releases the native handle (and checkpoints a file-backed database); it may be called while other
 * threads are inside calls (they fail with API-013 or finish), and a database dropped unclosed is
 * closed when it is garbage collected. Using a closed database throws {@link MinigrafApiException}
 * with code API-018.
 *
 * <p>A running call stops with API-013 when {@link #cancel()} is called from another thread, when
 * its own thread is interrupted ({@link Thread#interrupt()}; checked every {@value
 * #INTERRUPT_CHECK_ROWS} units of work, or as often as {@link #setProgressHandler} asks), or when
 * the progress handler returns true.
 *
 * <p>Failures throw a {@link MinigrafException} subclass carrying the spec code, e.g. {@code
 * PRS-011} for an unknown command.
 */
public final class Minigraf implements AutoCloseable {
    static {
        int library = minigraf_jni.minigraf_abi_version(); // loads the natives
        if (library != minigraf_jni.MINIGRAF_ABI_VERSION) {
            throw new UnsatisfiedLinkError(
                    "minigraf: the native library has ABI version "
                            + library
                            + ", this binding was built for "
                            + minigraf_jni.MINIGRAF_ABI_VERSION);
        }
    }

    /**
     * Units of work between two checks of {@link Thread#isInterrupted()} when no handler asks for
     * more.
     */
    public static final int INTERRUPT_CHECK_ROWS = 1000;

    /** The native database and its progress context; closed once, by close or by the cleaner. */
    private static final class Handle implements Runnable {
        volatile long handle;
        final long progress;

        Handle(long handle, long progress) {
            this.handle = handle;
            this.progress = progress;
        }

        @Override
        public void run() {
            long h;
            synchronized (this) { // only close and the cleaner: never a query
                h = handle;
                handle = 0;
            }
            if (h != 0) {
                NativeCalls.close(h); // waits for calls in progress on other threads
                NativeCalls.progressFree(progress);
            }
        }
    }

    private final Handle native_;
    private final Cleaner.Cleanable cleanable;
    private final HostCalls.Progress progress;

    private Minigraf(long handle) {
        HostCalls.Progress state = new HostCalls.Progress();
        long ctx;
        try {
            ctx = NativeCalls.progressInstall(handle, INTERRUPT_CHECK_ROWS, state);
        } catch (RuntimeException | Error e) {
            NativeCalls.close(handle);
            throw e;
        }
        this.progress = state;
        this.native_ = new Handle(handle, ctx);
        this.cleanable = NativeCalls.CLEANER.register(this, native_);
    }

    /**
     * Opens (creating if missing) the database file at {@code path}.
     *
     * @param path the database file; its write-ahead log is {@code path + ".wal"}
     * @return the open database
     * @throws MinigrafApiException API-017 if {@code path} is empty (use {@link #openInMemory()})
     * @throws MinigrafException if the file cannot be opened (e.g. STG codes)
     */
    public static Minigraf open(String path) {
        return open(path, OpenOptions.defaults());
    }

    /**
     * Opens (creating if missing) the database file at {@code path} with options.
     *
     * @param path the database file, not empty
     * @param options read-only mode, limits, durability...
     * @return the open database
     * @throws MinigrafApiException API-017 if {@code path} is empty or an option is invalid
     * @throws MinigrafException if the file cannot be opened
     */
    public static Minigraf open(String path, OpenOptions options) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        if (path.isEmpty()) {
            throw MinigrafException.create(
                    5017,
                    "API-017",
                    "Invalid argument: the path is empty (use Minigraf.openInMemory() for an in-memory database)");
        }
        return new Minigraf(openHandle(Utf8.encode(path), options));
    }

    /** Opens a new, empty in-memory database. */
    public static Minigraf openInMemory() {
        return openInMemory(OpenOptions.defaults());
    }

    /**
     * Opens a new, empty in-memory database with options (the limits apply; the file options are
     * ignored).
     *
     * @param options the options
     * @return the open database
     */
    public static Minigraf openInMemory(OpenOptions options) {
        Objects.requireNonNull(options, "options");
        return new Minigraf(openHandle(null, options));
    }

    private static long openHandle(byte[] path, OpenOptions options) {
        checkNatives();
        String json = options.toJson();
        long h =
                NativeCalls.open(
                        path, json == null ? null : Utf8.encode(json)); // throws on failure
        if (h == 0) {
            throw new OutOfMemoryError("minigraf: cannot open a database");
        }
        return h;
    }

    /**
     * Executes exactly one command — {@code (transact ...)}, {@code (retract ...)}, {@code (query
     * ...)} or {@code (rule ...)} — and returns its whole result as the library's JSON renders it
     * (keywords and entities as strings; see {@link Result}). Use {@link #query(String)} or {@link
     * #queryAll(String)} for typed rows.
     *
     * @param text the command
     * @return the result
     * @throws MinigrafParseException if the text is not a valid command
     * @throws MinigrafQueryException if the query fails
     * @throws MinigrafApiException if the database is closed (API-018), read-only (API-014) or the
     *     call was interrupted (API-013)
     */
    public Result execute(String text) {
        try {
            byte[] command = Utf8.encode(Objects.requireNonNull(text, "text"));
            return Result.fromJson(
                    Utf8.decode(minigraf_jni.minigraf_execute(liveHandle(), command)));
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Runs a {@code (query ...)} and opens a cursor over its typed rows, fixed as of now. Close the
     * cursor (it stays readable after this database is closed).
     *
     * @param text the query
     * @return a cursor over the answer
     * @throws MinigrafApiException if {@code text} is not a query (API-012) or the database is
     *     closed
     * @throws MinigrafException if the query fails
     */
    public Cursor query(String text) {
        try {
            byte[] command = Utf8.encode(Objects.requireNonNull(text, "text"));
            return new Cursor(NativeCalls.query(liveHandle(), command));
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Runs a {@code (query ...)} and returns all its typed rows (see {@link Cursor} for the value
     * types).
     *
     * @param text the query
     * @return the rows, unmodifiable
     * @throws MinigrafException as {@link #query(String)}
     */
    public List<List<Object>> queryAll(String text) {
        try {
            byte[] command = Utf8.encode(Objects.requireNonNull(text, "text"));
            return Cursor.readAll(NativeCalls.query(liveHandle(), command));
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Parses and checks a {@code (query ...)} with {@code $name} slots once, to run it any number
     * of times with {@link PreparedQuery#bind}.
     *
     * @param text the query
     * @return the prepared query, to be closed
     * @throws MinigrafParseException for a malformed query
     * @throws MinigrafApiException API-005/006/007 for a command other than a query, API-015 for a
     *     slot in attribute position
     */
    public PreparedQuery prepare(String text) {
        try {
            byte[] command = Utf8.encode(Objects.requireNonNull(text, "text"));
            return new PreparedQuery(this, NativeCalls.prepare(liveHandle(), command));
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Begins a write transaction: its statements commit together, as one transaction, at {@link
     * Transaction#commit()}; closing it uncommitted rolls it back.
     *
     * <pre>{@code
     * try (Transaction tx = db.beginWrite()) {
     *     tx.execute("(transact [[:a :n 1]])");
     *     tx.execute("(transact [[:b :n 2]])");
     *     tx.commit();
     * }
     * }</pre>
     *
     * @return the transaction, to be closed
     * @throws MinigrafApiException API-014 read-only; API-020 another thread's transaction stayed
     *     open past busy_timeout_ms
     * @throws MinigrafInternalException INT-003 this thread has a transaction open on this database
     */
    public Transaction beginWrite() {
        try {
            return new Transaction(this, NativeCalls.beginWrite(liveHandle()));
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Registers a predicate {@code name} (by convention ending in '?'), callable in queries as
     * {@code [(name ?x)]} or {@code [(name ?x) ?ok]}. It runs on the thread running the query; an
     * exception it throws fails the query with API-016 carrying the exception's message.
     *
     * @param name the name
     * @param predicate the test
     * @throws MinigrafApiException API-021 if the name is a built-in or registered already
     */
    public void registerPredicate(String name, Predicate<Value> predicate) {
        Objects.requireNonNull(predicate, "predicate");
        NativeCalls.register(
                liveHandle(), Utf8.encode(Objects.requireNonNull(name, "name")), predicate, false);
    }

    /**
     * Registers an aggregate {@code name}, usable in {@code :find} as {@code (name ?x)} and as a
     * window function with {@code :over}. For each group (or window partition) {@code init} makes
     * an accumulator, {@code step} returns it updated with one value (a {@code :find} aggregate
     * sees only non-null values; a window sees every row), and {@code finish} turns it into the
     * answer: a String, Long, Integer, Double, Boolean, {@link Keyword}, {@link Entity}, {@link
     * Value} or null. Exceptions fail the query with API-016.
     *
     * @param <A> the accumulator type
     * @param name the name
     * @param init a new accumulator
     * @param step adds one value
     * @param finish the answer of an accumulator
     * @throws MinigrafApiException API-021 if the name is a built-in or registered already
     */
    public <A> void registerAggregate(
            String name,
            Supplier<A> init,
            BiFunction<A, Value, A> step,
            Function<A, Object> finish) {
        register(name, HostCalls.aggregate(init, step, finish));
    }

    /**
     * {@link #registerAggregate(String, Supplier, BiFunction, Function)} whose finish also gets the
     * number of steps so far.
     *
     * @param <A> the accumulator type
     * @param name the name
     * @param init a new accumulator
     * @param step adds one value
     * @param finish the answer of an accumulator and its step count
     */
    public <A> void registerAggregate(
            String name,
            Supplier<A> init,
            BiFunction<A, Value, A> step,
            BiFunction<A, Long, Object> finish) {
        register(name, new HostCalls.Aggregate<>(init, step, finish));
    }

    private void register(String name, HostCalls.Aggregate<?> aggregate) {
        Objects.requireNonNull(aggregate.init, "init");
        Objects.requireNonNull(aggregate.step, "step");
        Objects.requireNonNull(aggregate.finish, "finish");
        NativeCalls.register(
                liveHandle(), Utf8.encode(Objects.requireNonNull(name, "name")), aggregate, true);
    }

    /**
     * Unregisters the predicate {@code name}; queries already running keep it.
     *
     * @param name the name
     * @throws MinigrafApiException API-017 if no predicate has that name
     */
    public void unregisterPredicate(String name) {
        NativeCalls.register(
                liveHandle(), Utf8.encode(Objects.requireNonNull(name, "name")), null, false);
    }

    /**
     * Unregisters the aggregate {@code name}.
     *
     * @param name the name
     * @throws MinigrafApiException API-017 if no aggregate has that name
     */
    public void unregisterAggregate(String name) {
        NativeCalls.register(
                liveHandle(), Utf8.encode(Objects.requireNonNull(name, "name")), null, true);
    }

    /**
     * Stops every call running on this database now, from any thread: each fails with API-013
     * within about 10 ms; a stopped write wrote nothing. Calls that start afterwards are not
     * affected.
     */
    public void cancel() {
        long h = native_.handle;
        if (h != 0) {
            NativeCalls.interrupt(h);
        }
    }

    /**
     * Installs a progress handler, called about every {@code everyNRows} units of work (records
     * read, rows produced or sorted) on the thread running a call; returning true stops that call
     * with API-013. An exception it throws also stops it. Null removes it. Thread interrupts are
     * checked as often.
     *
     * @param everyNRows how often, at least 1
     * @param handler true to stop; null for none
     * @throws IllegalArgumentException if {@code everyNRows < 1}
     */
    public void setProgressHandler(int everyNRows, BooleanSupplier handler) {
        try {
            if (everyNRows < 1) {
                throw new IllegalArgumentException("everyNRows must be at least 1: " + everyNRows);
            }
            long h = liveHandle();
            progress.handler = handler;
            NativeCalls.progressEvery(
                    h, native_.progress, handler == null ? INTERRUPT_CHECK_ROWS : everyNRows);
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * The transaction counter: 0 for a new database, plus one per committed transact or retract
     * (what {@code :as-of N} counts).
     *
     * @return the counter
     */
    public long txCount() {
        try {
            return minigraf_jni.minigraf_current_tx_count(liveHandle());
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Opens a stream over every stored fact record, in commit order ({@link FactLogFilter#all()}).
     * See {@link #factLog(FactLogFilter)}.
     *
     * @return the log, to be closed
     * @throws MinigrafApiException (API-018) if the database is closed
     */
    public FactLog factLog() {
        try {
            return factLog(FactLogFilter.all());
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Opens a stream over the stored fact records that pass {@code filter}: every version of every
     * fact, assertions and retractions, with its transaction and valid window. The log shows the
     * database as it stands now; later commits are not seen. It must be closed, and can be read
     * only while this database is open.
     *
     * @param filter which records, in which order
     * @return the log, to be closed
     * @throws MinigrafApiException API-017 if the library refuses the filter; API-018 if the
     *     database is closed
     */
    public FactLog factLog(FactLogFilter filter) {
        String json = Objects.requireNonNull(filter, "filter").toJson();
        byte[] filterJson = json == null ? null : Utf8.encode(json);
        return new FactLog(minigraf_jni.minigraf_fact_log(liveHandle(), filterJson));
    }

    /**
     * Copies this database into a new file at {@code path} in one call ({@code minigraf_export}):
     * every fact record of one snapshot and its transaction counter, so the copy answers every
     * query as this database does, {@code :as-of} included. Commits made meanwhile are not copied
     * and are not blocked. On failure the partial file is deleted.
     *
     * @param path the new file, which must not exist
     * @throws MinigrafStorageException STG-043 if {@code path} exists
     * @throws MinigrafException if the copy cannot be made
     */
    public void exportTo(String path) {
        try {
            exportTo(path, LogWriterOptions.defaults());
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
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
        String json = Objects.requireNonNull(options, "options").toJson();
        NativeCalls.export(
                liveHandle(), Utf8.encode(path), json == null ? null : Utf8.encode(json));
    }

    /**
     * Makes a file-backed database's file self-contained: writes every committed transaction into
     * the main file and empties the log. Does nothing for an in-memory database.
     */
    public void checkpoint() {
        try {
            minigraf_jni.minigraf_checkpoint(liveHandle());
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        return native_.handle == 0;
    }

    /**
     * Closes the database (checkpointing a file-backed one) and frees its handle; calls in progress
     * on other threads are interrupted or finish first. An open transaction is rolled back;
     * prepared queries and transactions then fail with API-018. Open cursors stay readable; open
     * fact logs throw API-018 when read. Host functions are released. Closing a closed database
     * does nothing.
     */
    @Override
    public void close() {
        cleanable.clean();
    }

    /** Loads and checks the natives (this class's initializer) before another class calls them. */
    static void checkNatives() {
        // Calling a static method runs the static initializer first.
    }

    /** The native library's version, e.g. {@code "0.2.0"}. */
    public static String libraryVersion() {
        return Utf8.decode(minigraf_jni.minigraf_version());
    }

    /**
     * Every open option the library knows, as the JSON array of {@code minigraf_options_describe}
     * (name, type, default, meaning).
     *
     * @return the JSON text
     */
    public static String describeOptions() {
        checkNatives();
        return Utf8.decode(NativeCalls.optionsDescribe());
    }

    long liveHandle() {
        long h = native_.handle;
        if (h == 0) {
            throw MinigrafException.create(5018, "API-018", "Use of a closed database");
        }
        return h;
    }
}
