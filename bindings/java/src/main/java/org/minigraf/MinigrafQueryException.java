package org.minigraf;

/** Thrown for a query execution error (family QRY), such as a type error or a result limit. */
public class MinigrafQueryException extends MinigrafException {
    private static final long serialVersionUID = 1L;

    MinigrafQueryException(String code, int numericCode, String message) {
        super(code, numericCode, message);
    }
}
