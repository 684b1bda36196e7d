package org.minigraf;

/**
 * Thrown for a misuse of the API (family API), such as a write on a read-only database (API-014),
 * an invalid argument (API-017) or a closed database or cursor (API-018).
 */
public class MinigrafApiException extends MinigrafException {
    private static final long serialVersionUID = 1L;

    MinigrafApiException(String code, int numericCode, String message) {
        super(code, numericCode, message);
    }
}
