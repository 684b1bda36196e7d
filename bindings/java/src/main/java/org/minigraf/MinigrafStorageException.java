package org.minigraf;

/**
 * Thrown for a storage error (families STG and WAL): the file, its format or its write-ahead log.
 */
public class MinigrafStorageException extends MinigrafException {
    private static final long serialVersionUID = 1L;

    MinigrafStorageException(String code, int numericCode, String message) {
        super(code, numericCode, message);
    }
}
