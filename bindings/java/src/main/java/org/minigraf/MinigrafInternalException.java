package org.minigraf;

/** Thrown for any other engine error (family INT). */
public class MinigrafInternalException extends MinigrafException {
    private static final long serialVersionUID = 1L;

    MinigrafInternalException(String code, int numericCode, String message) {
        super(code, numericCode, message);
    }
}
