package org.minigraf;

/**
 * Options for {@link Minigraf#open(String, OpenOptions)}; build them with
 * {@link #builder()}:
 *
 * <pre>{@code
 * OpenOptions options = OpenOptions.builder().readOnly(true).maxResults(10_000).build();
 * try (Minigraf db = Minigraf.open("people.graph", options)) { ... }
 * }</pre>
 *
 * <p>Unset options keep the library's defaults. Values are checked by the
 * library when the database opens: a limit below 1 fails there with API-017.
 * Instances are immutable.
 */
public final class OpenOptions {
    private static final OpenOptions DEFAULTS = new Builder().build();

    private final Boolean readOnly;
    private final Long maxDerivedFacts;
    private final Long maxResults;

    private OpenOptions(Builder builder) {
        this.readOnly = builder.readOnly;
        this.maxDerivedFacts = builder.maxDerivedFacts;
        this.maxResults = builder.maxResults;
    }

    /** Options with every value at the library's default. */
    public static OpenOptions defaults() {
        return DEFAULTS;
    }

    /** A new builder with nothing set. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The options as the JSON object {@code minigraf_open_with_options} reads,
     * e.g. {@code {"read_only":true,"max_results":10000}}, or null when no
     * option is set.
     */
    String toJson() {
        StringBuilder json = new StringBuilder("{");
        if (readOnly != null) {
            json.append("\"read_only\":").append(readOnly.booleanValue());
        }
        if (maxDerivedFacts != null) {
            json.append(json.length() > 1 ? "," : "").append("\"max_derived_facts\":").append(maxDerivedFacts);
        }
        if (maxResults != null) {
            json.append(json.length() > 1 ? "," : "").append("\"max_results\":").append(maxResults);
        }
        return json.length() > 1 ? json.append('}').toString() : null;
    }

    @Override
    public String toString() {
        String json = toJson();
        return "OpenOptions" + (json == null ? "{}" : json);
    }

    /** Builds {@link OpenOptions}. */
    public static final class Builder {
        private Boolean readOnly;
        private Long maxDerivedFacts;
        private Long maxResults;

        private Builder() {}

        /**
         * Opens the database read-only: writes fail with API-014.
         *
         * @param readOnly true for a read-only database
         * @return this builder
         */
        public Builder readOnly(boolean readOnly) {
            this.readOnly = readOnly;
            return this;
        }

        /**
         * The most facts rules may derive in one query (library default 1,000,000).
         *
         * @param maxDerivedFacts a limit, at least 1
         * @return this builder
         */
        public Builder maxDerivedFacts(long maxDerivedFacts) {
            this.maxDerivedFacts = maxDerivedFacts;
            return this;
        }

        /**
         * The most rows one query may return (library default 1,000,000).
         *
         * @param maxResults a limit, at least 1
         * @return this builder
         */
        public Builder maxResults(long maxResults) {
            this.maxResults = maxResults;
            return this;
        }

        /** The options set so far. */
        public OpenOptions build() {
            return new OpenOptions(this);
        }
    }
}
