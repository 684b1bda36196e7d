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
 * A stream over the stored fact records of a database, read in batches;
 * from {@link Minigraf#factLog()} or {@link Minigraf#factLog(FactLogFilter)}.
 *
 * <pre>{@code
 * try (FactLog log = db.factLog()) {
 *     for (FactRecord record : log) {
 *         System.out.println(record.attribute() + " = " + record.value());
 *     }
 * }
 * }</pre>
 *
 * <p>The log shows the database as it stood when the log opened: later
 * commits are not seen. It reads from its database as it goes, so once the
 * database is closed the log throws API-018 (it must still be closed). Every record is delivered once, whichever of
 * {@link #nextBatch(int)}, {@link #iterator()} and {@link #stream()} reads
 * it. A log holds native memory until {@link #close()}: use
 * try-with-resources. Its methods are synchronized, but a log is meant to be
 * read by one thread.
 */
public final class FactLog implements AutoCloseable, Iterable<FactRecord> {
    /** Records fetched per crossing into the library by the iterator and stream. */
    public static final int DEFAULT_BATCH = 1000;

    private long handle; // 0 once closed
    private boolean exhausted;
    /** Records fetched by an iterator but not yet delivered. */
    private final ArrayDeque<FactRecord> pending = new ArrayDeque<>();

    FactLog(long handle) {
        this.handle = handle;
    }

    /**
     * The next records, at most {@code maxRecords} of them; an empty list
     * only at the end of the log (and on every call after it).
     *
     * @param maxRecords the most records to return, at least 1
     * @return the records, an unmodifiable list
     * @throws IllegalArgumentException if {@code maxRecords < 1}
     * @throws MinigrafApiException (API-018) if the log is closed
     * @throws MinigrafException if the library fails to produce the records
     */
    public synchronized List<FactRecord> nextBatch(int maxRecords) {
        if (maxRecords < 1) {
            throw new IllegalArgumentException("maxRecords must be at least 1: " + maxRecords);
        }
        liveHandle();
        if (pending.isEmpty()) {
            return fetch(maxRecords);
        }
        List<FactRecord> records = new ArrayList<>(Math.min(maxRecords, pending.size()));
        while (records.size() < maxRecords && !pending.isEmpty()) {
            records.add(pending.poll());
        }
        return Collections.unmodifiableList(records);
    }

    /** One batch from the library; empty at the end. Caller holds the lock. */
    private List<FactRecord> fetch(int maxRecords) {
        if (exhausted) {
            return Collections.emptyList();
        }
        byte[] json = minigraf_jni.minigraf_fact_log_next_batch(liveHandle(), maxRecords);
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
     * An iterator over the remaining records, fetched {@value #DEFAULT_BATCH}
     * at a time. Its methods throw {@link MinigrafException} as
     * {@link #nextBatch(int)} does.
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

    /**
     * A sequential stream of the remaining records; closing the stream
     * closes this log.
     */
    public Stream<FactRecord> stream() {
        Spliterator<FactRecord> records = Spliterators.spliteratorUnknownSize(iterator(),
                Spliterator.ORDERED | Spliterator.NONNULL);
        return StreamSupport.stream(records, false).onClose(this::close);
    }

    /** Whether {@link #close()} has been called. */
    public synchronized boolean isClosed() {
        return handle == 0;
    }

    /** Frees the log. Closing a closed log does nothing. */
    @Override
    public synchronized void close() {
        if (handle != 0) {
            long h = handle;
            handle = 0;
            pending.clear();
            minigraf_jni.minigraf_fact_log_free(h);
        }
    }

    private long liveHandle() {
        if (handle == 0) {
            throw MinigrafException.create(5018, "API-018", "Use of a closed fact log");
        }
        return handle;
    }
}
