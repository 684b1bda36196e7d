package org.minigraf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Reads typed rows from a native cursor, many per down-call ({@link NativeCalls#fetch}), into
 * {@link Row}s. The arrays the library fills are per thread and reused: a fetch and its decoding
 * run on one thread without a pause, so no other cursor can use them meanwhile.
 */
final class RowDecoder {
    private static final ThreadLocal<RowDecoder> SCRATCH = ThreadLocal.withInitial(RowDecoder::new);

    private long[] cells = new long[512];
    private final Object[] text = {new byte[4096]};

    private RowDecoder() {}

    /** The most rows one crossing into the library reads. */
    static final int ROWS_PER_CALL = 1000;

    /**
     * Appends at most {@code max} rows of {@code cursor} ({@code cols} columns) to {@code out}, in
     * crossings of at most {@link #ROWS_PER_CALL} rows; returns false when the cursor has reached
     * its end. An error met after some rows is thrown by the next call.
     */
    static boolean fetch(long cursor, int cols, int max, RowList out) {
        RowDecoder scratch = SCRATCH.get();
        for (int left = max; left > 0; ) {
            int want = Math.min(left, ROWS_PER_CALL);
            long result = scratch.fetchOnce(cursor, cols, want, out);
            if ((result >>> 32) != 0) {
                return false;
            }
            if ((int) result < want) {
                break; // an error after some rows: the next call reports it
            }
            left -= want;
        }
        return true;
    }

    /** One crossing: at most {@code max} rows; the library's rows | end << 32. */
    private long fetchOnce(long cursor, int cols, int max, RowList out) {
        int need = max * cols * 2;
        if (cells.length < need) {
            cells = new long[need];
        }
        long[] cells = this.cells; // a local: the loop's allocations may call out
        long result = NativeCalls.fetch(cursor, max, cols, cells, text, ((byte[]) text[0]).length);
        int rows = (int) result;
        byte[] bytes = (byte[]) text[0];
        out.reserve(rows);
        for (int r = 0, k = 0; r < rows; r++, k += 2 * cols) {
            out.append(row(cells, cols, k, bytes));
        }
        return result;
    }

    /** The row whose cells start at {@code cells[k]}. */
    private static Row row(long[] cells, int cols, int k, byte[] bytes) {
        if (cols == 1) {
            return new Row(decode(cells[k], cells[k + 1], bytes));
        }
        if (cols == 2) {
            return new Row(
                    decode(cells[k], cells[k + 1], bytes),
                    decode(cells[k + 2], cells[k + 3], bytes));
        }
        Object[] values = new Object[cols];
        for (int c = 0; c < cols; c++) {
            values[c] = decode(cells[k + 2 * c], cells[k + 2 * c + 1], bytes);
        }
        return new Row(values);
    }

    private static Object decode(long head, long value, byte[] bytes) {
        int type = (int) (head & 0xff);
        switch (type) {
            case NativeCalls.TYPE_STRING:
                return new String(bytes, (int) value, (int) (head >>> 8), StandardCharsets.UTF_8);
            case NativeCalls.TYPE_INTEGER:
                return value;
            case NativeCalls.TYPE_FLOAT:
                return Double.longBitsToDouble(value);
            case NativeCalls.TYPE_BOOLEAN:
                return value != 0;
            case NativeCalls.TYPE_KEYWORD:
                return Keyword.fromLibrary(
                        new String(bytes, (int) value, (int) (head >>> 8), StandardCharsets.UTF_8));
            case NativeCalls.TYPE_REF:
                return Entity.fromBytes(bytes, (int) value);
            case NativeCalls.TYPE_LIST:
                return list(
                        new String(bytes, (int) value, (int) (head >>> 8), StandardCharsets.UTF_8));
            default:
                return null;
        }
    }

    /** A collect-set answer: the JSON array of typed items. */
    private static List<Object> list(String json) {
        Object parsed = Result.parseLibraryJson(json);
        if (!(parsed instanceof List)) {
            throw Result.unexpected(json);
        }
        List<Object> items = new ArrayList<>();
        for (Object item : (List<?>) parsed) {
            TypedValue typed = TypedValue.fromJsonObject(item);
            if (typed == null) {
                throw Result.unexpected(json);
            }
            items.add(rowValue(typed));
        }
        return Collections.unmodifiableList(items);
    }

    /** A fact-log typed value as the Java object a row holds. */
    static Object rowValue(TypedValue typed) {
        switch (typed.type()) {
            case KEYWORD:
                return Keyword.fromLibrary(typed.asString());
            case REF:
                return Entity.of(typed.asString());
            default:
                return typed.value();
        }
    }
}
