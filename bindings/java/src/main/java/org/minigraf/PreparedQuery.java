package org.minigraf;

import java.lang.ref.Reference;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * A {@code (query ...)} parsed and checked once, run any number of times with values for its {@code
 * $name} slots; from {@link Minigraf#prepare(String)}.
 *
 * <pre>{@code
 * try (PreparedQuery pq = db.prepare("(query [:find ?n :where [$e :person/name ?n]])")) {
 *     List<List<Object>> rows = pq.bind("e", alice).execute();
 * }
 * }</pre>
 *
 * <p>{@link #bind(String, Object)} takes the value types of a row, so a value read from a row binds
 * back unchanged: {@link String}, {@link Long} (or Integer, Short, Byte), {@link Double} (or
 * Float), {@link Boolean}, {@link Keyword}, {@link Entity}, null. A keyword in a value position
 * also matches the entity it names, as in the query text. {@code :as-of} and {@code :valid-at}
 * slots take {@link #bindTxCount}, {@link #bindTimestamp} and {@link #bindAnyValidTime}. Bindings
 * stay until re-bound or {@link #clearBindings()}; a name the query does not use is ignored.
 *
 * <p>Each run sees the database as it is at that moment. One thread at a time uses a prepared query
 * (its methods are synchronized); its cursors are independent of it. After its database is closed
 * every call fails with API-018. Close it; one dropped unclosed is freed when collected.
 */
public final class PreparedQuery implements AutoCloseable {

    private final Minigraf db; // keeps the database from being collected while this is used
    private final NativeHandle native_;

    PreparedQuery(Minigraf db, long handle) {
        this.db = db;
        this.native_ =
                new NativeHandle(handle, NativeCalls::stmtFree, "prepared query").cleanWith(this);
    }

    /**
     * Binds the slot {@code $name} ({@code name} with or without its '$').
     *
     * @param name the slot
     * @param value a String, Long, Integer, Short, Byte, Double, Float, Boolean, {@link Keyword},
     *     {@link Entity}, {@link Value} or null
     * @return this
     * @throws IllegalArgumentException for a value of another class
     * @throws MinigrafApiException API-015 when a place of the slot does not take that kind of
     *     value
     */
    public synchronized PreparedQuery bind(String name, Object value) {
        try {
            Value v = Value.of(value);
            long h = liveHandle();
            byte[] slot = Utf8.encode(Objects.requireNonNull(name, "name"));
            switch (v.type()) {
                case STRING:
                    NativeCalls.bind(
                            h, slot, NativeCalls.TYPE_STRING, 0, 0, Utf8.encode(v.asString()));
                    break;
                case INTEGER:
                    NativeCalls.bind(h, slot, NativeCalls.TYPE_INTEGER, v.asLong(), 0, null);
                    break;
                case FLOAT:
                    NativeCalls.bind(h, slot, NativeCalls.TYPE_FLOAT, 0, v.asDouble(), null);
                    break;
                case BOOLEAN:
                    NativeCalls.bind(
                            h, slot, NativeCalls.TYPE_BOOLEAN, (Boolean) v.get() ? 1 : 0, 0, null);
                    break;
                case KEYWORD:
                    NativeCalls.bind(
                            h,
                            slot,
                            NativeCalls.TYPE_KEYWORD,
                            0,
                            0,
                            Utf8.encode(((Keyword) v.get()).text()));
                    break;
                case ENTITY:
                    NativeCalls.bind(
                            h, slot, NativeCalls.TYPE_REF, 0, 0, ((Entity) v.get()).toBytes());
                    break;
                case LIST:
                    throw new IllegalArgumentException("a list (collect-set) cannot be bound");
                default:
                    NativeCalls.bind(h, slot, NativeCalls.TYPE_NULL, 0, 0, null);
                    break;
            }
            return this;
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Binds an {@code :as-of $t} slot to a transaction count.
     *
     * @param name the slot
     * @param txCount the count, at least 0
     * @return this
     */
    public synchronized PreparedQuery bindTxCount(String name, long txCount) {
        try {
            if (txCount < 0) {
                throw new IllegalArgumentException("txCount must not be negative: " + txCount);
            }
            NativeCalls.bind(
                    liveHandle(), Utf8.encode(name), NativeCalls.BIND_TX_COUNT, txCount, 0, null);
            return this;
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Binds an {@code :as-of} or {@code :valid-at} slot to an instant, in milliseconds since the
     * epoch.
     *
     * @param name the slot
     * @param epochMillis the instant
     * @return this
     */
    public synchronized PreparedQuery bindTimestamp(String name, long epochMillis) {
        try {
            NativeCalls.bind(
                    liveHandle(),
                    Utf8.encode(name),
                    NativeCalls.BIND_TIMESTAMP,
                    epochMillis,
                    0,
                    null);
            return this;
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * {@link #bindTimestamp(String, long)} of an {@link Instant}.
     *
     * @param name the slot
     * @param instant the instant (its milliseconds)
     * @return this
     */
    public PreparedQuery bindTimestamp(String name, Instant instant) {
        return bindTimestamp(name, Objects.requireNonNull(instant, "instant").toEpochMilli());
    }

    /**
     * Binds a {@code :valid-at} slot to {@code :any-valid-time}.
     *
     * @param name the slot
     * @return this
     */
    public synchronized PreparedQuery bindAnyValidTime(String name) {
        try {
            NativeCalls.bind(
                    liveHandle(), Utf8.encode(name), NativeCalls.BIND_ANY_VALID_TIME, 0, 0, null);
            return this;
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Binds several slots from the JSON object of {@code minigraf_stmt_bind_json}, all or nothing,
     * e.g. {@code {"e": {"entity": "<uuid>"}, "t": {"tx_count": 1}}}.
     *
     * @param json the object
     * @return this
     * @throws MinigrafApiException API-017 malformed, API-015 a wrong kind for a slot
     */
    public synchronized PreparedQuery bindJson(String json) {
        try {
            NativeCalls.bindJson(liveHandle(), Utf8.encode(Objects.requireNonNull(json, "json")));
            return this;
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Unbinds every slot.
     *
     * @return this
     */
    public synchronized PreparedQuery clearBindings() {
        try {
            NativeCalls.clearBindings(liveHandle());
            return this;
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Runs the query and returns all its typed rows.
     *
     * @return the rows, unmodifiable
     * @throws MinigrafApiException API-015 for an unbound slot; API-018 after close
     * @throws MinigrafException what the query fails with
     */
    public synchronized List<List<Object>> execute() {
        try {
            return Cursor.readAll(NativeCalls.stmtQuery(liveHandle()));
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Runs the query and returns its result as {@link Minigraf#execute(String)} renders a query
     * (the library's JSON).
     *
     * @return the result
     */
    public synchronized Result executeResult() {
        try {
            return Result.fromJson(Utf8.decode(NativeCalls.stmtExecute(liveHandle())));
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Runs the query and opens a cursor over its rows.
     *
     * @return the cursor, to be closed
     */
    public synchronized Cursor query() {
        try {
            return new Cursor(NativeCalls.stmtQuery(liveHandle()));
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Runs the query and streams its rows; closing the stream frees its cursor.
     *
     * @return the rows
     */
    public Stream<List<Object>> stream() {
        return query().stream();
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        return native_.isClosed();
    }

    /** Frees the prepared query; its open cursors stay readable. */
    @Override
    public synchronized void close() {
        native_.close();
    }

    private long liveHandle() {
        return native_.live();
    }
}
