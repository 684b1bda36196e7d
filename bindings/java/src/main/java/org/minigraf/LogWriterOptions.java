package org.minigraf;

import java.util.Objects;

/**
 * Options for {@link LogWriter#create(String, LogWriterOptions)}; build them
 * with {@link #builder()}:
 *
 * <pre>{@code
 * LogWriterOptions options = LogWriterOptions.builder()
 *         .synchronous(LogWriterOptions.Synchronous.NORMAL)
 *         .pageCacheSize(4096)
 *         .build();
 * }</pre>
 *
 * <p>Unset options keep the library's defaults. Values are checked by the
 * library when the writer is created (API-017). Instances are immutable.
 */
public final class LogWriterOptions {
    /** When commits reach the disk (the library's {@code "synchronous"} option). */
    public enum Synchronous {
        /** Each commit is synced before the call returns (the default). */
        FULL("full"),
        /** The log is synced at checkpoint and close only. */
        NORMAL("normal");

        private final String jsonName;

        Synchronous(String jsonName) {
            this.jsonName = jsonName;
        }

        /** The value in the library's options JSON: {@code "full"} or {@code "normal"}. */
        public String jsonName() {
            return jsonName;
        }
    }

    private static final LogWriterOptions DEFAULTS = new Builder().build();

    private final Synchronous synchronous;
    private final Long pageCacheSize;

    private LogWriterOptions(Builder builder) {
        this.synchronous = builder.synchronous;
        this.pageCacheSize = builder.pageCacheSize;
    }

    /** Options with every value at the library's default. */
    public static LogWriterOptions defaults() {
        return DEFAULTS;
    }

    /** A new builder with nothing set. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The options as the JSON object minigraf_log_writer_create reads, e.g.
     * {@code {"synchronous":"normal","page_cache_size":4096}}, or null when
     * no option is set.
     */
    String toJson() {
        StringBuilder json = new StringBuilder("{");
        if (synchronous != null) {
            json.append("\"synchronous\":\"").append(synchronous.jsonName).append('"');
        }
        if (pageCacheSize != null) {
            json.append(json.length() > 1 ? "," : "").append("\"page_cache_size\":").append(pageCacheSize);
        }
        return json.length() > 1 ? json.append('}').toString() : null;
    }

    @Override
    public String toString() {
        String json = toJson();
        return "LogWriterOptions" + (json == null ? "{}" : json);
    }

    /** Builds {@link LogWriterOptions}. */
    public static final class Builder {
        private Synchronous synchronous;
        private Long pageCacheSize;

        private Builder() {}

        /**
         * When commits reach the disk; {@link Synchronous#FULL} unless set.
         *
         * @param synchronous the mode
         * @return this builder
         */
        public Builder synchronous(Synchronous synchronous) {
            this.synchronous = Objects.requireNonNull(synchronous, "synchronous");
            return this;
        }

        /**
         * Pages of 4096 bytes kept in the page cache (library default 1024).
         *
         * @param pages a count, at least 1
         * @return this builder
         */
        public Builder pageCacheSize(long pages) {
            this.pageCacheSize = pages;
            return this;
        }

        /** The options set so far. */
        public LogWriterOptions build() {
            return new LogWriterOptions(this);
        }
    }
}
