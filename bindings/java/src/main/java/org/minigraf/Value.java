package org.minigraf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A value as the library types it, handed to host functions ({@link Minigraf#registerPredicate},
 * {@link Minigraf#registerAggregate}). {@link #get()} is the same Java object a row holds:
 *
 * <table>
 * <caption>Types and their Java objects</caption>
 * <tr><th>{@link Type}</th><th>{@link #get()}</th></tr>
 * <tr><td>STRING</td><td>{@link String}</td></tr>
 * <tr><td>INTEGER</td><td>{@link Long}, all 64 bits</td></tr>
 * <tr><td>FLOAT</td><td>{@link Double}, NaN and &plusmn;Infinity kept</td></tr>
 * <tr><td>BOOLEAN</td><td>{@link Boolean}</td></tr>
 * <tr><td>KEYWORD</td><td>{@link Keyword}</td></tr>
 * <tr><td>ENTITY</td><td>{@link Entity}</td></tr>
 * <tr><td>NULL</td><td>{@code null}</td></tr>
 * <tr><td>LIST</td><td>unmodifiable {@link List} of these (collect-set; rows only)</td></tr>
 * </table>
 */
public final class Value {
    /** The type of a value. */
    public enum Type {
        /** {@code nil}. */
        NULL,
        /** A string. */
        STRING,
        /** A signed 64-bit integer. */
        INTEGER,
        /** A 64-bit float. */
        FLOAT,
        /** A boolean. */
        BOOLEAN,
        /** A keyword. */
        KEYWORD,
        /** An entity reference. */
        ENTITY,
        /** The answer of collect-set. */
        LIST
    }

    private static final Value NULL = new Value(Type.NULL, null);

    private final Type type;
    private final Object value;

    private Value(Type type, Object value) {
        this.type = type;
        this.value = value;
    }

    /**
     * The value of a Java object: String, Long (or Integer, Short, Byte), Double (or Float),
     * Boolean, {@link Keyword}, {@link Entity}, null, or a Value.
     *
     * @param object the object
     * @return its value
     * @throws IllegalArgumentException for any other class
     */
    public static Value of(Object object) {
        if (object == null) {
            return NULL;
        }
        if (object instanceof Value) {
            return (Value) object;
        }
        if (object instanceof String) {
            return new Value(Type.STRING, object);
        }
        if (object instanceof Long) {
            return new Value(Type.INTEGER, object);
        }
        if (object instanceof Integer || object instanceof Short || object instanceof Byte) {
            return new Value(Type.INTEGER, ((Number) object).longValue());
        }
        if (object instanceof Double) {
            return new Value(Type.FLOAT, object);
        }
        if (object instanceof Float) {
            return new Value(Type.FLOAT, ((Float) object).doubleValue());
        }
        if (object instanceof Boolean) {
            return new Value(Type.BOOLEAN, object);
        }
        if (object instanceof Keyword) {
            return new Value(Type.KEYWORD, object);
        }
        if (object instanceof Entity) {
            return new Value(Type.ENTITY, object);
        }
        if (object instanceof List) {
            return new Value(
                    Type.LIST, Collections.unmodifiableList(new ArrayList<>((List<?>) object)));
        }
        throw new IllegalArgumentException("not a minigraf value: " + object.getClass().getName());
    }

    /** The value of a callback argument (see minigraf_jni_host.c). */
    static Value fromNative(int type, long integer, double real, byte[] text) {
        switch (type) {
            case NativeCalls.TYPE_STRING:
                return new Value(Type.STRING, new String(text, StandardCharsets.UTF_8));
            case NativeCalls.TYPE_INTEGER:
                return new Value(Type.INTEGER, integer);
            case NativeCalls.TYPE_FLOAT:
                return new Value(Type.FLOAT, real);
            case NativeCalls.TYPE_BOOLEAN:
                return new Value(Type.BOOLEAN, integer != 0);
            case NativeCalls.TYPE_KEYWORD:
                return new Value(
                        Type.KEYWORD,
                        Keyword.fromLibrary(new String(text, StandardCharsets.UTF_8)));
            case NativeCalls.TYPE_REF:
                return new Value(Type.ENTITY, Entity.fromBytes(text, 0));
            default:
                return NULL;
        }
    }

    /** The type. */
    public Type type() {
        return type;
    }

    /** The Java object (see the class comment); null for NULL. */
    public Object get() {
        return value;
    }

    /** Whether this is {@code nil}. */
    public boolean isNull() {
        return type == Type.NULL;
    }

    /** Whether this is an INTEGER or a FLOAT. */
    public boolean isNumber() {
        return type == Type.INTEGER || type == Type.FLOAT;
    }

    /**
     * An INTEGER or FLOAT as a double.
     *
     * @throws IllegalStateException for other types
     */
    public double asDouble() {
        if (!isNumber()) {
            throw new IllegalStateException("a " + type + " value is not a number");
        }
        return ((Number) value).doubleValue();
    }

    /**
     * An INTEGER.
     *
     * @throws IllegalStateException for other types
     */
    public long asLong() {
        if (type != Type.INTEGER) {
            throw new IllegalStateException("a " + type + " value is not an integer");
        }
        return (Long) value;
    }

    /**
     * A STRING.
     *
     * @throws IllegalStateException for other types
     */
    public String asString() {
        if (type != Type.STRING) {
            throw new IllegalStateException("a " + type + " value is not a string");
        }
        return (String) value;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Value
                && ((Value) other).type == type
                && Objects.equals(((Value) other).value, value);
    }

    @Override
    public int hashCode() {
        return type.hashCode() * 31 + Objects.hashCode(value);
    }

    /** E.g. {@code INTEGER 30}, {@code KEYWORD :a/b}. */
    @Override
    public String toString() {
        return type + " " + value;
    }
}
