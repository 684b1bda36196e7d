package org.minigraf;

/** Thrown for a parse error (family PRS): the text is not valid minigraf Datalog. */
public class MinigrafParseException extends MinigrafException {
    private static final long serialVersionUID = 1L;

    MinigrafParseException(String code, int numericCode, String message) {
        super(code, numericCode, message);
    }
}
