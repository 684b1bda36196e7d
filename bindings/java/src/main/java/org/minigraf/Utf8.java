package org.minigraf;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

/** Strict UTF-8 conversions for text crossing into and out of the library. */
final class Utf8 {
    private Utf8() {}

    /**
     * The UTF-8 bytes of {@code text}. A string that is not valid Unicode (an unpaired surrogate)
     * is refused with API-017, as the library refuses invalid UTF-8, instead of being silently
     * changed.
     */
    static byte[] encode(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c)
                    && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw MinigrafException.create(
                        5017,
                        "API-017",
                        "Invalid argument: text has an unpaired surrogate at index " + i);
            }
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Decodes the library's UTF-8 output; invalid UTF-8 is an internal error. */
    static String decode(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw MinigrafException.create(6000, "INT-000", "The library returned invalid UTF-8");
        }
    }

    /** UTF-8 bytes of a message; an unpaired surrogate becomes '?'. */
    static byte[] encodeLossy(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
