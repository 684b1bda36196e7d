package org.minigraf;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * The rows of a batch or of a whole answer: an unmodifiable list over an array of {@link Row}s.
 * {@link RowDecoder} appends to it while it fills it; once handed out it never changes. One array
 * instead of an {@code ArrayList} behind an unmodifiable wrapper: a row costs one array store to
 * add and one load to read.
 */
final class RowList extends AbstractList<List<Object>> implements RandomAccess {
    private static final Row[] NONE = {};

    private Row[] rows;
    private int size;

    /** An empty list with room for {@code capacity} rows before it grows. */
    RowList(int capacity) {
        rows = capacity == 0 ? NONE : new Row[capacity];
    }

    /** Makes room for {@code more} rows past the last one. */
    void reserve(int more) {
        int need = size + more;
        if (need > rows.length) {
            rows = Arrays.copyOf(rows, Math.max(need, rows.length + (rows.length >> 1)));
        }
    }

    /** Adds {@code row} at the end; {@link #reserve} has made room for it. */
    void append(Row row) {
        rows[size++] = row;
    }

    /** Drops every row (the cursor's buffer of rows fetched ahead). */
    void drop() {
        Arrays.fill(rows, 0, size, null);
        size = 0;
    }

    /** The row at {@code index}, typed as the decoder made it. */
    Row row(int index) {
        return rows[index];
    }

    @Override
    public List<Object> get(int index) {
        Objects.checkIndex(index, size);
        return rows[index];
    }

    @Override
    public int size() {
        return size;
    }
}
