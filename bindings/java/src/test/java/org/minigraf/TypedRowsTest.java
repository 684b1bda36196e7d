package org.minigraf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rows through the typed step API: every type kept, and bound back unchanged. */
class TypedRowsTest {
    private static final String ALL = "(query [:find ?v :where [?e :v ?v]])";

    private static Object one(Minigraf db, String query) {
        List<List<Object>> rows = db.queryAll(query);
        assertEquals(1, rows.size(), () -> "rows: " + rows);
        return rows.get(0).get(0);
    }

    @Test
    void everyTypeArrivesAsItsJavaClass() {
        try (Minigraf db = Minigraf.openInMemory()) {
            db.execute(
                    "(transact [[:e :s \"a b \uD83D\uDE00 é\"] [:e :i -9223372036854775808] [:e :j 9223372036854775807]"
                            + " [:e :f 2.5] [:e :b true] [:e :k :status/active] [:e :ks \":status/active\"] [:e :r #uuid \"6ba7b810-9dad-11d1-80b4-00c04fd430c8\"] [:e :n nil]])");
            assertEquals("a b \uD83D\uDE00 é", one(db, "(query [:find ?v :where [?e :s ?v]])"));
            assertEquals(Long.MIN_VALUE, one(db, "(query [:find ?v :where [?e :i ?v]])"));
            assertEquals(Long.MAX_VALUE, one(db, "(query [:find ?v :where [?e :j ?v]])"));
            assertEquals(2.5, one(db, "(query [:find ?v :where [?e :f ?v]])"));
            assertEquals(Boolean.TRUE, one(db, "(query [:find ?v :where [?e :b ?v]])"));
            assertEquals(
                    Keyword.of(":status/active"), one(db, "(query [:find ?v :where [?e :k ?v]])"));
            assertEquals(":status/active", one(db, "(query [:find ?v :where [?e :ks ?v]])"));
            assertEquals(
                    Entity.of("6ba7b810-9dad-11d1-80b4-00c04fd430c8"),
                    one(db, "(query [:find ?v :where [?e :r ?v]])"));
            assertNull(one(db, "(query [:find ?v :where [?e :n ?v]])"));
            Object e = one(db, "(query [:find ?e :where [?e :b true]])");
            assertInstanceOf(Entity.class, e);
            assertEquals(36, e.toString().length());
        }
    }

    @Test
    void nanAndInfinitiesAreKept() {
        try (Minigraf db = Minigraf.openInMemory()) {
            String huge = "9".repeat(400) + ".0";
            db.execute("(transact [[:x :v " + huge + "] [:y :v -" + huge + "]])");
            Set<Object> values =
                    db.queryAll(ALL).stream().map(r -> r.get(0)).collect(Collectors.toSet());
            assertEquals(Double.NaN, one(db, "(query [:find (sum ?v) :where [?e :v ?v]])"));
            assertTrue(values.contains(Double.POSITIVE_INFINITY), values::toString);
            assertTrue(values.contains(Double.NEGATIVE_INFINITY), values::toString);
        }
    }

    @Test
    void textWithNulBytesCrossesWhole(@TempDir Path dir) {
        String path = dir.resolve("nul.graph").toString();
        try (LogWriter writer = LogWriter.create(path)) {
            writer.append(
                    new FactRecord(
                            "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
                            ":v",
                            TypedValue.ofString("a\u0000b"),
                            1,
                            1000,
                            1000,
                            FactRecord.FOREVER,
                            true));
            writer.finish();
        }
        try (Minigraf db = Minigraf.open(path)) {
            assertEquals("a\u0000b", one(db, ALL));
            try (PreparedQuery pq = db.prepare("(query [:find ?e :where [?e :v $v]])")) {
                assertEquals(
                        List.of(List.of(Entity.of("6ba7b810-9dad-11d1-80b4-00c04fd430c8"))),
                        pq.bind("v", "a\u0000b").execute());
            }
        }
    }

    @Test
    void collectSetIsAListOfTypedItems() {
        try (Minigraf db = Minigraf.openInMemory()) {
            db.execute("(transact [[:a :tag :x/y] [:a :tag \"s\"] [:a :tag 3]])");
            Object list = one(db, "(query [:find (collect-set ?t) :where [?e :tag ?t]])");
            assertInstanceOf(List.class, list);
            assertEquals(
                    new HashSet<>(Arrays.asList(Keyword.of(":x/y"), "s", 3L)),
                    new HashSet<>((List<?>) list));
        }
    }

    @Test
    void valuesFromRowsBindBackUnchanged() {
        try (Minigraf db = Minigraf.openInMemory()) {
            db.execute(
                    "(transact [[:a :v \"text\"] [:a :v 42] [:a :v 1.5] [:a :v false] [:a :v :k/w] [:a :v #uuid \"6ba7b810-9dad-11d1-80b4-00c04fd430c8\"]"
                            + " [#uuid \"6ba7b810-9dad-11d1-80b4-00c04fd430c8\" :name \"B\"]])");
            List<Object> values =
                    db.queryAll(ALL).stream().map(r -> r.get(0)).collect(Collectors.toList());
            assertEquals(6, values.size());
            try (PreparedQuery byValue = db.prepare("(query [:find ?e :where [?e :v $v]])");
                    PreparedQuery byEntity =
                            db.prepare("(query [:find ?n :where [$e :name ?n]])")) {
                assertTrue(
                        values.contains(Entity.of("6ba7b810-9dad-11d1-80b4-00c04fd430c8")),
                        values::toString);
                for (Object value : values) {
                    assertEquals(
                            1, byValue.bind("v", value).execute().size(), () -> "value " + value);
                    if (value instanceof Entity) {
                        assertEquals(List.of(List.of("B")), byEntity.bind("e", value).execute());
                    }
                }
            }
        }
    }

