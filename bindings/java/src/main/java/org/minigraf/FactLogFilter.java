package org.minigraf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Which records {@link Minigraf#factLog(FactLogFilter)} yields, and in what order; build one with
 * {@link #builder()}:
 *
 * <pre>{@code
 * FactLogFilter filter = FactLogFilter.builder()
 *         .attributePrefixes(":person/")
 *         .txFrom(2).txTo(5)
 *         .order(FactLogFilter.Order.STORAGE)
 *         .build();
 * }</pre>
 *
 * <p>A record passes when it passes every condition set: its attribute is one of {@link
 * Builder#attributes attributes} or starts with one of {@link Builder#attributePrefixes
 * attributePrefixes} (when either is set), its entity is one of {@link Builder#entities entities},
 * its transaction number is within [{@code txFrom}, {@code txTo}] and its valid window overlaps the
 * {@link Builder#window window}. Unset conditions let every record pass; a condition set to an
 * empty list lets none pass. Values are checked by the library when the log opens (API-017). A
 * filter kept as the library's JSON text (in a configuration file, say) is used as it is with
 * {@link #ofJson(String)}. Instances are immutable.
 */
public final class FactLogFilter {
    /** The order records come in. */
    public enum Order {
        /** Commit order, and statement order within a transaction (the default). */
        TX("tx"),
        /** The entity index's order (entity, attribute, value, transaction): the cheapest. */
        STORAGE("storage");

        private final String jsonName;

        Order(String jsonName) {
            this.jsonName = jsonName;
        }

        /** The order's name in the library's filter JSON: {@code "tx"} or {@code "storage"}. */
        public String jsonName() {
            return jsonName;
        }
    }

    private static final FactLogFilter ALL = new Builder().build();

    /** Set by {@link #ofJson(String)}: the library's filter text, used as it is. */
    private final String json;

    private final List<String> attributes;
    private final List<String> attributePrefixes;
    private final List<String> entities;
    private final Long txFrom;
    private final Long txTo;
    private final Long windowFrom;
    private final Long windowTo;
    private final boolean window;
    private final Order order;

    private FactLogFilter(String json) {
        this(new Builder(), json);
    }

    private FactLogFilter(Builder b) {
        this(b, null);
    }

    private FactLogFilter(Builder b, String json) {
        this.json = json;
        this.attributes = b.attributes;
        this.attributePrefixes = b.attributePrefixes;
        this.entities = b.entities;
        this.txFrom = b.txFrom;
        this.txTo = b.txTo;
        this.windowFrom = b.windowFrom;
        this.windowTo = b.windowTo;
        this.window = b.window;
        this.order = b.order;
    }

    /** The filter that lets every record through, in {@link Order#TX} order. */
    public static FactLogFilter all() {
        return ALL;
    }

    /** A new builder with nothing set. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A filter given as the JSON object minigraf_fact_log reads, e.g. {@code
     * {"attribute_prefixes":[":person/"],"order":"storage"}} (keys: {@code attributes}, {@code
     * attribute_prefixes}, {@code entities}, {@code tx_from}, {@code tx_to}, {@code window} with
     * {@code from} and {@code to}, {@code order}). The text is passed to the library as it is:
     * {@link Minigraf#factLog(FactLogFilter)} throws API-017 for an unknown key, a wrong type or
     * malformed JSON.
     *
     * @param json the filter object
     * @return the filter
     */
    public static FactLogFilter ofJson(String json) {
        return new FactLogFilter(Objects.requireNonNull(json, "json"));
    }

    /**
     * The filter as the JSON object minigraf_fact_log reads, e.g. {@code
     * {"attributes":[":a/b"],"tx_from":2}}, or null when nothing is set.
     */
    String toJson() {
        if (this.json != null) {
            return this.json;
        }
        StringBuilder json = new StringBuilder("{");
        list(json, "attributes", attributes);
        list(json, "attribute_prefixes", attributePrefixes);
        list(json, "entities", entities);
        number(json, "tx_from", txFrom);
        number(json, "tx_to", txTo);
        if (window) {
            key(json, "window").append('{');
            if (windowFrom != null) {
                json.append("\"from\":").append(windowFrom);
            }
            if (windowTo != null) {
                json.append(windowFrom != null ? "," : "").append("\"to\":").append(windowTo);
            }
            json.append('}');
        }
        if (order != null) {
            key(json, "order").append('"').append(order.jsonName).append('"');
        }
        return json.length() > 1 ? json.append('}').toString() : null;
    }

    private static StringBuilder key(StringBuilder json, String key) {
        return json.append(json.length() > 1 ? "," : "").append('"').append(key).append("\":");
    }

    private static void list(StringBuilder json, String key, List<String> values) {
        if (values != null) {
            key(json, key).append('[');
            for (int i = 0; i < values.size(); i++) {
                if (i > 0) {
                    json.append(',');
                }
                JsonText.string(values.get(i), json);
            }
            json.append(']');
        }
    }

    private static void number(StringBuilder json, String key, Long value) {
        if (value != null) {
            key(json, key).append(value.longValue());
        }
    }

    @Override
    public String toString() {
        String json = toJson();
        return "FactLogFilter" + (json == null ? "{}" : json);
    }

    /** Builds a {@link FactLogFilter}. Setting a condition again replaces it. */
    public static final class Builder {
        private List<String> attributes;
        private List<String> attributePrefixes;
        private List<String> entities;
        private Long txFrom;
        private Long txTo;
        private Long windowFrom;
        private Long windowTo;
        private boolean window;
        private Order order;

        private Builder() {}

        private static List<String> copy(Collection<String> values, String what) {
            Objects.requireNonNull(values, what);
            List<String> list = new ArrayList<>(values.size());
            for (String value : values) {
                list.add(Objects.requireNonNull(value, what + " contains null"));
            }
            return Collections.unmodifiableList(list);
        }

        /**
         * Keeps records whose attribute is one of these keywords (with the colon).
         *
         * @param attributes e.g. {@code ":person/name"}
         * @return this builder
         */
        public Builder attributes(Collection<String> attributes) {
            this.attributes = copy(attributes, "attributes");
            return this;
        }

        /**
         * Keeps records whose attribute is one of these keywords (with the colon).
         *
         * @param attributes e.g. {@code ":person/name"}
         * @return this builder
         */
        public Builder attributes(String... attributes) {
            return attributes(Arrays.asList(attributes));
        }

        /**
         * Keeps records whose attribute's text starts with one of these prefixes (with {@link
         * #attributes(Collection)}: matching either list is enough).
         *
         * @param prefixes e.g. {@code ":person/"}
         * @return this builder
         */
        public Builder attributePrefixes(Collection<String> prefixes) {
            this.attributePrefixes = copy(prefixes, "attributePrefixes");
            return this;
        }

        /**
         * Keeps records whose attribute's text starts with one of these prefixes.
         *
         * @param prefixes e.g. {@code ":person/"}
         * @return this builder
         */
        public Builder attributePrefixes(String... prefixes) {
            return attributePrefixes(Arrays.asList(prefixes));
        }

        /**
         * Keeps records of these entities.
         *
         * @param entities the entities' UUIDs
         * @return this builder
         */
        public Builder entities(Collection<String> entities) {
            this.entities = copy(entities, "entities");
            return this;
        }

        /**
         * Keeps records of these entities.
         *
         * @param entities the entities' UUIDs
         * @return this builder
         */
        public Builder entities(String... entities) {
            return entities(Arrays.asList(entities));
        }

        /**
         * Keeps records whose transaction number is at least {@code txFrom}.
         *
         * @param txFrom the first transaction number kept
         * @return this builder
         */
        public Builder txFrom(long txFrom) {
            this.txFrom = txFrom;
            return this;
        }

        /**
         * Keeps records whose transaction number is at most {@code txTo}.
         *
         * @param txTo the last transaction number kept
         * @return this builder
         */
        public Builder txTo(long txTo) {
            this.txTo = txTo;
            return this;
        }

        /**
         * Keeps records whose valid window [valid_from, valid_to) overlaps [{@code from}, {@code
         * to}).
         *
         * @param from the start, in milliseconds since the epoch (inclusive)
         * @param to the end, in milliseconds since the epoch (exclusive)
         * @return this builder
         */
        public Builder window(long from, long to) {
            this.window = true;
            this.windowFrom = from;
            this.windowTo = to;
            return this;
        }

        /**
         * Sets the start of the {@link #window(long, long) window}; without {@link #windowTo(long)}
         * the window has no end.
         *
         * @param from the start, in milliseconds since the epoch (inclusive)
         * @return this builder
         */
        public Builder windowFrom(long from) {
            this.window = true;
            this.windowFrom = from;
            return this;
        }

        /**
         * Sets the end of the {@link #window(long, long) window}; without {@link #windowFrom(long)}
         * the window has no start.
         *
         * @param to the end, in milliseconds since the epoch (exclusive)
         * @return this builder
         */
        public Builder windowTo(long to) {
            this.window = true;
            this.windowTo = to;
            return this;
        }

        /**
         * The order of the records; {@link Order#TX} unless set.
         *
         * @param order the order
         * @return this builder
         */
        public Builder order(Order order) {
            this.order = Objects.requireNonNull(order, "order");
            return this;
        }

        /** The filter set so far. */
        public FactLogFilter build() {
            return new FactLogFilter(this);
        }
    }
}
