package org.minigraf;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What {@link OpenOptions} and {@link LogWriterOptions} share: the options set so far, by their
 * library name, written as the JSON object the library reads. Values are Boolean, Long or String;
 * the library checks them (API-017).
 */
abstract class OptionsJson {
    private final Map<String, Object> values;

    OptionsJson(Map<String, Object> values) {
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /** The options set, by library name (e.g. {@code "read_only"}), in the order set. */
    public Map<String, Object> values() {
        return values;
    }

    /** The JSON object, e.g. {@code {"read_only":true}}, or null when nothing is set. */
    String toJson() {
        if (values.isEmpty()) {
            return null;
        }
        StringBuilder json = new StringBuilder("{");
        for (Map.Entry<String, Object> entry : values.entrySet()) {
            if (json.length() > 1) {
                json.append(',');
            }
            JsonText.string(entry.getKey(), json);
            json.append(':');
            Object value = entry.getValue();
            if (value instanceof String) {
                JsonText.string((String) value, json);
            } else {
                json.append(value);
            }
        }
        return json.append('}').toString();
    }

    @Override
    public String toString() {
        String json = toJson();
        return getClass().getSimpleName() + (json == null ? "{}" : json);
    }

    /**
     * What the two builders share: the options set so far, in the order set, each checked as it is
     * set. {@code O} is what it builds.
     */
    abstract static class BuilderBase<O extends OptionsJson> {
        final Map<String, Object> values = new LinkedHashMap<>();

        BuilderBase() {}

        /** Sets option {@code name} (its library name) to a Boolean, a whole number or a String. */
        final void set(String name, Object value) {
            values.put(Objects.requireNonNull(name, "name"), checked(name, value));
        }

        /**
         * The options set so far.
         *
         * @return the immutable options
         */
        public abstract O build();
    }

    /** A value the library takes: Boolean, a whole number, or String. */
    static Object checked(String name, Object value) {
        if (value instanceof Boolean || value instanceof String || value instanceof Long) {
            return value;
        }
        if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        throw new IllegalArgumentException(
                "option "
                        + name
                        + " takes a Boolean, a whole number or a String, not "
                        + (value == null ? "null" : value.getClass().getName()));
    }
}
