package org.minigraf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The decoding of minigraf_execute's JSON forms (language.md §14). */
class ResultTest {
    @Test
    void everyKindDecodes() {
        Result tx = Result.fromJson("{\"transacted\":1717000000123}");
        assertEquals(Result.Kind.TRANSACTED, tx.kind());
        assertEquals(1717000000123L, tx.txId());
        assertEquals(Result.Kind.RETRACTED, Result.fromJson("{\"retracted\":5}").kind());

        Result ok = Result.fromJson("{\"ok\":true}");
        assertEquals(Result.Kind.OK, ok.kind());
        assertTrue(ok.rows().isEmpty());
        assertTrue(ok.variables().isEmpty());
        assertThrows(IllegalStateException.class, ok::txId);

        Result q =
                Result.fromJson(
                        "{\"variables\":[\"?a\",\"?b\"],\"results\":[[1,\":k\"],[2.5,null]]}");
        assertEquals(Result.Kind.QUERY, q.kind());
        assertEquals(List.of("?a", "?b"), q.variables());
        assertEquals(List.of(Arrays.asList(1L, ":k"), Arrays.asList(2.5, null)), q.rows());
        assertThrows(UnsupportedOperationException.class, () -> q.rows().add(List.of()));
        assertThrows(UnsupportedOperationException.class, () -> q.rows().get(0).set(0, 3L));
    }

    @Test
    void unexpectedJsonIsAnInternalError() {
        for (String json :
                new String[] {
                    "[]",
                    "{}",
                    "{\"ok\":false}",
                    "{\"transacted\":\"x\"}",
                    "not json",
                    "{\"variables\":[1],\"results\":[]}",
                    "{\"variables\":[],\"results\":[1]}"
                }) {
            MinigrafInternalException e =
                    assertThrows(MinigrafInternalException.class, () -> Result.fromJson(json));
            assertEquals("INT-000", e.getCode());
        }
    }
}
