/**
 * minigraf for Java: an embedded, single-file, bi-temporal graph database
 * with a Datalog query language.
 *
 * <p>Start with {@link org.minigraf.Minigraf}. Results are {@link org.minigraf.Result}s
 * or, read in batches, {@link org.minigraf.Cursor}s; failures are
 * {@link org.minigraf.MinigrafException}s carrying the spec's error code.
 * The jar carries the native library for its platform and loads it itself.
 */
package org.minigraf;
