package org.minigraf;

/**
 * What {@link FactLog} and {@link LogWriter} share: one native object, owned by one Java object
 * until {@link #close()}.
 *
 * <p>The handle is 0 once closed; using it then throws API-018 naming the object ("Use of a closed
 * cursor"). The methods are synchronized on the owning object, as the subclasses' own are.
 */
abstract class NativeObject implements AutoCloseable {
    private long handle; // 0 once closed
    private final String what;

    /**
     * @param handle the live native object
     * @param what its name in API-018 messages, e.g. {@code "fact log"}
     */
    NativeObject(long handle, String what) {
        this.handle = handle;
        this.what = what;
    }

    /** Whether {@link #close()} has been called. */
    public synchronized boolean isClosed() {
        return handle == 0;
    }

    /** Frees the native object. Closing a closed one does nothing. */
    @Override
    public synchronized void close() {
        if (handle != 0) {
            long h = handle;
            handle = 0;
            free(h);
        }
    }

    /** Frees the native object {@code handle}: once, from {@link #close()}, holding the lock. */
    abstract void free(long handle);

    /** The handle, or API-018 once closed. Caller holds the lock. */
    final long liveHandle() {
        if (handle == 0) {
            throw MinigrafException.create(5018, "API-018", "Use of a closed " + what);
        }
        return handle;
    }
}
