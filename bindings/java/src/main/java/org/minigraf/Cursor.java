package org.minigraf;

import java.util.List;
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
public final class Cursor extends BatchReader<List<Object>> {
    /** Rows fetched per crossing into the library by the iterator and stream. */
    public static final int DEFAULT_BATCH = ITERATOR_BATCH;

    private List<String> variables;

    Cursor(long handle) {
        super(handle, "cursor", "maxRows");
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

    // nextBatch(int maxRows), iterator(), stream(), isClosed() and close()
    // come from BatchReader: each row is an unmodifiable list of values
    // (see Result).

    @Override
    byte[] fetchJson(long handle, int maxRows) {
        return minigraf_jni.minigraf_cursor_next_batch(handle, maxRows);
    }

    @Override
    List<List<Object>> decode(String json) {
        return Result.rows(Result.parseLibraryJson(json));
    }

    @Override
    void free(long handle) {
        minigraf_jni.minigraf_cursor_free(handle);
    }
}
