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
 * A stream over the stored fact records of a database, read in batches; from {@link
 * Minigraf#factLog()} or {@link Minigraf#factLog(FactLogFilter)}.
 *
 * <pre>{@code
 * try (FactLog log = db.factLog()) {
 *     for (FactRecord record : log) {
 *         System.out.println(record.attribute() + " = " + record.value());
 *     }
 * }
 * }</pre>
 *
 * <p>The log shows the database as it stood when the log opened: later commits are not seen. It
 * reads from its database as it goes, so once the database is closed the log throws API-018 (it
 * must still be closed). Every record is delivered once, whichever of {@link #nextBatch(int)},
 * {@link #iterator()} and {@link #stream()} reads it. A log holds native memory until {@link
 * #close()}: use try-with-resources. Its methods are synchronized, but a log is meant to be read by
 * one thread.
 */
public final class FactLog extends NativeObject implements Iterable<FactRecord> {
    /** Records fetched per crossing into the library by the iterator and stream. */
    public static final int DEFAULT_BATCH = 1000;

    private boolean exhausted;

    /** Items fetched by an iterator but not yet delivered. */
    private final ArrayDeque<FactRecord> pending = new ArrayDeque<>();

    FactLog(long handle) {
        super(handle, "fact log");
    }

    /** Frees the native object and drops the items not yet delivered. */
    @Override
    public synchronized void close() {
        pending.clear();
        super.close();
    }

    /**
     * The next items, at most {@code max} of them; an empty list only at the end (and on every call
     * after it).
     *
     * @param max the most items to return, at least 1
     * @return the items, an unmodifiable list
     * @throws IllegalArgumentException if {@code max < 1}
     * @throws MinigrafApiException (API-018) if this is closed
     * @throws MinigrafException if the library fails to produce the items
     */
    public synchronized List<FactRecord> nextBatch(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("maxRecords must be at least 1: " + max);
        }
        liveHandle();
        if (pending.isEmpty()) {
            return fetch(max);
        }
        List<FactRecord> items = new ArrayList<>(Math.min(max, pending.size()));
        while (items.size() < max && !pending.isEmpty()) {
            items.add(pending.poll());
        }
        return Collections.unmodifiableList(items);
    }

    /** One batch from the library; empty at the end. Caller holds the lock. */
    private List<FactRecord> fetch(int max) {
        if (exhausted) {
            return Collections.emptyList();
        }
        byte[] json = minigraf_jni.minigraf_fact_log_next_batch(liveHandle(), max);
        if (json == null) {
            exhausted = true;
            return Collections.emptyList();
        }
        return FactRecord.listFromJson(Utf8.decode(json));
    }

    /** Refills {@code pending} if it is empty; false at the end. */
    private synchronized boolean hasPending() {
        if (pending.isEmpty() && !exhausted) {
            pending.addAll(fetch(DEFAULT_BATCH));
        }
        return !pending.isEmpty();
    }

    private synchronized FactRecord takePending() {
        return pending.poll();
    }

    /**
     * An iterator over the remaining items, fetched 1000 ({@code DEFAULT_BATCH}) at a time. Its
     * methods throw {@link MinigrafException} as {@link #nextBatch(int)} does.
     */
    @Override
    public Iterator<FactRecord> iterator() {
        return new Iterator<FactRecord>() {
            @Override
            public boolean hasNext() {
                return hasPending();
            }

            @Override
            public FactRecord next() {
                if (!hasPending()) {
                    throw new NoSuchElementException();
                }
                return takePending();
            }
        };
    }

    /** A sequential stream of the remaining items; closing the stream closes this reader. */
    public Stream<FactRecord> stream() {
        Spliterator<FactRecord> items =
                Spliterators.spliteratorUnknownSize(
                        iterator(), Spliterator.ORDERED | Spliterator.NONNULL);
        return StreamSupport.stream(items, false).onClose(this::close);
    }

    @Override
    void free(long handle) {
        minigraf_jni.minigraf_fact_log_free(handle);
    }
}
