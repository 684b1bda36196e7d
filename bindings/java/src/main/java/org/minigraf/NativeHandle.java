package org.minigraf;

import java.lang.ref.Cleaner;
import java.util.function.LongConsumer;

/**
 * The native object of a {@link Cursor}, {@link PreparedQuery} or {@link Transaction}: freed
 * exactly once, by the owner's {@code close()} or, if the owner is dropped unclosed, by {@link
 * NativeCalls#CLEANER}. It holds no reference to its owner (the cleaner's rule).
 */
final class NativeHandle implements Runnable {
    private volatile long handle; // 0 once freed
    private final LongConsumer free;
    private final String what;
    private Cleaner.Cleanable cleanable;

    /**
     * @param handle the live native object
     * @param free frees it
     * @param what its name in API-018 messages, e.g. {@code "cursor"}
     */
    NativeHandle(long handle, LongConsumer free, String what) {
        this.handle = handle;
        this.free = free;
        this.what = what;
    }

    /** Frees the handle when {@code owner} becomes unreachable unclosed; returns this. */
    NativeHandle cleanWith(Object owner) {
        cleanable = NativeCalls.CLEANER.register(owner, this);
        return this;
    }

    /** The handle, or API-018 once freed. */
    long live() {
        long h = handle;
        if (h == 0) {
            throw MinigrafException.create(5018, "API-018", "Use of a closed " + what);
        }
        return h;
    }

    boolean isClosed() {
        return handle == 0;
    }

    /** Frees the handle now (once; later calls do nothing). */
    void close() {
        if (cleanable != null) {
            cleanable.clean(); // runs run() once, and never again from the cleaner
        } else {
            run();
        }
    }

    @Override
    public void run() {
        long h;
        synchronized (this) {
            h = handle;
            handle = 0;
        }
        if (h != 0) {
            free.accept(h);
        }
    }
}
