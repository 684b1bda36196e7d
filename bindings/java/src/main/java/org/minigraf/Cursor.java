package org.minigraf;

import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The typed rows of one query; from {@link Minigraf#query(String)}, {@link PreparedQuery#query()}
 * or {@link Transaction#query(String)}.
 *
 * <pre>{@code
 * try (Cursor cursor = db.query("(query [:find ?e ?n :where [?e :name ?n]])")) {
 *     for (List<Object> row : cursor) {
 *         Entity e = (Entity) row.get(0);
 *         String name = (String) row.get(1);
 *     }
 * }
 * }</pre>
 *
 * <p>Each row is a {@link Row}: values are {@link String}, {@link Long}, {@link Double} (NaN and
 * &plusmn;Infinity kept), {@link Boolean}, {@link Keyword}, {@link Entity}, a {@code List} for
 * collect-set, or null (see {@link Value}). Rows are read from the library many at a time, with no
 * JSON in between.
 *
 * <p>The answer is fixed when the cursor opens: later writes do not change it, and it stays
 * readable after its database is closed. Every row is delivered once, whichever of {@link
 * #nextBatch(int)}, {@link #iterator()} and {@link #stream()} reads it. Close it
 * (try-with-resources); a cursor dropped unclosed is freed when it is garbage collected. The
 * cursor's methods are synchronized; an iterator or stream of it is for one thread at a time, as
 * those of {@code java.util}'s synchronized collections are (it takes the cursor's lock only to
 * fetch the next batch).
 */
public final class Cursor implements AutoCloseable, Iterable<List<Object>> {
    /** Rows fetched per crossing into the library by the iterator and stream. */
    public static final int DEFAULT_BATCH = 1000;

    private final NativeHandle native_;
    private final int columns;
    private List<String> variables;
    private boolean exhausted;

    /** Rows fetched by an iterator but not yet delivered, from {@code next}. */
    private final RowList pending = new RowList(0);

    private int next;

    /** Takes {@code handle} (freed here if the cursor cannot be made). */
    Cursor(long handle) {
        try {
            this.columns = NativeCalls.columnCount(handle);
        } catch (RuntimeException | Error e) {
            NativeCalls.cursorFree(handle);
            throw e;
        }
        this.native_ = new NativeHandle(handle, NativeCalls::cursorFree, "cursor").cleanWith(this);
    }

    /**
     * Reads every row of {@code handle} and frees it: the whole answer of one query with no Cursor
     * object in between.
     */
    static List<List<Object>> readAll(long handle) {
        try {
            int cols = NativeCalls.columnCount(handle);
            RowList rows = new RowList(0);
            int batch = 64; // a first crossing sized for short answers
            while (RowDecoder.fetch(handle, cols, batch, rows)) {
                batch = Integer.MAX_VALUE;
            }
            return rows;
        } finally {
            NativeCalls.cursorFree(handle);
        }
    }

    /** The :find headers of {@code handle}, e.g. {@code ["?n", "(count ?e)"]}. */
    static List<String> columnNames(long handle) {
        int n = NativeCalls.columnCount(handle);
        List<String> names = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            names.add(Utf8.decode(NativeCalls.columnName(handle, i)));
        }
        return Collections.unmodifiableList(names);
    }

    /**
     * The :find headers, e.g. {@code ["?n", "(count ?e)"]}. Unmodifiable.
     *
     * @throws MinigrafApiException (API-018) if the cursor is closed
     */
    public synchronized List<String> variables() {
        try {
            if (variables == null) {
                variables = columnNames(liveHandle());
            }
            return variables;
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /** The number of columns. */
    public int columnCount() {
        return columns;
    }

    /**
     * The next rows, at most {@code maxRows}; an empty list only at the end (and on every call
     * after it).
     *
     * @param maxRows the most rows to return, at least 1
     * @return the rows, an unmodifiable list
     * @throws IllegalArgumentException if {@code maxRows < 1}
     * @throws MinigrafApiException (API-018) if the cursor is closed
     * @throws MinigrafException if the query fails while its rows are read (e.g. QRY-012, or
     *     API-013 when interrupted)
     */
    public synchronized List<List<Object>> nextBatch(int maxRows) {
        try {
            if (maxRows < 1) {
                throw new IllegalArgumentException("maxRows must be at least 1: " + maxRows);
            }
            return take(maxRows, false);
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free it mid-call
        }
    }

    /**
     * Every remaining row.
     *
     * @return the rows, an unmodifiable list
     * @throws MinigrafException as {@link #nextBatch(int)}
     */
    public synchronized List<List<Object>> all() {
        try {
            return take(Integer.MAX_VALUE, true);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The next rows, at most {@code maxRows}: first those an iterator fetched ahead, then from the
     * library; with {@code untilEnd}, an error met after some rows is thrown here instead of by the
     * next call.
     */
    private RowList take(int maxRows, boolean untilEnd) {
        long h = liveHandle();
        RowList rows = new RowList(0);
        int ahead = Math.min(maxRows, pending.size() - next);
        rows.reserve(ahead);
        for (int i = 0; i < ahead; i++) {
            rows.append(pending.row(next++));
        }
        while (rows.size() < maxRows && !exhausted) {
            exhausted = !RowDecoder.fetch(h, columns, maxRows - rows.size(), rows);
            if (!untilEnd) {
                break;
            }
        }
        return rows;
    }

    /** Refills {@code pending}; false at the end. */
    private synchronized boolean hasPending() {
        if (next == pending.size() && !exhausted) {
            pending.drop();
            next = 0;
            try {
                exhausted = !RowDecoder.fetch(liveHandle(), columns, DEFAULT_BATCH, pending);
            } finally {
                Reference.reachabilityFence(this);
            }
        }
        return next < pending.size();
    }

    /** The next row for an iterator; NoSuchElementException at the end. */
    private synchronized List<Object> takePending() {
        if (!hasPending()) {
            throw new NoSuchElementException();
        }
        return pending.row(next++);
    }

    /**
     * An iterator over the remaining rows, fetched {@link #DEFAULT_BATCH} at a time. Its methods
     * throw {@link MinigrafException} as {@link #nextBatch(int)} does.
     */
    @Override
    public Iterator<List<Object>> iterator() {
        return new Iterator<List<Object>>() {
            @Override
            public boolean hasNext() {
                return next < pending.size() || hasPending();
            }

            @Override
            public List<Object> next() {
                // No lock while rows fetched ahead remain: a monitor per row cost about as much
                // as making the row.
                return next < pending.size() ? pending.row(next++) : takePending();
            }
        };
    }

    /** A sequential stream of the remaining rows; closing the stream closes this cursor. */
    public Stream<List<Object>> stream() {
        Spliterator<List<Object>> rows =
                Spliterators.spliteratorUnknownSize(
                        iterator(), Spliterator.ORDERED | Spliterator.NONNULL);
        return StreamSupport.stream(rows, false).onClose(this::close);
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        return native_.isClosed();
    }

    /** Frees the cursor. Closing a closed cursor does nothing. */
    @Override
    public synchronized void close() {
        pending.drop();
        next = 0;
        native_.close();
    }

    private long liveHandle() {
        return native_.live();
    }
}