    @Test
    void manyRowsAndLongTextsCrossBatches() {
        try (Minigraf db = Minigraf.openInMemory()) {
            StringBuilder tx = new StringBuilder("(transact [");
            String longText = "x".repeat(10_000);
            for (int i = 0; i < 2500; i++) {
                tx.append("[:e")
                        .append(i)
                        .append(" :v \"")
                        .append(i % 10 == 0 ? longText : "t")
                        .append(i)
                        .append("\"]");
            }
            db.execute(tx.append("])").toString());
            try (Cursor cursor = db.query(ALL)) {
                assertEquals(List.of("?v"), cursor.variables());
                List<List<Object>> first = cursor.nextBatch(7);
                assertEquals(7, first.size());
                List<Object> rest = new ArrayList<>();
                for (List<Object> row : cursor) {
                    rest.add(row.get(0));
                }
                assertEquals(2493, rest.size());
                assertTrue(cursor.nextBatch(10).isEmpty());
                assertEquals(
                        250,
                        rest.stream().filter(v -> ((String) v).length() > 10_000).count()
                                + first.stream()
                                        .filter(r -> ((String) r.get(0)).length() > 10_000)
                                        .count());
            }
        }
    }

    /** A :find of {@code n} columns, each the same value: [?e :v ?v] repeated. */
    private static String columns(int n) {
        return "(query [:find" + " ?v".repeat(n) + " :where [?e :v ?v]])";
    }

    @Test
    void rowsOfOneTwoAndManyColumnsAreLists() {
        try (Minigraf db = Minigraf.openInMemory()) {
            db.execute("(transact [[:a :v 7]])");
            for (int n : new int[] {1, 2, 3, 5}) {
                List<Object> row = db.queryAll(columns(n)).get(0);
                List<Object> expected = java.util.Collections.nCopies(n, 7L);
                assertInstanceOf(Row.class, row);
                assertEquals(n, row.size());
                assertEquals(expected, row);
                assertEquals(row, expected);
                assertEquals(expected.hashCode(), row.hashCode());
                assertEquals(expected.toString(), row.toString());
                assertEquals(expected, new ArrayList<>(row));
                assertEquals(7L, row.get(n - 1));
                assertThrows(IndexOutOfBoundsException.class, () -> row.get(n));
                assertThrows(IndexOutOfBoundsException.class, () -> row.get(-1));
                assertThrows(UnsupportedOperationException.class, () -> row.set(0, 1L));
                assertTrue(new HashSet<>(List.of(expected)).contains(row));
            }
        }
    }

    @Test
    void twoColumnRowsKeepEntitiesAndNulls() {
        try (Minigraf db = Minigraf.openInMemory()) {
            String uuid = "6ba7b810-9dad-11d1-80b4-00c04fd430c8";
            db.execute(
                    "(transact [[#uuid \""
                            + uuid
                            + "\" :n nil] [#uuid \""
                            + uuid
                            + "\" :name \"B\"]])");
            List<Object> row = db.queryAll("(query [:find ?e ?v :where [?e :n ?v]])").get(0);
            assertEquals(2, row.size());
            assertEquals(Entity.of(uuid), row.get(0));
            assertNull(row.get(1));
            assertEquals(Arrays.asList(Entity.of(uuid), null), row);
            assertEquals("[" + uuid + ", null]", row.toString());
            try (PreparedQuery byEntity = db.prepare("(query [:find ?n :where [$e :name ?n]])")) {
                assertEquals(List.of(List.of("B")), byEntity.bind("e", row.get(0)).execute());
            }
        }
    }

    @Test
    void rowsWiderThanAFetchBufferCrossWhole() {
        // 600 columns: 9,600 bytes of cells a row, more than the fetch's stack buffer
        try (Minigraf db = Minigraf.openInMemory()) {
            db.execute("(transact [[:a :v \"x\"] [:b :v \"y\"] [:c :v \"z\"]])");
            for (int n : new int[] {300, 600}) {
                List<List<Object>> rows = db.queryAll(columns(n));
                assertEquals(3, rows.size());
                Set<Object> firsts = new HashSet<>();
                for (List<Object> row : rows) {
                    assertEquals(java.util.Collections.nCopies(n, row.get(0)), row);
                    firsts.add(row.get(0));
                }
                assertEquals(Set.of("x", "y", "z"), firsts);
            }
        }
    }

    @Test
    void queryOfAnotherCommandAndClosedCursorFail() {
        try (Minigraf db = Minigraf.openInMemory()) {
            MinigrafApiException notQuery =
                    assertThrows(
                            MinigrafApiException.class, () -> db.query("(transact [[:a :b 1]])"));
            assertEquals("API-012", notQuery.getCode());
            Cursor cursor = db.query(ALL);
            cursor.close();
            cursor.close();
            assertTrue(cursor.isClosed());
            assertEquals(
                    "API-018",
                    assertThrows(MinigrafApiException.class, () -> cursor.nextBatch(1)).getCode());
        }
    }

    @Test
    void emptyPathIsRefusedNotInMemory(@TempDir Path dir) {
        MinigrafApiException empty =
                assertThrows(MinigrafApiException.class, () -> Minigraf.open(""));
        assertEquals("API-017", empty.getCode());
        assertTrue(empty.getMessage().startsWith("[API-017] "), empty.getMessage());
        assertFalse(Files.exists(dir.resolve(".wal")));
    }
}
