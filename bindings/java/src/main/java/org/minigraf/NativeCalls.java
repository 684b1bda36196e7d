package org.minigraf;

import java.lang.ref.Cleaner;
import org.minigraf.internal.minigraf_jni;

/**
 * The hand-written JNI calls of libminigraf_jni (src/main/c/minigraf_jni_rows.c,
 * minigraf_jni_stmt.c, minigraf_jni_host.c): typed rows, prepared queries, transactions, host
 * functions, the progress handler. Every failure throws the {@link MinigrafException} of the
 * handle's error. Handles are {@code long}s owned by the classes of this package.
 *
 * <p>A fetched cell is two longs: {@code type | (byteLength << 8)}, then the value (int64, double
 * bits, 0/1, or the offset of its bytes in the text area: UTF-8 for STRING, KEYWORD and LIST, 16
 * UUID bytes for REF).
 */
final class NativeCalls {
    static final int TYPE_NULL = 0;
    static final int TYPE_STRING = 1;
    static final int TYPE_INTEGER = 2;
    static final int TYPE_FLOAT = 3;
    static final int TYPE_BOOLEAN = 4;
    static final int TYPE_KEYWORD = 5;
    static final int TYPE_REF = 6;
    static final int TYPE_LIST = 7;

    /** Bind kinds: the value types above, then the temporal ones. */
    static final int BIND_TX_COUNT = 8;

    static final int BIND_TIMESTAMP = 9;
    static final int BIND_ANY_VALID_TIME = 10;

    /** Frees what the application dropped without closing (cursors, databases...). */
    static final Cleaner CLEANER = Cleaner.create();

    static {
        Minigraf.checkNatives(); // loads the libraries and checks the ABI
        hostInit(HostCalls.class);
    }

    private NativeCalls() {}

    /** Loads the natives (this class's initializer). */
    static void load() {
        minigraf_jni.minigraf_abi_version();
    }

    static native void hostInit(Class<?> hostCalls);

    static native long open(byte[] path, byte[] options);

    static native void close(long db);

    static native void interrupt(long db);

    static native long query(long db, byte[] text);

    static native int columnCount(long cursor);

    static native byte[] columnName(long cursor, int col);

    /**
     * Rows read (low 32 bits), bit 32 set at the end; see the class comment. {@code textRoom}: the
     * length of {@code textHolder[0]}, how much text the last batches needed.
     */
    static native long fetch(
            long cursor, int maxRows, int cols, long[] cells, Object[] textHolder, int textRoom);

    static native void cursorFree(long cursor);

    static native long prepare(long db, byte[] text);

    static native void bind(
            long stmt, byte[] name, int kind, long integer, double real, byte[] text);

    static native void bindJson(long stmt, byte[] json);

    static native void clearBindings(long stmt);

    static native long stmtQuery(long stmt);

    static native byte[] stmtExecute(long stmt);

    static native void stmtFree(long stmt);

    static native long beginWrite(long db);

    static native byte[] txExecute(long tx, byte[] text);

    static native long txQuery(long tx, byte[] text);

    static native void txEnd(long tx, boolean commit);

    static native void txFree(long tx);

    static native void export(long db, byte[] path, byte[] options);

    static native byte[] optionsDescribe();

    /** Registers {@code fn} (null: unregisters {@code name}). */
    static native void register(long db, byte[] name, Object fn, boolean aggregate);

    static native long progressInstall(long db, int everyN, Object state);

    static native void progressEvery(long db, long ctx, int everyN);

    static native void progressFree(long ctx);
}
