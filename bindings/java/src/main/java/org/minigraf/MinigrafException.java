package org.minigraf;

import java.nio.charset.StandardCharsets;

/**
 * An error reported by minigraf.
 *
 * <p>Every error has a spec code such as {@code "PRS-011"} ({@link #getCode()}), its numeric form
 * {@code family * 1000 + number} ({@link #getNumericCode()}, here {@code 1011}), and a message that
 * starts with the code in brackets, exactly as the C library wrote it: {@code "[PRS-011] Unknown
 * command: frobnicate"}.
 *
 * <p>The subclass tells the family: {@link MinigrafParseException} (PRS), {@link
 * MinigrafQueryException} (QRY), {@link MinigrafStorageException} (STG and WAL), {@link
 * MinigrafApiException} (API) and {@link MinigrafInternalException} (INT).
 */
public class MinigrafException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The family prefixes, indexed by family number (see {@code minigraf.h}). */
    private static final String[] FAMILIES = {null, "PRS", "QRY", "STG", "WAL", "API", "INT"};

    /** Numeric code of INT-000, the engine's code for an error without a code of its own. */
    private static final int INTERNAL_ERROR = 6000;

    private final String code;
    private final int numericCode;

    MinigrafException(String code, int numericCode, String message) {
        super(message);
        this.code = code;
        this.numericCode = numericCode;
    }

    /** The spec code, e.g. {@code "PRS-011"}. */
    public String getCode() {
        return code;
    }

    /** The numeric code, e.g. {@code 1011} for PRS-011. */
    public int getNumericCode() {
        return numericCode;
    }

    /**
     * Called by the JNI glue (minigraf_jni_glue.c) to build the exception it throws; {@code
     * message} is the C library's UTF-8 text or null.
     */
    @SuppressWarnings("unused")
    private static MinigrafException fromNative(int numericCode, byte[] message) {
        return create(
                numericCode, message == null ? null : new String(message, StandardCharsets.UTF_8));
    }

    /**
     * Builds the exception of the right subclass for a numeric code and a {@code "[CODE] message"}
     * text. A code of 0 (or one that is not valid) is read from the message's bracketed prefix
     * instead.
     */
    static MinigrafException create(int numericCode, String message) {
        String name = codeName(numericCode);
        if (name == null) {
            numericCode = parseCode(message);
            name = codeName(numericCode);
        }
        if (name == null) {
            numericCode = INTERNAL_ERROR;
            name = codeName(numericCode);
        }
        if (message == null || message.isEmpty()) {
            message = "[" + name + "] (the library gave no message)";
        }
        switch (numericCode / 1000) {
            case 1:
                return new MinigrafParseException(name, numericCode, message);
            case 2:
                return new MinigrafQueryException(name, numericCode, message);
            case 3:
            case 4:
                return new MinigrafStorageException(name, numericCode, message);
            case 5:
                return new MinigrafApiException(name, numericCode, message);
            default:
                return new MinigrafInternalException(name, numericCode, message);
        }
    }

    /** {@code create(numericCode, "[" + name + "] " + text)}. */
    static MinigrafException create(int numericCode, String name, String text) {
        return create(numericCode, "[" + name + "] " + text);
    }

    /** "PRS-011" for 1011 ("INT-000" for 6000), or null outside the families. */
    static String codeName(int numericCode) {
        int family = numericCode / 1000;
        int number = numericCode % 1000;
        if (numericCode <= 0 || family >= FAMILIES.length) {
            return null;
        }
        return String.format("%s-%03d", FAMILIES[family], number);
    }

    /** 1011 for a message starting "[PRS-011]", else 0. */
    static int parseCode(String message) {
        if (message == null
                || message.length() < 9
                || message.charAt(0) != '['
                || message.charAt(4) != '-'
                || message.charAt(8) != ']') {
            return 0;
        }
        String prefix = message.substring(1, 4);
        for (int family = 1; family < FAMILIES.length; family++) {
            if (FAMILIES[family].equals(prefix)) {
                String digits = message.substring(5, 8);
                for (int i = 0; i < digits.length(); i++) {
                    if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
                        return 0;
                    }
                }
                return family * 1000 + Integer.parseInt(digits);
            }
        }
        return 0;
    }
}
