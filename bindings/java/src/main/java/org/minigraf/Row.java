package org.minigraf;

import java.util.AbstractList;
import java.util.RandomAccess;

/**
 * One answer row: an unmodifiable list of values in :find order, each a
 * {@link String}, {@link Long}, {@link Double}, {@link Boolean},
 * {@link Keyword}, {@link Entity}, a {@code List} (collect-set) or null.
 * Equal to any list with equal elements.
 */
public final class Row extends AbstractList<Object> implements RandomAccess {
    private final Object[] values;

    Row(Object[] values) {
        this.values = values;
    }

    @Override
    public Object get(int index) {
        return values[index];
    }

    @Override
    public int size() {
        return values.length;
    }
}
