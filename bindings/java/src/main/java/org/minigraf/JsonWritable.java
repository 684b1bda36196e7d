package org.minigraf;

import java.util.Map;

/**
 * What {@link FactRecord} and {@link TypedValue} share: each is an immutable value that the library
 * reads and writes as one JSON object (the fact log's typed form), written alone by {@link
 * #toJson()} or into a larger text (a record, a batch) by {@link #writeJson(StringBuilder)}.
 */
abstract class JsonWritable {
    JsonWritable() {}

    /** Appends this value's JSON object to {@code out}. */
    abstract void writeJson(StringBuilder out);

    /**
     * This value as the library's JSON object (the class comment shows its form).
     *
     * @return the JSON text
     */
    public String toJson() {
        StringBuilder out = new StringBuilder();
        writeJson(out);
        return out.toString();
    }

    /** The members of a parsed JSON object; null when {@code parsed} is not an object. */
    static Map<?, ?> jsonObject(Object parsed) {
        return parsed instanceof Map ? (Map<?, ?>) parsed : null;
    }
}
