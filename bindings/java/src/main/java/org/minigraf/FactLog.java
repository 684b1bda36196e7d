package org.minigraf;

import java.util.List;
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
public final class FactLog extends BatchReader<FactRecord> {
    /** Records fetched per crossing into the library by the iterator and stream. */
    public static final int DEFAULT_BATCH = ITERATOR_BATCH;

    FactLog(long handle) {
        super(handle, "fact log", "maxRecords");
    }

    // nextBatch(int maxRecords), iterator(), stream(), isClosed() and
    // close() come from BatchReader.

    @Override
    byte[] fetchJson(long handle, int maxRecords) {
        return minigraf_jni.minigraf_fact_log_next_batch(handle, maxRecords);
    }

    @Override
    List<FactRecord> decode(String json) {
        return FactRecord.listFromJson(json);
    }

    @Override
    void free(long handle) {
        minigraf_jni.minigraf_fact_log_free(handle);
    }
}
