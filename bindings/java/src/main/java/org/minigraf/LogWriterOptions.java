package org.minigraf;

import java.util.Map;
import java.util.Objects;

/**
 * Options for {@link LogWriter#create(String, LogWriterOptions)} and {@link
 * Minigraf#exportTo(String, LogWriterOptions)}; build them with {@link #builder()}:
 *
 * <pre>{@code
 * LogWriterOptions options = LogWriterOptions.builder()
 *         .synchronous(LogWriterOptions.Synchronous.NORMAL)
 *         .pageCacheSize(4096)
 *         .build();
 * }</pre>
 *
 * <p>Unset options keep the library's defaults (here {@code "synchronous"} is NORMAL: the file is
 * synced when finished). Values are checked by the library when the writer is created (API-017).
 * Instances are immutable.
 */
public final class LogWriterOptions extends OptionsJson {
    /** When commits reach the disk (the library's {@code "synchronous"} option). */
    public enum Synchronous {
        /** Each commit is synced before the call returns. */
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

    private LogWriterOptions(Map<String, Object> values) {
        super(values);
    }

    /** Options with every value at the library's default. */
    public static LogWriterOptions defaults() {
        return DEFAULTS;
    }

    /** A new builder with nothing set. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link LogWriterOptions}. */
    public static final class Builder extends OptionsJson.BuilderBase<LogWriterOptions> {
        private Builder() {}

        /**
         * When commits reach the disk.
         *
         * @param synchronous the mode
         * @return this builder
         */
        public Builder synchronous(Synchronous synchronous) {
            set("synchronous", Objects.requireNonNull(synchronous, "synchronous").jsonName());
            return this;
        }

        /**
         * Pages of 4096 bytes kept in the page cache (library default 4096).
         *
         * @param pages a count, at least 1
         * @return this builder
         */
        public Builder pageCacheSize(long pages) {
            set("page_cache_size", pages);
            return this;
        }

        /**
         * Facts in the WAL that trigger a checkpoint while writing (library default 100000, or 4 MB
         * of WAL first).
         *
         * @param facts at least 0
         * @return this builder
         */
        public Builder walCheckpointThreshold(long facts) {
            set("wal_checkpoint_threshold", facts);
            return this;
        }

        /**
         * Make the file with the history index (the open option of that name; default false).
         *
         * @param historyIndex true to keep the index
         * @return this builder
         */
        public Builder historyIndex(boolean historyIndex) {
            values.put("history_index", historyIndex);
            return this;
        }

        /** The options set so far. */
        @Override
        public LogWriterOptions build() {
            return new LogWriterOptions(values);
        }
    }
}
