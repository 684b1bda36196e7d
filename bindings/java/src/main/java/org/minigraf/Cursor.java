package org.minigraf;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.minigraf.internal.minigraf_jni;

/**
 * The rows of one query, read in batches; from {@link Minigraf#query(String)}.
 *
 * <pre>{@code
 * try (Cursor cursor = db.query("(query [:find ?n :where [?e :name ?n]])")) {
 *     for (List<Object> row : cursor) {
 *         System.out.println(row.get(0));
 *     }
 * }
 * }</pre>
 *
 * <p>The answer is fixed when the cursor opens: later writes do not change
 * it, and it stays readable after its database is closed. Every row is
 * delivered once, whichever of {@link #nextBatch(int)}, {@link #iterator()}
 * and {@link #stream()} reads it. A cursor holds native memory until
 * {@link #close()}: use try-with-resources. Its methods are synchronized,
 * but a cursor is meant to be read by one thread.
 */
public final class Cursor implements AutoCloseable, Iterable<List<Object>> {
    /** Rows fetched per crossing into the library by the iterator and stream. */
    public static final int DEFAULT_BATCH = 1000;

    private long handle; // 0 once closed
    private List<String> variables;
    private boolean exhausted;
    /** Rows fetched by an iterator but not yet delivered. */
    private final ArrayDeque<List<Object>> pending = new ArrayDeque<>();

    Cursor(long handle) {
        this.handle = handle;
    }

    /**
     * The :find headers, e.g. {@code ["?n", "(count ?e)"]}. Unmodifiable.
     *
     * @throws MinigrafApiException (API-018) if the cursor is closed
     */
    public synchronized List<String> variables() {
        if (variables == null) {
            byte[] json = minigraf_jni.minigraf_cursor_vars(liveHandle());
            variables = Result.variables(Result.parseLibraryJson(Utf8.decode(json)));
        }
        return variables;
    }

    /**
     * The next rows, at most {@code maxRows} of them; an empty list only at
     * the end of the answer (and on every call after it).
     *
     * @param maxRows the most rows to return, at least 1
     * @return the rows, each an unmodifiable list of values (see {@link Result})
     * @throws IllegalArgumentException if {@code maxRows < 1}
     * @throws MinigrafApiException (API-018) if the cursor is closed
     * @throws MinigrafException if the library fails to produce the rows
     */
    public synchronized List<List<Object>> nextBatch(int maxRows) {
        if (maxRows < 1) {
            throw new IllegalArgumentException("maxRows must be at least 1: " + maxRows);
        }
        liveHandle();
        if (pending.isEmpty()) {
            return fetch(maxRows);
        }
        List<List<Object>> rows = new ArrayList<>(Math.min(maxRows, pending.size()));
        while (rows.size() < maxRows && !pending.isEmpty()) {
            rows.add(pending.poll());
        }
        return Collections.unmodifiableList(rows);
    }

    /** One batch from the library; empty at the end. Caller holds the lock. */
    private List<List<Object>> fetch(int maxRows) {
        if (exhausted) {
            return Collections.emptyList();
        }
        byte[] json = minigraf_jni.minigraf_cursor_next_batch(liveHandle(), maxRows);
        if (json == null) {
            exhausted = true;
            return Collections.emptyList();
        }
        return Result.rows(Result.parseLibraryJson(Utf8.decode(json)));
    }

    /** Refills {@code pending} if it is empty; false at the end. */
    private synchronized boolean hasPending() {
        if (pending.isEmpty() && !exhausted) {
            pending.addAll(fetch(DEFAULT_BATCH));
        }
        return !pending.isEmpty();
    }

    private synchronized List<Object> takePending() {
        return pending.poll();
    }

    /**
     * An iterator over the remaining rows, fetched {@value #DEFAULT_BATCH} at a time.
     * Its methods throw {@link MinigrafException} as {@link #nextBatch(int)} does.
     */
    @Override
    public Iterator<List<Object>> iterator() {
        return new Iterator<List<Object>>() {
            @Override
            public boolean hasNext() {
                return hasPending();
            }

            @Override
            public List<Object> next() {
                if (!hasPending()) {
                    throw new NoSuchElementException();
                }
                return takePending();
            }
        };
    }

    /**
     * A sequential stream of the remaining rows; closing the stream closes
     * this cursor.
     */
    public Stream<List<Object>> stream() {
        Spliterator<List<Object>> rows = Spliterators.spliteratorUnknownSize(iterator(),
                Spliterator.ORDERED | Spliterator.NONNULL);
        return StreamSupport.stream(rows, false).onClose(this::close);
    }

    /** Whether {@link #close()} has been called. */
    public synchronized boolean isClosed() {
        return handle == 0;
    }

    /** Frees the cursor. Closing a closed cursor does nothing. */
    @Override
    public synchronized void close() {
        if (handle != 0) {
            long h = handle;
            handle = 0;
            pending.clear();
            minigraf_jni.minigraf_cursor_free(h);
        }
    }

    private long liveHandle() {
        if (handle == 0) {
            throw MinigrafException.create(5018, "API-018", "Use of a closed cursor");
        }
        return handle;
    }
}
