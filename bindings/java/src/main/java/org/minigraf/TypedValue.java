package org.minigraf;

import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * A value with its type, as the fact log carries it: unlike the values of a {@link Result}, it
 * tells a keyword from a string, a reference from a UUID string and an integer from an integral
 * float, and it keeps NaN and the infinities. Instances are immutable.
 *
 * <table>
 * <caption>Types and their Java values</caption>
 * <tr><th>{@link Type}</th><th>{@link #value()}</th></tr>
 * <tr><td>STRING</td><td>{@link String}</td></tr>
 * <tr><td>INTEGER</td><td>{@link Long}, exact over all 64 bits</td></tr>
 * <tr><td>FLOAT</td><td>{@link Double}, NaN and &plusmn;Infinity included</td></tr>
 * <tr><td>BOOLEAN</td><td>{@link Boolean}</td></tr>
 * <tr><td>REF</td><td>{@link String}: the entity's lowercase UUID</td></tr>
 * <tr><td>KEYWORD</td><td>{@link String} with its colon, e.g. {@code ":status/active"}</td></tr>
 * <tr><td>NULL</td><td>{@code null}</td></tr>
 * </table>
 *
 * <p>In the library's typed JSON ({@link #toJson()}): {@code {"type":"integer","value":30}}, {@code
 * {"type":"float","value":"NaN"}}.
 *
 * <p>Two typed values are equal when their types are and their values are; floats compare as {@link
 * Double#equals(Object)} does (NaN equals NaN, {@code 0.0} differs from {@code -0.0}), so a round
 * trip can be checked with {@code equals}.
 */
public final class TypedValue extends JsonWritable {
    /** The type of a value; {@link #jsonName()} is its name in the library's JSON. */
    public enum Type {
        /** A string. */
        STRING("string"),
        /** A signed 64-bit integer. */
        INTEGER("integer"),
        /** A 64-bit IEEE 754 float. */
        FLOAT("float"),
        /** {@code true} or {@code false}. */
        BOOLEAN("boolean"),
        /** A reference to an entity, by UUID. */
        REF("ref"),
        /** A keyword such as {@code :status/active}. */
        KEYWORD("keyword"),
        /** {@code nil}. */
        NULL("null");

        private final String jsonName;

        Type(String jsonName) {
            this.jsonName = jsonName;
        }

        /** The type's name in the library's typed JSON, e.g. {@code "integer"}. */
        public String jsonName() {
            return jsonName;
        }

        static Type fromJsonName(String name) {
            for (Type type : values()) {
                if (type.jsonName.equals(name)) {
                    return type;
                }
            }
            return null;
        }
    }

    private static final TypedValue NULL_VALUE = new TypedValue(Type.NULL, null);

    private final Type type;
    private final Object value;

    private TypedValue(Type type, Object value) {
        this.type = type;
        this.value = value;
    }

    /**
     * A string value.
     *
     * @param value the text
     * @return the typed value
     */
    public static TypedValue ofString(String value) {
        return new TypedValue(Type.STRING, Objects.requireNonNull(value, "value"));
    }

    /**
     * An integer value.
     *
     * @param value the integer
     * @return the typed value
     */
    public static TypedValue ofInteger(long value) {
        return new TypedValue(Type.INTEGER, value);
    }

    /**
     * A float value; NaN and the infinities are kept as they are.
     *
     * @param value the float
     * @return the typed value
     */
    public static TypedValue ofFloat(double value) {
        return new TypedValue(Type.FLOAT, value);
    }

    /**
     * A boolean value.
     *
     * @param value the boolean
     * @return the typed value
     */
    public static TypedValue ofBoolean(boolean value) {
        return new TypedValue(Type.BOOLEAN, value);
    }

    /**
     * A reference to the entity with this UUID (the library checks its form).
     *
     * @param uuid the entity's UUID, e.g. {@code "6ba7b810-9dad-11d1-80b4-00c04fd430c8"}
     * @return the typed value
     */
    public static TypedValue ofRef(String uuid) {
        return new TypedValue(Type.REF, Objects.requireNonNull(uuid, "uuid"));
    }

    /**
     * A reference to the entity with this UUID.
     *
     * @param uuid the entity's UUID
     * @return the typed value, holding the UUID's lowercase text
     */
    public static TypedValue ofRef(UUID uuid) {
        return ofRef(Objects.requireNonNull(uuid, "uuid").toString());
    }

    /**
     * A keyword value, written with its colon (the library checks its form).
     *
     * @param keyword the keyword, e.g. {@code ":status/active"}
     * @return the typed value
     */
    public static TypedValue ofKeyword(String keyword) {
        return new TypedValue(Type.KEYWORD, Objects.requireNonNull(keyword, "keyword"));
    }

    /** The {@code nil} value. */
    public static TypedValue ofNull() {
        return NULL_VALUE;
    }

    /** The value's type. */
    public Type type() {
        return type;
    }

    /** The value as the class comment's table says; {@code null} for NULL. */
    public Object value() {
        return value;
    }

    /**
     * The text of a STRING, REF or KEYWORD value.
     *
     * @throws IllegalStateException for other types
     */
    public String asString() {
        if (type != Type.STRING && type != Type.REF && type != Type.KEYWORD) {
            throw new IllegalStateException("a " + type + " value is not text");
        }
        return (String) value;
    }

    /**
     * The integer of an INTEGER value.
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
     * The float of a FLOAT value.
     *
     * @throws IllegalStateException for other types
     */
    public double asDouble() {
        if (type != Type.FLOAT) {
            throw new IllegalStateException("a " + type + " value is not a float");
        }
        return (Double) value;
    }

    /**
     * The boolean of a BOOLEAN value.
     *
     * @throws IllegalStateException for other types
     */
    public boolean asBoolean() {
        if (type != Type.BOOLEAN) {
            throw new IllegalStateException("a " + type + " value is not a boolean");
        }
        return (Boolean) value;
    }

    @Override
    void writeJson(StringBuilder out) {
        out.append("{\"type\":\"").append(type.jsonName).append("\",\"value\":");
        switch (type) {
            case STRING:
            case REF:
            case KEYWORD:
                JsonText.string((String) value, out);
                break;
            case INTEGER:
                out.append((long) (Long) value);
                break;
            case FLOAT:
                JsonText.typedFloat((Double) value, out);
                break;
            case BOOLEAN:
                out.append((boolean) (Boolean) value);
                break;
            default:
                out.append("null");
                break;
        }
        out.append('}');
    }

    /** Decodes a parsed {@code {"type":..., "value":...}}; null if it is not one. */
    static TypedValue fromJsonObject(Object parsed) {
        Map<?, ?> object = jsonObject(parsed);
        if (object == null
                || object.size() != 2
                || !(object.get("type") instanceof String)
                || !object.containsKey("value")) {
            return null;
        }
        Type type = Type.fromJsonName((String) object.get("type"));
        Object value = object.get("value");
        if (type == null) {
            return null;
        }
        switch (type) {
            case STRING:
            case REF:
            case KEYWORD:
                return value instanceof String ? new TypedValue(type, value) : null;
            case INTEGER:
                return value instanceof Long ? new TypedValue(type, value) : null;
            case FLOAT:
                if (value instanceof Double || value instanceof Long) {
                    return ofFloat(((Number) value).doubleValue());
                }
                if ("NaN".equals(value)) {
                    return ofFloat(Double.NaN);
                }
                if ("Infinity".equals(value)) {
                    return ofFloat(Double.POSITIVE_INFINITY);
                }
                if ("-Infinity".equals(value)) {
                    return ofFloat(Double.NEGATIVE_INFINITY);
                }
                return null;
            case BOOLEAN:
                return value instanceof Boolean ? new TypedValue(type, value) : null;
            default:
                return value == null ? NULL_VALUE : null;
        }
    }

    @Override
    public boolean equals(Object other) {
        if (this == other) {
            return true;
        }
        if (!(other instanceof TypedValue)) {
            return false;
        }
        TypedValue that = (TypedValue) other;
        return type == that.type && Objects.equals(value, that.value);
    }

    @Override
    public int hashCode() {
        return 31 * type.hashCode() + Objects.hashCode(value);
    }

    /** E.g. {@code INTEGER 30}, {@code KEYWORD :a/b}, {@code STRING "x"}. */
    @Override
    public String toString() {
        if (type == Type.STRING) {
            StringBuilder out = new StringBuilder("STRING ");
            JsonText.string((String) value, out);
            return out.toString();
        }
        return type + " " + value;
    }
}
