package org.minigraf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Regressions found by the hostile-input catalogue (tests/hostile/java/HostileRunner.java). */
class HostileInputTest {
    private static void assertApi017(MinigrafApiException e) {
        assertEquals("API-017", e.getCode());
        assertEquals(5017, e.getNumericCode());
        assertTrue(e.getMessage().startsWith("[API-017] "), e.getMessage());
    }

    @Test
    void entityTextThatIsNotAUuidIsApi017() {
        for (String bad :
                new String[] {
                    "not-a-uuid",
                    "",
                    "1-2-3-4-5",
                    "6ba7b810-9dad-11d1-80b4-00c04fd430c",
                    "6ba7b8109dad11d180b400c04fd430c8",
                    "6ba7b810-9dad-11d1-80b4-00c04fd430c8 ",
                    "+ba7b810-9dad-11d1-80b4-00c04fd430c8"
                }) {
            assertApi017(assertThrows(MinigrafApiException.class, () -> Entity.of(bad), bad));
        }
    }

    @Test
    void entityTextInEitherCaseIsTheSameEntity() {
        Entity lower = Entity.of("6ba7b810-9dad-11d1-80b4-00c04fd430c8");
        assertEquals(lower, Entity.of("6BA7B810-9DAD-11D1-80B4-00C04FD430C8"));
        assertEquals(UUID.fromString("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), lower.uuid());
    }

    @Test
    void aBadEntityBindLeavesThePreparedQueryUsable() {
        try (Minigraf db = Minigraf.openInMemory();
                PreparedQuery pq = db.prepare("(query [:find ?n :where [$e :name ?n]])")) {
            db.execute("(transact [[:a :name \"A\"]])");
            assertThrows(MinigrafApiException.class, () -> pq.bind("e", Entity.of("not-a-uuid")));
            pq.bind("e", db.queryAll("(query [:find ?e :where [?e :name \"A\"]])").get(0).get(0));
            assertEquals(1, pq.execute().size());
        }
    }
}
