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

/**
 * What {@link Cursor} and {@link FactLog} share: items (rows, records) read
 * from a native object in batches, by {@link #nextBatch(int)}, an iterator
 * or a stream, each item delivered once whichever reads it.
 *
 * <p>A subclass supplies the native steps: {@link #fetchJson(long, int)},
 * {@link #decode(String)} and {@link #free(long)}.
 *
 * @param <T> the item type
 */
abstract class BatchReader<T> extends NativeObject implements Iterable<T> {
    /** Items fetched per crossing into the library by the iterator and stream. */
    static final int ITERATOR_BATCH = 1000;

    /** The argument's name in the {@link #nextBatch(int)} range message. */
    private final String countName;
    private boolean exhausted;
    /** Items fetched by an iterator but not yet delivered. */
    private final ArrayDeque<T> pending = new ArrayDeque<>();

    BatchReader(long handle, String what, String countName) {
        super(handle, what);
        this.countName = countName;
    }

    /** The library's next batch as JSON bytes, or null at the end. Caller holds the lock. */
    abstract byte[] fetchJson(long handle, int max);

    /** The items of one batch's JSON text. */
    abstract List<T> decode(String json);

    /** Frees the native object and drops the items not yet delivered. */
    @Override
    public synchronized void close() {
        pending.clear();
        super.close();
    }

    /**
     * The next items, at most {@code max} of them; an empty list only at
     * the end (and on every call after it).
     *
     * @param max the most items to return, at least 1
     * @return the items, an unmodifiable list
     * @throws IllegalArgumentException if {@code max < 1}
     * @throws MinigrafApiException (API-018) if this is closed
     * @throws MinigrafException if the library fails to produce the items
     */
    public synchronized List<T> nextBatch(int max) {
        if (max < 1) {
            throw new IllegalArgumentException(countName + " must be at least 1: " + max);
        }
        liveHandle();
        if (pending.isEmpty()) {
            return fetch(max);
        }
        List<T> items = new ArrayList<>(Math.min(max, pending.size()));
        while (items.size() < max && !pending.isEmpty()) {
            items.add(pending.poll());
        }
        return Collections.unmodifiableList(items);
    }

    /** One batch from the library; empty at the end. Caller holds the lock. */
    private List<T> fetch(int max) {
        if (exhausted) {
            return Collections.emptyList();
        }
        byte[] json = fetchJson(liveHandle(), max);
        if (json == null) {
            exhausted = true;
            return Collections.emptyList();
        }
        return decode(Utf8.decode(json));
    }

    /** Refills {@code pending} if it is empty; false at the end. */
    private synchronized boolean hasPending() {
        if (pending.isEmpty() && !exhausted) {
            pending.addAll(fetch(ITERATOR_BATCH));
        }
        return !pending.isEmpty();
    }

    private synchronized T takePending() {
        return pending.poll();
    }

    /**
     * An iterator over the remaining items, fetched 1000 ({@code DEFAULT_BATCH})
     * at a time. Its methods throw {@link MinigrafException} as
     * {@link #nextBatch(int)} does.
     */
    @Override
    public Iterator<T> iterator() {
        return new Iterator<T>() {
            @Override
            public boolean hasNext() {
                return hasPending();
            }

            @Override
            public T next() {
                if (!hasPending()) {
                    throw new NoSuchElementException();
                }
                return takePending();
            }
        };
    }

    /**
     * A sequential stream of the remaining items; closing the stream closes
     * this reader.
     */
    public Stream<T> stream() {
        Spliterator<T> items = Spliterators.spliteratorUnknownSize(iterator(),
                Spliterator.ORDERED | Spliterator.NONNULL);
        return StreamSupport.stream(items, false).onClose(this::close);
    }
}
