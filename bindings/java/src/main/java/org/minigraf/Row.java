package org.minigraf;

import java.util.AbstractList;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * One answer row: an unmodifiable list of values in :find order, each a {@link String}, {@link
 * Long}, {@link Double}, {@link Boolean}, {@link Keyword}, {@link Entity}, a {@code List}
 * (collect-set) or null. Equal to any list with equal elements.
 */
public final class Row extends AbstractList<Object> implements RandomAccess {
    // Two fields and no more, so that a row is a 24-byte object (with
    // AbstractList's modCount; a third field made it 32): a row is made for
    // every answer row, and its bytes are most of what a scan allocates.
    // Rows of one or two columns (the common answers) hold their values in
    // the fields; `second` tells the shapes apart with a marker no value is.
    private static final Object ONE_COLUMN = new Object();
    private static final Object MANY_COLUMNS = new Object();

    private final Object first; // the Object[] of every value with MANY_COLUMNS
    private final Object second; // or ONE_COLUMN, or MANY_COLUMNS

    Row(Object[] values) {
        this.first = values;
        this.second = MANY_COLUMNS;
    }

    Row(Object first) {
        this.first = first;
        this.second = ONE_COLUMN;
    }

    Row(Object first, Object second) {
        this.first = first;
        this.second = second;
    }

    @Override
    public Object get(int index) {
        if (second == MANY_COLUMNS) {
            return ((Object[]) first)[index];
        }
        Objects.checkIndex(index, size());
        return index == 0 ? first : second;
    }

    @Override
    public int size() {
        if (second == ONE_COLUMN) {
            return 1;
        }
        return second == MANY_COLUMNS ? ((Object[]) first).length : 2;
    }
}
