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
    // Rows of one or two columns (the common answers) hold their values in
    // fields: one object per row instead of two (the row and its array).
    private final Object first;
    private final Object second;
    private final Object[] values; // null for one or two columns
    private final int size;

    Row(Object[] values) {
        this.first = null;
        this.second = null;
        this.values = values;
        this.size = values.length;
    }

    Row(Object first) {
        this.first = first;
        this.second = null;
        this.values = null;
        this.size = 1;
    }

    Row(Object first, Object second) {
        this.first = first;
        this.second = second;
        this.values = null;
        this.size = 2;
    }

    @Override
    public Object get(int index) {
        if (values != null) {
            return values[index];
        }
        Objects.checkIndex(index, size);
        return index == 0 ? first : second;
    }

    @Override
    public int size() {
        return size;
    }
}
