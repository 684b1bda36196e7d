package org.minigraf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import org.junit.jupiter.api.Test;

class ExceptionsTest {
    @Test
    void familiesMapToSubclasses() {
        assertInstanceOf(
                MinigrafParseException.class, MinigrafException.create(1011, "[PRS-011] x"));
        assertInstanceOf(
                MinigrafQueryException.class, MinigrafException.create(2007, "[QRY-007] x"));
        assertInstanceOf(
                MinigrafStorageException.class, MinigrafException.create(3026, "[STG-026] x"));
        assertInstanceOf(
                MinigrafStorageException.class, MinigrafException.create(4003, "[WAL-003] x"));
        assertInstanceOf(MinigrafApiException.class, MinigrafException.create(5017, "[API-017] x"));
        assertInstanceOf(
                MinigrafInternalException.class, MinigrafException.create(6001, "[INT-001] x"));
    }

    @Test
    void codeAndMessageAreKept() {
        MinigrafException e =
                MinigrafException.create(1011, "[PRS-011] Unknown command: frobnicate");
        assertEquals("PRS-011", e.getCode());
        assertEquals(1011, e.getNumericCode());
        assertEquals("[PRS-011] Unknown command: frobnicate", e.getMessage());
    }

    @Test
    void numberZeroIsAValidCode() {
        MinigrafException e = MinigrafException.create(6000, "[INT-000] out of memory");
        assertInstanceOf(MinigrafInternalException.class, e);
        assertEquals("INT-000", e.getCode());
        assertEquals(6000, MinigrafException.create(0, "[INT-000] x").getNumericCode());
    }

    @Test
    void missingCodeIsReadFromTheMessage() {
        MinigrafException e = MinigrafException.create(0, "[WAL-003] too big");
        assertInstanceOf(MinigrafStorageException.class, e);
        assertEquals("WAL-003", e.getCode());
        assertEquals(4003, e.getNumericCode());
    }

    @Test
    void nothingKnownIsAnInternalError() {
        MinigrafException e = MinigrafException.create(0, null);
        assertInstanceOf(MinigrafInternalException.class, e);
        assertEquals("INT-000", e.getCode());
        assertEquals(6000, e.getNumericCode());
        assertEquals("[INT-000] (the library gave no message)", e.getMessage());
        assertEquals("INT-000", MinigrafException.create(0, "no prefix").getCode());
        assertEquals("no prefix", MinigrafException.create(0, "no prefix").getMessage());
    }
}
