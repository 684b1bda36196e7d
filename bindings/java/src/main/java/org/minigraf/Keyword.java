package org.minigraf;

import java.util.Objects;

/**
 * A keyword value such as {@code :status/active}: what a row holds for a keyword, distinct from the
 * {@link String} {@code ":status/active"}. Binds back into a prepared query as the same keyword.
 * Immutable; equal when the texts are.
 */
public final class Keyword implements Comparable<Keyword> {
    private final String text;

    private Keyword(String text) {
        this.text = text;
    }

    /**
     * The keyword written {@code text}, with its colon; the library checks its form where it is
     * used (API-017).
     *
     * @param text e.g. {@code ":person/name"}
     * @return the keyword
     * @throws IllegalArgumentException if {@code text} does not start with ':'
     */
    public static Keyword of(String text) {
        Objects.requireNonNull(text, "text");
        if (!text.startsWith(":")) {
            throw new IllegalArgumentException("a keyword starts with ':': " + text);
        }
        return new Keyword(text);
    }

    /** Made from the library's text, which always starts with ':'. */
    static Keyword fromLibrary(String text) {
        return new Keyword(text);
    }

    /** The text with its colon, e.g. {@code ":person/name"}. */
    public String text() {
        return text;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Keyword && ((Keyword) other).text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode() * 31 + 1;
    }

    @Override
    public int compareTo(Keyword other) {
        return text.compareTo(other.text);
    }

    /** The text, e.g. {@code :person/name}. */
    @Override
    public String toString() {
        return text;
    }
}
