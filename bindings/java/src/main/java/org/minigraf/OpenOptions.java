package org.minigraf;

import java.util.Map;
import java.util.Objects;

/**
 * Options for {@link Minigraf#open(String, OpenOptions)}; build them with {@link #builder()}:
 *
 * <pre>{@code
 * OpenOptions options = OpenOptions.builder().readOnly(true).maxResults(10_000).build();
 * try (Minigraf db = Minigraf.open("people.graph", options)) { ... }
 * }</pre>
 *
 * <p>Every option of {@code minigraf_options_describe} ({@link Minigraf#describeOptions()}) has a
 * builder method; {@link Builder#option(String, Object)} sets one by its library name. Unset
 * options keep the library's defaults. Values are checked by the library when the database opens
 * (API-017). Immutable.
 */
public final class OpenOptions extends OptionsJson {
    private static final OpenOptions DEFAULTS = new Builder().build();

    private OpenOptions(Map<String, Object> values) {
        super(values);
    }

    /** Options with every value at the library's default. */
    public static OpenOptions defaults() {
        return DEFAULTS;
    }

    /** A new builder with nothing set. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link OpenOptions}. */
    public static final class Builder extends OptionsJson.BuilderBase<OpenOptions> {
        private Builder() {}

        /**
         * Sets any option by its library name, e.g. {@code option("busy_timeout_ms", 100)}.
         *
         * @param name the option's name
         * @param value a Boolean, a whole number or a String
         * @return this builder
         */
        public Builder option(String name, Object value) {
            set(name, value);
            return this;
        }

        /**
         * Read-only: writes fail with API-014; several read-only opens (in other processes too)
         * share the file, never with a writer (STG-026).
         *
         * @param readOnly true for a read-only database
         * @return this builder
         */
        public Builder readOnly(boolean readOnly) {
            return option("read_only", readOnly);
        }

        /**
         * Open without the inter-process file lock where the file system cannot lock (STG-027).
         *
         * @param allowUnlocked true to allow it
         * @return this builder
         */
        public Builder allowUnlocked(boolean allowUnlocked) {
            return option("allow_unlocked", allowUnlocked);
        }

        /**
         * Pages of 4096 bytes in the page cache (default 4096).
         *
         * @param pages at least 1
         * @return this builder
         */
        public Builder pageCacheSize(long pages) {
            return option("page_cache_size", pages);
        }

        /**
         * Facts in the WAL that trigger an automatic checkpoint after a commit (default 100000, or
         * 4 MB of WAL first; 0 never).
         *
         * @param facts at least 0
         * @return this builder
         */
        public Builder walCheckpointThreshold(long facts) {
            return option("wal_checkpoint_threshold", facts);
        }

        /**
         * When commits reach the disk (default {@link LogWriterOptions.Synchronous#FULL}).
         *
         * @param synchronous FULL: fsync per commit; NORMAL: at checkpoint and close
         * @return this builder
         */
        public Builder synchronous(LogWriterOptions.Synchronous synchronous) {
            return option(
                    "synchronous", Objects.requireNonNull(synchronous, "synchronous").jsonName());
        }

        /**
         * Opens a database whose WAL is corrupt (STG-045) by dropping the damaged frame and all
         * after it.
         *
         * @param truncateWal true for {@code "recover": "truncate_wal"}
         * @return this builder
         */
        public Builder recoverTruncateWal(boolean truncateWal) {
            if (truncateWal) {
                return option("recover", "truncate_wal");
            }
            values.remove("recover");
            return this;
        }

        /**
         * The most facts rules may derive in one query (default 1,000,000).
         *
         * @param maxDerivedFacts at least 1
         * @return this builder
         */
        public Builder maxDerivedFacts(long maxDerivedFacts) {
            return option("max_derived_facts", maxDerivedFacts);
        }

        /**
         * The most rows one query may return (default 1,000,000).
         *
         * @param maxResults at least 1
         * @return this builder
         */
        public Builder maxResults(long maxResults) {
            return option("max_results", maxResults);
        }

        /**
         * Bytes one query may hold before it fails with QRY-012 (default 1 GiB; 0 unlimited).
         *
         * @param bytes at least 0
         * @return this builder
         */
        public Builder queryMemoryLimit(long bytes) {
            return option("query_memory_limit", bytes);
        }

        /**
         * Milliseconds a writer waits for another thread's write transaction before API-020
         * (default 5000).
         *
         * @param millis at least 0
         * @return this builder
         */
        public Builder busyTimeoutMs(long millis) {
            return option("busy_timeout_ms", millis);
        }

        /**
         * Milliseconds a query call may run before API-013 (default 0: no limit).
         *
         * @param millis at least 0
         * @return this builder
         */
        public Builder queryTimeoutMs(long millis) {
            return option("query_timeout_ms", millis);
        }

        /**
         * Keep the history index: reads of one entity and attribute cost the same at any history
         * depth; every write costs more and the file grows (default false; a file keeps the choice
         * it was made with, true builds it in a file without it).
         *
         * @param historyIndex true to keep the index
         * @return this builder
         */
        public Builder historyIndex(boolean historyIndex) {
            return option("history_index", historyIndex);
        }

        /** The options set so far. */
        @Override
        public OpenOptions build() {
            return new OpenOptions(values);
        }
    }
}
