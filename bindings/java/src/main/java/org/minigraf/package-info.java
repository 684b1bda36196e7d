/**
 * minigraf for Java: an embedded, single-file, bi-temporal graph database with a Datalog query
 * language.
 *
 * <p>Start with {@link org.minigraf.Minigraf}. Results are {@link org.minigraf.Result}s or, read in
 * batches, {@link org.minigraf.Cursor}s; failures are {@link org.minigraf.MinigrafException}s
 * carrying the spec's error code. {@link org.minigraf.FactLog} streams every stored fact version as
 * a {@link org.minigraf.FactRecord}, and {@link org.minigraf.LogWriter} builds a database file from
 * such records ({@link org.minigraf.Minigraf#exportTo(String)}). The jar carries the native library
 * for its platform and loads it itself.
 */
package org.minigraf;
